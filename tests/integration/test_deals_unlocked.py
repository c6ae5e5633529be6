"""No lock is held while a play is generated, on SQLite and on PostgreSQL.

A rare prize's play takes most of a second to build. A purchase used to build it inside its
transaction, so on SQLite every other request that opens a unit of work waited on the one write
lock that long (a lab timed a ``/healthz`` at 3 to 7 ms after a purchase that won nothing or £5,
and at 0.4 to 1.5 s after a £250 to £1,000,000 one), and on PostgreSQL other buyers waited on the
pool's row: anyone could tell a big prize had just been bought. Here each generation, made to run
through a probe, checks from a connection of its own that the database's write lock (SQLite), or
the buyer's account, the pools and the sales switch (PostgreSQL), can be taken at once."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy
from sqlalchemy.exc import OperationalError

from colour_collector.game.generator import generate
from colour_collector.game.pool import load_pool
from colour_collector.game.record import PlayRecord
from colour_collector.service import pools, try_plays, wallet
from colour_collector.service import purchase as buying
from colour_collector.service.outcomes import IndependentSource, PoolSource, ScriptedSource
from colour_collector.service.purchase import PlayPolicy
from colour_collector.store import Database
from colour_collector.store.sales import SWITCH_LOCK
from pool_support import small_pool
from support import sign_up

KEY = pools.seal_key("the server's secret key, for these tests")
NOW = dt.datetime(2026, 12, 7, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


def free(database_url: str, account_id: int) -> bool:
    """Whether another connection could write now: take SQLite's write lock, or lock the
    account, every pool row and the sales switch on PostgreSQL, without waiting."""
    if database_url.startswith("sqlite"):
        connection = sqlite3.connect(database_url.removeprefix("sqlite:///"), timeout=0)
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.rollback()
            return True
        except sqlite3.OperationalError:
            return False
        finally:
            connection.close()
    engine = sqlalchemy.create_engine(database_url, poolclass=sqlalchemy.NullPool)
    try:
        with engine.begin() as connection:
            lock = " FOR UPDATE NOWAIT"
            connection.execute(
                sqlalchemy.text("SELECT id FROM accounts WHERE id = :id" + lock), {"id": account_id}
            )
            connection.execute(sqlalchemy.text("SELECT id FROM pools" + lock))
            # the sales switch's advisory lock, which a purchase takes shared (store/sales.py)
            switch = sqlalchemy.text("SELECT pg_try_advisory_xact_lock(:key)")
            return bool(connection.execute(switch, {"key": SWITCH_LOCK}).scalar_one())
    except OperationalError:
        return False
    finally:
        engine.dispose()


def probe(
    monkeypatch: pytest.MonkeyPatch, module: Any, database_url: str, account_id: int
) -> list[bool]:
    """Make ``module.generate`` note whether the database was free each time it ran."""
    seen: list[bool] = []

    def generating(*args: Any) -> PlayRecord:
        seen.append(free(database_url, account_id))
        return generate(*args)

    monkeypatch.setattr(module, "generate", generating)
    return seen


def funded(database: Database) -> tuple[int, str]:
    account, token = sign_up(database)
    wallet.test_deposit(database, token, 2000, enabled=True, now=NOW)
    return account.id, token


def test_a_scripted_purchase_and_a_try_hold_no_lock_while_generated(
    database: Database, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    account_id, token = funded(database)
    source = ScriptedSource(["£1,000,000"], IndependentSource(load_pool()))
    policy = PlayPolicy(500, dt.timedelta(hours=24), source)
    seen = probe(monkeypatch, buying, database_url, account_id)
    bought = buying.purchase(
        database, token, policy, confirm=True, idempotency_key=None, rng=random.Random(1), now=NOW
    )
    assert bought.created and bought.play.prize_pence == 100_000_000
    assert seen == [True]
    tried = probe(monkeypatch, try_plays, database_url, account_id)
    try_source = ScriptedSource(["£750"], IndependentSource(load_pool()))
    _, play = try_plays.start(
        database, try_source, random.Random(2), client="c", per_hour=5, now=NOW
    )
    assert play.prize_pence == 75_000
    assert tried == [True]


def test_a_purchase_from_a_pool_holds_no_lock_while_generated(
    database: Database, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pool = small_pool()
    pools.load(database, pool, KEY, published_only=False, now=NOW)
    account_id, token = funded(database)
    policy = PlayPolicy(
        500, dt.timedelta(hours=24), PoolSource(pools.Sale(KEY, published_only=False))
    )
    seen = probe(monkeypatch, buying, database_url, account_id)
    bought = buying.purchase(
        database, token, policy, confirm=True, idempotency_key=None, rng=random.Random(1), now=NOW
    )
    assert bought.created and bought.play.pool_position == 0
    assert seen == [True]
