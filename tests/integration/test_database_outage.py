"""PostgreSQL restarted under load: two server processes answer 503 with Retry-After while it is
away (never a 500), serve again by themselves once it is back, and lose nothing.

The test starts its own cluster (it restarts it) and a real ``colour-collector serve --workers 2``
on it; eight client threads play whole plays and poll ``/healthz`` throughout, retrying a 503
as a client should (the same Idempotency-Key, the same step index).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from colour_collector.service import audit
from colour_collector.store import Database, upgrade_to_head
from pg_cluster import running_cluster
from support import TEST_SECRET, browser_like_client, free_port, outbox_token

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

PASSWORD = "outage test password"


def serve(url: str, workdir: Path) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLOUR_COLLECTOR_")}
    env.update(
        COLOUR_COLLECTOR_ENVIRONMENT="test",
        COLOUR_COLLECTOR_SECRET_KEY=TEST_SECRET,
        COLOUR_COLLECTOR_DATABASE_URL=url,
        COLOUR_COLLECTOR_DATA_DIR=str(workdir),
        COLOUR_COLLECTOR_WEB_DIR=str(workdir / "no-web"),
        COLOUR_COLLECTOR_PASSWORD_HASH_TIME_COST="1",
        COLOUR_COLLECTOR_PASSWORD_HASH_MEMORY_KIB="8",
        COLOUR_COLLECTOR_PASSWORD_HASH_PARALLELISM="1",
    )
    process = subprocess.Popen(
        [sys.executable, "-c", "from colour_collector.cli.app import main; main()", "serve",
         "--port", str(port), "--workers", "2", "--no-access-log"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return process, base
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise AssertionError(f"the server did not start:\n{process.communicate()[0]}")


class Player:
    """One client: plays whole plays, retrying 503s as a client should."""

    def __init__(self, base: str, n: int, statuses: Counter[int], outbox: Path) -> None:
        self.http: httpx.Client = browser_like_client(base, timeout=30)
        self.statuses = statuses
        email = f"outage{n}@example.com"
        body = {"email": email, "password": PASSWORD, "date_of_birth": "1980-01-01"}
        assert self.http.post("/api/register", json=body).status_code == 202
        token = outbox_token(outbox, email)
        assert self.http.post(
            "/api/register/confirm", json={"token": token, "password": PASSWORD}
        ).is_success
        deposit = self.http.post("/api/wallet/test-deposit", json={"amount_pence": 100_000})
        assert deposit.status_code == 201
        self.plays: set[str] = set()

    def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """The request, repeated while it answers 503 (after its Retry-After)."""
        while True:
            try:
                answer = self.http.request(method, path, **kwargs)
            except httpx.TransportError:  # not expected: the server processes stay up
                self.statuses[-1] += 1
                time.sleep(0.2)
                continue
            self.statuses[answer.status_code] += 1
            if answer.status_code != 503:
                return answer
            assert answer.headers["retry-after"].isdigit()
            assert answer.json()["code"] == "unavailable"
            time.sleep(min(1.0, float(answer.headers["retry-after"])))

    def play(self) -> None:
        key = {"Idempotency-Key": uuid.uuid4().hex}
        bought = self.call("POST", "/api/plays", json={"confirm": True}, headers=key)
        assert bought.status_code in {200, 201}, bought.text  # 200: bought by the first try
        number, board = bought.json()["play"]["play_number"], bought.json()["board"]
        self.plays.add(number)
        while board["next"] is not None:
            body: dict[str, Any] = {"kind": board["next"], "step": board["revealed"]}
            if board["next"] == "bonus_pick":
                body["pick"] = "odd"
            step = self.call("POST", f"/api/plays/{number}/steps", json=body)
            assert step.status_code == 200, step.text
            board = step.json()["board"]
        assert self.call("POST", f"/api/plays/{number}/finish", json={}).status_code == 200


def test_a_postgresql_restart_under_load_answers_503_and_loses_nothing(tmp_path: Path) -> None:
    with running_cluster() as cluster:
        url = cluster.url(cluster.create_database())
        upgrade_to_head(url)
        process, base = serve(url, tmp_path)
        statuses: Counter[int] = Counter()
        players: list[Player] = []
        try:
            players += [Player(base, n, statuses, tmp_path / "outbox") for n in range(8)]
            stop = threading.Event()
            errors: list[BaseException] = []

            def loop(player: Player) -> None:
                try:
                    while not stop.is_set():
                        player.play()
                        player.call("GET", "/healthz")
                except BaseException as error:  # reported by the test below
                    errors.append(error)

            threads = [threading.Thread(target=loop, args=(p,)) for p in players]
            for thread in threads:
                thread.start()
            time.sleep(2)
            cluster.pg_ctl("stop", "-m", "immediate", "-w")
            time.sleep(2)  # requests meanwhile: connection refused
            cluster.pg_ctl("start", "-w", "-t", "60")
            time.sleep(4)  # serving again
            stop.set()
            for thread in threads:
                thread.join(timeout=120)
            assert not errors, errors
        finally:
            for player in players:
                player.http.close()
            process.terminate()
            output = process.communicate(timeout=30)[0]
        assert statuses[500] == 0, (statuses, output[-3000:])
        assert statuses[503] > 0, statuses  # the outage was seen...
        assert statuses[-1] == 0, statuses  # ...and answered, not dropped
        database = Database(url)
        try:
            # Nothing lost: each wallet is its deposit less its stakes plus its prizes, every
            # purchase the clients saw is one play, and the audit chain is whole.
            with database() as uow:
                for n, player in enumerate(players, start=1):
                    account = uow.accounts.by_email(f"outage{n - 1}@example.com")
                    assert account is not None
                    mine = uow.plays.page(account.account.id, 0, 1000)
                    assert {p.play_number for p in mine} == player.plays
                    prizes = sum(p.prize_pence for p in mine)
                    balance = uow.wallets.balance(account.account.id)
                    assert balance == 100_000 - 500 * len(mine) + prizes
            assert audit.verify_chain(database).entries > 0
        finally:
            database.dispose()
