"""Server fixes from the certification review, each pinned by a test (both databases)."""

from __future__ import annotations

import datetime as dt
import logging
import random
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update

from colour_collector.game.pool import POOL_SIZE
from colour_collector.server.app import create_app
from colour_collector.service import settle
from colour_collector.store.tables import plays as plays_table
from colour_collector.store.tables import prize_pool
from support import make_settings


def _app(database_url: str, tmp_path: Path, **overrides: Any) -> Any:
    return create_app(make_settings(database_url, tmp_path, **overrides))


def test_try_plays_are_limited_per_address(
    database_url: str, tmp_path: Path, new_client: Any
) -> None:
    app = _app(database_url, tmp_path, try_plays_per_hour=2)
    guest = new_client(app)
    assert guest.post("/api/try", json={}).status_code == 201
    assert guest.post("/api/try", json={}).status_code == 201
    refused = guest.post("/api/try", json={})
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_tries"
    assert int(refused.headers["Retry-After"]) > 0
    app.state.database.dispose()


def test_the_finite_pool_is_stored_whole_when_the_server_starts(
    database_url: str, tmp_path: Path, new_client: Any
) -> None:
    app = _app(database_url, tmp_path, draw_mode="pool")
    database = app.state.database
    with database.engine.connect() as connection:
        row = connection.execute(select(prize_pool)).one()
    assert row.dealt == 0
    assert sum(int(n) for n in row.remaining.strip("[]").split(",")) == POOL_SIZE
    # A second server process on the same database keeps the stored pool.
    again = _app(database_url, tmp_path, draw_mode="pool")
    player = new_client(again)
    player.sign_up("pool@example.com")
    player.post("/api/wallet/test-deposit", json={"amount_pence": 500})
    assert player.post("/api/plays", json={"confirm": True}).status_code == 201
    with database.engine.connect() as connection:
        assert connection.execute(select(prize_pool.c.dealt)).scalar_one() == 1
    again.state.database.dispose()
    database.dispose()


def test_one_broken_play_does_not_stop_auto_finish(
    database_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture, new_client: Any
) -> None:
    app = _app(database_url, tmp_path)
    numbers = []
    for name in ("first@example.com", "second@example.com"):
        player = new_client(app)
        player.sign_up(name)
        player.post("/api/wallet/test-deposit", json={"amount_pence": 500})
        numbers.append(
            player.post("/api/plays", json={"confirm": True}).json()["play"]["play_number"]
        )
    database = app.state.database
    with database.engine.begin() as connection:
        connection.execute(
            update(plays_table)
            .where(plays_table.c.play_number == numbers[0])
            .values(record='{"format": "not a play"}')
        )
    later = dt.datetime.now(dt.UTC) + dt.timedelta(days=2)
    with caplog.at_level(logging.ERROR):
        done = settle.auto_finish_due(database, random.Random(1), now=later)
    assert done == [numbers[1]]
    assert numbers[0] in caplog.text
    database.dispose()
