"""A purchase's answer time tells nothing of its prize: building a play takes from 0.1 ms (no
win) to about 650 ms (the slowest rare tiers), so the server answers no purchase sooner than
``PURCHASE_ANSWER_FLOOR_MS`` after it starts (found by a lab's review: the top prize's purchases
took 23 to 41 ms, the others 3 to 5 ms). These are lower bounds the server guarantees by waiting,
not speed measurements."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import buy, deposit, play_settings

from colour_collector.game.generator import generate
from colour_collector.game.record import PlayRecord
from colour_collector.server.settings import Settings
from colour_collector.service import accounts
from colour_collector.service import purchase as buying

FLOOR_MS = 200


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    # The top prize between two plays that win nothing.
    return play_settings(
        database_url, tmp_path, [None, "£1,000,000", None], purchase_answer_floor_ms=FLOOR_MS
    )


def test_no_purchase_is_answered_before_the_floor(app: Any, player: Any) -> None:
    deposit(player, 1500)
    prizes = []
    for _ in range(3):
        started = time.monotonic()
        bought = buy(player)
        took = time.monotonic() - started
        assert bought.status_code == 201, bought.text
        assert took >= FLOOR_MS / 1000, took
        number = bought.json()["play"]["play_number"]
        board = bought.json()["board"]
        while board["next"] is not None:  # reveal it all, then finish, to buy the next
            kind = board["next"]
            body = {"kind": kind, "step": board["revealed"]} | (
                {"pick": "odd"} if kind == "bonus_pick" else {}
            )
            board = player.post(f"/api/plays/{number}/steps", json=body).json()["board"]
        prizes.append(player.post(f"/api/plays/{number}/finish", json={}).json()["prize_pence"])
    assert prizes == [0, 100_000_000, 0]  # the floor held for the top prize and for no win
    # A repeat of the same purchase (an Idempotency-Key retried) waits as long.
    started = time.monotonic()
    again = player.post("/api/plays", json={"confirm": True}, headers={"Idempotency-Key": "k"})
    first_took = time.monotonic() - started
    started = time.monotonic()
    repeat = player.post("/api/plays", json={"confirm": True}, headers={"Idempotency-Key": "k"})
    assert repeat.json()["play"] == again.json()["play"]
    assert min(first_took, time.monotonic() - started) >= FLOOR_MS / 1000


def test_a_refusal_after_the_play_was_built_waits_for_the_floor_too(
    app: Any, player: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A logout racing a purchase refuses it after it built the play it expected, and that play
    is still the next one (a review's finding): answered at once, the refusal's time told the
    next play's prize. Every answer of a purchase waits for the floor."""
    deposit(player, 500)
    token = player.cookies["cc_session"]

    def generating_then_logged_out(*args: Any) -> PlayRecord:
        record = generate(*args)
        accounts.logout(app.state.database, token)
        return record

    monkeypatch.setattr(buying, "generate", generating_then_logged_out)
    started = time.monotonic()
    refused = buy(player)
    took = time.monotonic() - started
    assert refused.status_code == 401, refused.text
    assert took >= FLOOR_MS / 1000, took
    assert player.get("/api/wallet").status_code == 401
