"""A real server killed with SIGKILL in the middle of many plays, then restarted on the same
database: every play resumes at exactly its saved step and no money is lost or made.

Each player thread remembers the last step the server *answered* for its play and which request
was in flight when the connection died. After the restart the play must be at the answered step,
or one further only when a step was in flight on it (the kill hit after the commit, before the
answer reached us). Nothing else is allowed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from plays_fixtures import PRICE, step_body

import support
from colour_collector.service import audit
from colour_collector.store import Database
from support import browser_like_client, free_port, outbox_token

pytestmark = pytest.mark.slow

PLAYERS = 6
DEPOSIT = 50_000
KILL_AFTER_ANSWERS = 150
"""Successful step answers (all players together) before the server is killed."""


def start_server(database_url: str, tmp_path: Path, port: int) -> subprocess.Popen[bytes]:
    return support.start_server(
        tmp_path,
        port,
        {
            "COLOUR_COLLECTOR_DATABASE_URL": database_url,
            "COLOUR_COLLECTOR_DATA_DIR": str(tmp_path / "data"),
            "COLOUR_COLLECTOR_WEB_DIR": str(tmp_path / "no-web"),
        },
    )


def new_client(port: int, cookies: httpx.Cookies | None = None) -> httpx.Client:
    client: httpx.Client = browser_like_client(
        f"http://127.0.0.1:{port}", timeout=30, cookies=cookies
    )
    return client


@dataclass
class Player:
    """What one player's thread knows from the answers it got."""

    client: httpx.Client
    email: str
    play: str | None = None
    """The play being played (from the last purchase answer)."""
    revealed: int = 0
    """Its revealed count in the last answer."""
    next: str | None = None
    """The next step in the last answer."""
    finished: set[str] = field(default_factory=set)
    """Plays whose FINISH was answered."""
    in_flight: tuple[str, str | None] | None = None
    """(what, play) of the request that got no answer: 'purchase', 'step' or 'finish'."""
    purchase_key: str | None = None
    """Idempotency-Key of the last purchase asked for."""

    def run(self, answered: list[int], lock: threading.Lock, stop: threading.Event) -> None:
        """Play whole plays until the connection dies (or ``stop``)."""
        while not stop.is_set():
            self.purchase_key = uuid.uuid4().hex
            self.in_flight = ("purchase", None)
            bought = self.client.post(
                "/api/plays", json={"confirm": True}, headers={"Idempotency-Key": self.purchase_key}
            )
            assert bought.status_code in (200, 201), bought.text
            body = bought.json()
            self.play, self.revealed = body["play"]["play_number"], body["board"]["revealed"]
            self.next = body["board"]["next"]
            while self.next is not None:
                self.in_flight = ("step", self.play)
                answer = self.client.post(
                    f"/api/plays/{self.play}/steps", json=step_body(self.next)
                )
                assert answer.status_code == 200, answer.text
                self.revealed, self.next = (
                    answer.json()["board"]["revealed"],
                    answer.json()["board"]["next"],
                )
                with lock:
                    answered[0] += 1
            self.in_flight = ("finish", self.play)
            done = self.client.post(f"/api/plays/{self.play}/finish", json={})
            assert done.status_code == 200, done.text
            self.finished.add(self.play)
            self.in_flight = None


def play_in_threads(players: list[Player], server: subprocess.Popen[str]) -> None:
    """Run every player; SIGKILL the server once enough steps were answered."""
    answered, lock, stop = [0], threading.Lock(), threading.Event()
    errors: list[BaseException] = []

    def run(player: Player) -> None:
        try:
            player.run(answered, lock, stop)
        except httpx.TransportError:
            return  # the server died under this request: ``in_flight`` says which
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run, args=(p,)) for p in players]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 120
    while answered[0] < KILL_AFTER_ANSWERS and time.monotonic() < deadline and not errors:
        time.sleep(0.01)
    os.kill(server.pid, signal.SIGKILL)
    server.wait(timeout=30)
    for thread in threads:
        thread.join(timeout=60)
    stop.set()
    assert not errors, errors
    assert answered[0] >= KILL_AFTER_ANSWERS


def check_resumed(player: Player, client: httpx.Client) -> dict[str, Any] | None:
    """Check the unfinished play after the restart; return its view (None: no play)."""
    current = client.get("/api/plays/current")
    what, on = player.in_flight or (None, None)
    if what == "purchase":
        # Ask again with the same key: the same play if the lost purchase committed.
        again = client.post(
            "/api/plays", json={"confirm": True}, headers={"Idempotency-Key": player.purchase_key}
        )
        if current.status_code == 200:
            assert again.status_code == 200, again.text
            assert again.json()["play"]["play_number"] == current.json()["play"]["play_number"]
            assert current.json()["board"]["revealed"] == 0
        else:
            assert current.status_code == 404, current.text
            assert again.status_code == 201, again.text
        assert player.play is None or player.play in player.finished
        return client.get("/api/plays/current").json()
    assert player.play is not None
    if what == "finish" and current.status_code == 404:
        return None  # FINISH committed, the answer was lost
    assert current.status_code == 200, (player.in_flight, current.text)
    view = current.json()
    assert view["play"]["play_number"] == player.play
    revealed = view["board"]["revealed"]
    if what == "step" and on == player.play:
        assert revealed in (player.revealed, player.revealed + 1), (player, revealed)
    else:
        assert revealed == player.revealed, (player, revealed)
    return dict(view)


def finish_current(client: httpx.Client, view: dict[str, Any]) -> None:
    number, board = view["play"]["play_number"], view["board"]
    while board["next"] is not None:
        answer = client.post(f"/api/plays/{number}/steps", json=step_body(board["next"]))
        assert answer.status_code == 200, answer.text
        assert answer.json()["step"]["index"] == board["revealed"]
        board = answer.json()["board"]
    assert client.post(f"/api/plays/{number}/finish", json={}).status_code == 200


def money_of(client: httpx.Client) -> tuple[int, int, int, int]:
    """(stakes, prizes, plays, balance) from My Games and the wallet."""
    stakes = prizes = count = 0
    page = 1
    while True:
        found = client.get("/api/my-games", params={"page": page, "per_page": 100}).json()
        for play in found["items"]:
            assert play["status"] == "finished", play
            stakes += play["price_pence"]
            prizes += play["prize_pence"]
            count += 1
        if page * 100 >= found["total"]:
            break
        page += 1
    return stakes, prizes, count, client.get("/api/wallet").json()["balance_pence"]


def test_sigkill_mid_play_then_every_play_resumes(database_url: str, tmp_path: Path) -> None:
    port = free_port()
    server = start_server(database_url, tmp_path, port)
    players = []
    try:
        for n in range(PLAYERS):
            client = new_client(port)
            email = f"p{n}@example.com"
            body = {
                "email": email,
                "password": "a long enough password",
                "date_of_birth": "1980-01-01",
            }
            assert client.post("/api/register", json=body).status_code == 202
            token = outbox_token(tmp_path / "data" / "outbox", email)
            assert (
                client.post(
                    "/api/register/confirm",
                    json={"token": token, "password": "a long enough password"},
                ).status_code
                == 200
            )
            deposit = client.post("/api/wallet/test-deposit", json={"amount_pence": DEPOSIT})
            assert deposit.status_code == 201
            players.append(Player(client, email))
        play_in_threads(players, server)
    finally:
        if server.poll() is None:
            server.kill()
        for player in players:
            player.client.close()
    assert all(player.in_flight is not None for player in players)

    port = free_port()
    server = start_server(database_url, tmp_path, port)
    try:
        total_balance = total_expected = 0
        for player in players:
            client = new_client(port, player.client.cookies)
            try:
                view = check_resumed(player, client)
                if view is not None:
                    finish_current(client, view)
                assert client.get("/api/plays/current").status_code == 404
                stakes, prizes, count, balance = money_of(client)
            finally:
                client.close()
            assert count >= len(player.finished)
            assert stakes == PRICE * count
            assert balance == DEPOSIT - stakes + prizes
            total_balance += balance
            total_expected += DEPOSIT - stakes + prizes
        assert total_balance == total_expected
    finally:
        server.terminate()
        server.wait(timeout=30)
    database = Database(database_url)
    try:
        report = audit.verify_chain(database)
    finally:
        database.dispose()
    assert report.entries > KILL_AFTER_ANSWERS
