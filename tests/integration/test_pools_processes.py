"""Two server processes (PostgreSQL) sell two small pools at once: every position is dealt
exactly once, each sold play is the pool's play at its position, the second pool goes on sale
when the first sells out, and at exhaustion each pool's tier counts are its table's exactly."""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import select

import support
from colour_collector.game import codec
from colour_collector.game.pool_deal import categories, play_at
from colour_collector.game.prize_table import load_tiers
from colour_collector.service import pool_views, pools
from colour_collector.store import Database
from colour_collector.store.tables import plays
from pool_support import expected_outcomes, small_pool
from support import PASSWORD, TEST_SECRET, browser_like_client, free_port, fund, sign_up

BUYERS = 72


@pytest.fixture
def backend() -> str:
    """Several server processes share one database only on PostgreSQL."""
    return "postgresql"


def start_server(database_url: str, tmp_path: Path, port: int) -> subprocess.Popen[bytes]:
    settings = {
        "COLOUR_COLLECTOR_DATABASE_URL": database_url,
        "COLOUR_COLLECTOR_DRAW_MODE": "pool",
        "COLOUR_COLLECTOR_PASSWORD_HASH_TIME_COST": "1",
        "COLOUR_COLLECTOR_PASSWORD_HASH_MEMORY_KIB": "8",
        "COLOUR_COLLECTOR_PASSWORD_HASH_PARALLELISM": "1",
        # Two processes on one small cluster: 4 connections each, as many as threads use them.
        "COLOUR_COLLECTOR_DATABASE_POOL_SIZE": "4",
        "COLOUR_COLLECTOR_REQUEST_THREADS": "2",
        "COLOUR_COLLECTOR_PURCHASE_THREADS": "2",
    }
    return support.start_server(tmp_path, port, settings, "--no-access-log")


def purchase(port: int, email: str) -> int:
    """Log in on the server at ``port`` and buy one play; the HTTP status."""
    client = browser_like_client(f"http://127.0.0.1:{port}", timeout=60)
    try:
        assert client.post("/api/login", json={"email": email, "password": PASSWORD}).is_success
        return int(client.post("/api/plays", json={"confirm": True}).status_code)
    finally:
        client.close()


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    """The test's database, its connections closed even when the test fails."""
    opened = Database(database_url)
    yield opened
    opened.dispose()


@pytest.mark.slow
@pytest.mark.postgres
def test_two_server_processes_deal_every_position_exactly_once(
    database: Database, database_url: str, tmp_path: Path
) -> None:
    first, second = (
        small_pool(40, {"£5": 7, "£10 (£10 Prize Game)": 2, "£1,000,000": 1}),
        small_pool(25, {"£7": 3, "£2,000": 1}),
    )
    key = pools.seal_key(TEST_SECRET)
    for pool in (first, second):
        pools.load(database, pool, key, published_only=False)
    emails = []
    for n in range(BUYERS):
        _, token = sign_up(database, f"buyer{n}@example.com")
        fund(database, token, 500)
        emails.append(f"buyer{n}@example.com")
    ports = [free_port(), free_port()]
    servers = [start_server(database_url, tmp_path, port) for port in ports]
    try:
        with ThreadPoolExecutor(8) as buyers:
            statuses = list(
                buyers.map(
                    lambda n: (ports[n % 2], purchase(ports[n % 2], emails[n])), range(BUYERS)
                )
            )
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
    for port in ports:
        assert "Traceback" not in (tmp_path / f"server-{port}.log").read_text()
    assert Counter(status for _, status in statuses) == {201: 65, 503: BUYERS - 65}
    assert {port for port, status in statuses if status == 201} == set(ports)

    with database.engine.connect() as connection:
        sold = connection.execute(
            select(plays.c.pool_id, plays.c.pool_position, plays.c.tier_index, plays.c.record)
        ).all()
    tiers = load_tiers()
    for pool_id, pool in ((1, first), (2, second)):
        mine = sorted(
            (row for row in sold if row.pool_id == pool_id), key=lambda r: r.pool_position
        )
        assert [row.pool_position for row in mine] == list(range(pool.parameters.size))
        dealt = Counter(None if r.tier_index is None else tiers[r.tier_index].name for r in mine)
        assert dealt == expected_outcomes(pool)
        order = categories(pool.secret, pool.parameters, 0, pool.parameters.size)
        for row in mine:
            expected = play_at(pool.secret, row.pool_position, order[row.pool_position])
            assert row.record == codec.dumps(expected)
    assert [v.status.value for v in pool_views.newest(database, None)] == ["sold_out", "sold_out"]
