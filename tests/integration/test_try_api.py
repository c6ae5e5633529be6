"""Try plays: free, no account, the same rules, clearly marked, never touching a wallet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import (
    assert_problem,
    balance,
    deposit,
    ledger_sums,
    play_settings,
    step_body,
)

from colour_collector.server.app import create_app
from colour_collector.server.settings import Settings
from colour_collector.service import clock
from colour_collector.store import Database


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return play_settings(database_url, tmp_path, ["£1,000,000", "£10 (£10 Prize Game)"])


def try_to_end(client: Any, try_id: str, board: dict[str, Any]) -> dict[str, Any]:
    while board["next"] is not None:
        answer = client.post(f"/api/try/{try_id}/steps", json=step_body(board["next"], "even"))
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["mode"] == "try"
        assert body["step"]["index"] == board["revealed"]
        if body["board"]["next"] is not None:
            assert body["board"]["result"] is None
        board = body["board"]
    return board


def test_try_without_an_account(client: Any) -> None:
    started = client.post("/api/try", json={})
    assert started.status_code == 201, started.text
    body = started.json()
    assert body["mode"] == "try"
    try_id, board = body["try_id"], body["board"]
    assert board["revealed"] == 0 and board["result"] is None
    assert_problem(client.post(f"/api/try/{try_id}/finish", json={}), 409, "play_not_over")
    wrong = client.post(f"/api/try/{try_id}/steps", json={"kind": "bonus_pick", "pick": "odd"})
    assert assert_problem(wrong, 409, "step_out_of_order")["expected"] == "spin"
    named = {"kind": "bonus_pick", "pick": "odd", "step": 0}
    answer = client.post(f"/api/try/{try_id}/steps", json=named)
    wrong = assert_problem(answer, 409, "step_out_of_order")
    assert (wrong["expected"], wrong["revealed"]) == ("spin", 0)

    first = client.post(f"/api/try/{try_id}/steps", json={"kind": "spin"}).json()
    again = client.post(f"/api/try/{try_id}/steps", json={"kind": "spin", "step": 0}).json()
    assert (first["repeated"], again) == (False, {**first, "repeated": True})
    reload = client.get(f"/api/try/{try_id}")
    assert reload.status_code == 200
    last = {"step": first["step"], "before": board}
    assert reload.json() == {"board": first["board"], "last": last, "mode": "try"}

    end = try_to_end(client, try_id, first["board"])
    assert end["result"]["tier"] == "£1,000,000"
    finished = client.post(f"/api/try/{try_id}/finish", json={})
    assert finished.status_code == 200, finished.text
    assert finished.json() == {"prize_pence": 100_000_000, "tier": "£1,000,000", "mode": "try"}
    assert client.post(f"/api/try/{try_id}/finish", json={}).json() == finished.json()
    assert client.get("/api/me").status_code == 401  # still nobody logged in


def test_try_never_touches_the_wallet(player: Any, app: Any) -> None:
    database: Database = app.state.database
    deposit(player, 1000)
    before, wallet = ledger_sums(database), player.get("/api/wallet").json()
    for _ in range(2):
        started = player.post("/api/try", json={}).json()
        try_to_end(player, started["try_id"], started["board"])
        assert player.post(f"/api/try/{started['try_id']}/finish", json={}).status_code == 200
    assert ledger_sums(database) == before
    assert player.get("/api/wallet").json() == wallet
    assert balance(player) == 1000
    assert player.get("/api/my-games").json()["total"] == 0
    assert_problem(player.get("/api/plays/current"), 404, "play_not_found")


@pytest.mark.parametrize(
    "try_id",
    ["x" * 20, "A" * 43, "short", "é" * 20, "../../etc/passwd", "x" * 100],
    ids=["unknown", "unknown-43", "short", "unicode", "path", "long"],
)
def test_bad_try_id_is_not_found(client: Any, try_id: str) -> None:
    for answer in (
        client.get(f"/api/try/{try_id}"),
        client.post(f"/api/try/{try_id}/steps", json={"kind": "spin"}),
        client.post(f"/api/try/{try_id}/finish", json={}),
    ):
        assert answer.status_code == 404, answer.text
        assert answer.json()["code"] in {"play_not_found", "not_found"}


def test_try_id_over_100_characters_is_invalid(client: Any) -> None:
    assert_problem(client.get(f"/api/try/{'x' * 101}"), 422, "invalid_request", "try_id")


def test_try_needs_the_csrf_header(client: Any) -> None:
    del client.headers["X-CSRF-Token"]
    assert_problem(client.post("/api/try", json={}), 403, "csrf_failed")


def test_too_many_tries_say_when_the_next_one_is_allowed(
    database_url: str, tmp_path: Path, new_client: Any
) -> None:
    shift = tmp_path / "clock"  # the server's clock runs this many seconds ahead
    app = create_app(play_settings(database_url, tmp_path, clock_file=shift, try_plays_per_hour=2))
    try:
        guest = new_client(app)
        assert guest.post("/api/try", json={}).status_code == 201
        shift.write_text(str(20 * 60), encoding="utf-8")
        assert guest.post("/api/try", json={}).status_code == 201
        shift.write_text(str(30 * 60), encoding="utf-8")
        refused = guest.post("/api/try", json={})
        assert_problem(refused, 429, "too_many_tries")
        # The first Try play leaves the hour 30 minutes (less the test's own run time) from now.
        assert 30 * 60 - 10 <= int(refused.headers["Retry-After"]) <= 30 * 60
        shift.write_text(str(60 * 60 + 1), encoding="utf-8")
        assert guest.post("/api/try", json={}).status_code == 201
    finally:
        app.state.database.dispose()
        clock.use(clock.system_time)  # the next test reads the real time again


def test_a_player_on_a_break_is_refused_a_try_while_logged_in(player: Any) -> None:
    """The lobby hides Try during a break; the API refuses it too, to the player logged in. A
    Try needs no account, so the same browser logged out may still start one."""
    assert player.post("/api/try", json={}).status_code == 201
    taken = player.post("/api/protection/time-out", json={"days": 1, "confirm": True})
    assert taken.status_code == 201, taken.text
    refused = assert_problem(player.post("/api/try", json={}), 403, "timed_out")
    assert refused["until"] == taken.json()["exclusion"]["ends_at"]
    assert player.post("/api/logout").status_code == 204
    assert player.post("/api/try", json={}).status_code == 201
