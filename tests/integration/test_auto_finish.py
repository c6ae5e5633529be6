"""Plays left unfinished are completed by the server after ``auto_finish_delay``, once."""

from __future__ import annotations

import datetime as dt
import random
import time
from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import (
    PRICE,
    audit_entries,
    balance,
    buy,
    deposit,
    ledger_sums,
    play_settings,
    step_body,
)

from colour_collector.server.settings import Settings
from colour_collector.service import audit, settle
from colour_collector.service.clock import utcnow
from colour_collector.store import Database

JACKPOT = 100_000_000


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return play_settings(database_url, tmp_path, ["£1,000,000", None])


def test_due_play_is_auto_finished_once(player: Any, app: Any) -> None:
    database: Database = app.state.database
    deposit(player, 1000)
    bought = buy(player).json()
    number = bought["play"]["play_number"]
    board = bought["board"]
    for _ in range(2):
        answer = player.post(f"/api/plays/{number}/steps", json=step_body(board["next"]))
        board = answer.json()["board"]
    assert board["revealed"] == 2

    rng = random.Random(7)
    assert settle.auto_finish_due(database, rng, now=utcnow()) == []  # not due yet
    assert player.get(f"/api/plays/{number}").json()["play"]["status"] == "in_progress"

    later = utcnow() + dt.timedelta(hours=24, seconds=1)
    assert settle.auto_finish_due(database, rng, now=later) == [number]
    view = player.get(f"/api/plays/{number}").json()
    assert view["play"]["status"] == "auto_finished"
    assert view["play"]["prize_pence"] == JACKPOT
    assert view["board"]["next"] is None
    assert view["board"]["result"]["prize_pence"] == JACKPOT
    assert balance(player) == 1000 - PRICE + JACKPOT
    recall = player.get(f"/api/my-games/{number}").json()
    assert recall["balance_after_pence"] == 1000 - PRICE + JACKPOT
    for recalled in recall["steps"]:  # the server made the remaining picks
        if recalled["step"]["kind"] == "bonus_pick":
            assert recalled["step"]["pick"] in {"odd", "even"}
            assert isinstance(recalled["step"]["number"], int)

    # A second round, a FINISH and a step change nothing.
    sums = ledger_sums(database)
    assert settle.auto_finish_due(database, rng, now=later + dt.timedelta(days=1)) == []
    finished = player.post(f"/api/plays/{number}/finish", json={})
    assert finished.status_code == 200
    assert finished.json()["play"]["status"] == "auto_finished"
    assert finished.json()["prize_pence"] == JACKPOT
    assert player.post(f"/api/plays/{number}/steps", json={"kind": "spin"}).status_code == 409
    assert ledger_sums(database) == sums
    assert sums["prize"] == JACKPOT

    kinds = [(kind, p.get("play_number")) for kind, p in audit_entries(database)]
    assert kinds.count(("auto_finish", number)) == 1
    assert ("finish", number) not in kinds
    assert audit.verify_chain(database).entries == len(kinds)
    # A purchase now buys a new play instead of resuming.
    assert buy(player).status_code == 201


@pytest.fixture
def quick_settings(database_url: str, tmp_path: Path) -> Settings:
    return play_settings(
        database_url,
        tmp_path,
        [None],
        auto_finish_delay=dt.timedelta(0),
        auto_finish_interval=dt.timedelta(seconds=0.2),
    )


def test_background_task_auto_finishes(quick_settings: Settings, new_client: Any) -> None:
    from colour_collector.server.app import create_app

    app = create_app(quick_settings)
    try:
        with new_client(app) as client:  # runs the lifespan, so the auto-finisher
            client.sign_up()
            deposit(client, PRICE)
            number = buy(client).json()["play"]["play_number"]
            status = "in_progress"
            deadline = time.monotonic() + 30
            while status == "in_progress" and time.monotonic() < deadline:
                time.sleep(0.05)
                status = client.get(f"/api/plays/{number}").json()["play"]["status"]
            assert status == "auto_finished"
            assert balance(client) == 0
    finally:
        app.state.database.dispose()
