"""The pools repository on SQLite and on PostgreSQL: what ``service.ports.Pools`` promises, the
lock a dealer takes on the pool on sale, and each position sold at most once."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest

from colour_collector.service.errors import DuplicatePlayError, DuplicatePoolError
from colour_collector.service.play_models import PlayStatus, StoredPlay
from colour_collector.service.pool_models import StoredPool
from colour_collector.store import Database
from support import sign_up

WHEN = dt.datetime(2026, 12, 15, 10, 0, 0, 123456, tzinfo=dt.UTC)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


def a_pool(commitment: str, size: int = 10) -> StoredPool:
    return StoredPool(
        id=0,
        commitment=commitment,
        parameters=f'{{"size": {size}}}',
        size=size,
        sealed_secret="ab" * 32,
        secret=None,
        remaining=(3, *(0,) * 98, size - 3),
        dealt=0,
        loaded_at=WHEN,
        started_at=None,
        sold_out_at=None,
        closed_at=None,
    )


def test_pools_are_stored_found_and_saved(database: Database) -> None:
    with database() as uow:
        first = uow.pools.add(a_pool("1" * 64))
        second = uow.pools.add(a_pool("2" * 64, size=20))
        uow.commit()
    assert 0 < first.id < second.id
    with database() as uow:
        assert uow.pools.get(first.id) == first
        assert uow.pools.get_for_update(second.id) == second
        assert uow.pools.by_commitment("2" * 64) == second
        assert uow.pools.by_commitment("3" * 64) is None
        assert uow.pools.get(second.id + 1) is None
        assert uow.pools.on_sale() == first
        assert uow.pools.unsold() == [first, second]  # in the order they go on sale
        assert uow.pools.newest(10) == [second, first]
        assert uow.pools.newest(1) == [second]
        sold = replace(
            first,
            remaining=(0,) * 100,
            dealt=10,
            started_at=WHEN,
            sold_out_at=WHEN + dt.timedelta(hours=1),
        )
        uow.pools.save(sold)
        uow.commit()
    with database() as uow:
        assert uow.pools.get(first.id) == sold
        assert uow.pools.on_sale_for_update() == second  # the next pool goes on sale
        assert uow.pools.unsold() == [second]  # the first is sold out
        closed = replace(second, secret="cd" * 32, closed_at=WHEN)
        uow.pools.save(closed)
        uow.commit()
    with database() as uow:
        assert uow.pools.on_sale() is None
        assert uow.pools.on_sale_for_update() is None
        assert uow.pools.unsold() == []
        assert uow.pools.get(second.id) == closed
    with database() as uow, pytest.raises(DuplicatePoolError):
        uow.pools.add(a_pool("1" * 64))


def test_checkpoints_are_found_at_or_before_a_position(database: Database) -> None:
    with database() as uow:
        pool = uow.pools.add(a_pool("1" * 64))
        assert uow.pools.checkpoint(pool.id, 5) is None
        uow.pools.add_checkpoints(pool.id, [(0, (3, 7)), (4, (2, 4)), (8, (1, 1))])
        uow.commit()
    with database() as uow:
        assert uow.pools.checkpoint(pool.id, 0) == (0, (3, 7))
        assert uow.pools.checkpoint(pool.id, 7) == (4, (2, 4))
        assert uow.pools.checkpoint(pool.id, 9) == (8, (1, 1))
        assert uow.pools.checkpoint(pool.id + 1, 9) is None


def a_play(account_id: int, number: str, pool_id: int | None, position: int | None) -> StoredPlay:
    return StoredPlay(
        id=0, play_number=number, account_id=account_id, status=PlayStatus.IN_PROGRESS,
        record="{}", revealed=0, steps=7, tier_index=None, prize_pence=0, price_pence=500,
        idempotency_key=None, balance_before_pence=500, balance_after_pence=None,
        purchased_at=WHEN, finish_by=WHEN, finished_at=None, pool_id=pool_id,
        pool_position=position,
    )  # fmt: skip


def test_a_position_of_a_pool_is_sold_at_most_once(database: Database) -> None:
    account = sign_up(database, "p@example.com")[0].id
    with database() as uow:
        pool = uow.pools.add(a_pool("1" * 64))
        stored = uow.plays.add(a_play(account, "CC-0000-0001-1", pool.id, 0))
        uow.plays.add(a_play(account, "CC-0000-0002-2", None, None))
        uow.plays.add(a_play(account, "CC-0000-0003-3", None, None))  # independent draws
        uow.commit()
    with database() as uow:
        assert uow.plays.get(stored.play_number) == stored
        assert (stored.pool_id, stored.pool_position) == (pool.id, 0)
    with database() as uow, pytest.raises(DuplicatePlayError):
        uow.plays.add(a_play(account, "CC-0000-0004-4", pool.id, 0))


def test_the_plays_of_a_pool_are_read_by_position_and_unfinished_plays_counted(
    database: Database,
) -> None:
    account = sign_up(database, "p@example.com")[0].id
    with database() as uow:
        first, second = uow.pools.add(a_pool("1" * 64)), uow.pools.add(a_pool("2" * 64))
        plays = [  # (number, pool, position, tier, prize, finished)
            ("CC-0000-0001-1", first.id, 2, 7, 20_000, False),
            ("CC-0000-0002-2", first.id, 0, None, 0, False),
            ("CC-0000-0003-3", first.id, 1, 7, 20_000, True),
            ("CC-0000-0004-4", second.id, 0, 7, 20_000, False),
            ("CC-0000-0005-5", first.id, 3, 9, 50_000, False),
            ("CC-0000-0006-6", None, None, 7, 20_000, False),  # an independent draw
        ]
        for number, pool_id, position, tier, prize, finished in plays:
            play = replace(
                a_play(account, number, pool_id, position), tier_index=tier, prize_pence=prize
            )
            uow.plays.add(replace(play, status=PlayStatus.FINISHED) if finished else play)
        uow.commit()
    with database() as uow:
        sold = uow.plays.sold_from(first.id, -1, 10)
        assert [(s.position, s.play_number, s.tier_index, s.prize_pence) for s in sold] == [
            (0, "CC-0000-0002-2", None, 0),
            (1, "CC-0000-0003-3", 7, 20_000),
            (2, "CC-0000-0001-1", 7, 20_000),
            (3, "CC-0000-0005-5", 9, 50_000),
        ]
        assert [s.position for s in uow.plays.sold_from(first.id, 0, 2)] == [1, 2]
        assert uow.plays.sold_from(first.id, 3, 10) == []
        assert uow.plays.unfinished_plays() == {
            (first.id, None): 1,
            (first.id, 7): 1,
            (first.id, 9): 1,
            (second.id, 7): 1,
        }
        assert uow.plays.unfinished_in_pool(first.id) == (3, WHEN)  # every finish_by is WHEN
        assert uow.plays.unfinished_in_pool(second.id + 1) == (0, None)
        assert (uow.plays.count_in_pool(first.id), uow.plays.count_in_pool(second.id)) == (4, 1)


def test_a_dealer_waits_for_the_one_before_and_sees_what_it_dealt(database: Database) -> None:
    with database() as uow:
        uow.pools.add(a_pool("1" * 64, size=1))
        uow.pools.add(a_pool("2" * 64, size=5))
        uow.commit()
    seen: list[StoredPool | None] = []
    locked = threading.Event()

    def second_dealer() -> None:
        locked.wait()
        with database() as uow:
            seen.append(uow.pools.on_sale_for_update())

    thread = threading.Thread(target=second_dealer)
    thread.start()
    with database() as uow:
        first = uow.pools.on_sale_for_update()
        assert first is not None and first.size == 1
        locked.set()
        time.sleep(0.3)
        assert seen == []  # it waits: for the row (PostgreSQL), for the connection (SQLite)
        uow.pools.save(replace(first, dealt=1, remaining=(0,) * 100, sold_out_at=WHEN))
        uow.commit()
    thread.join(10)
    # It waited, then found the first pool sold out and took the next one.
    assert len(seen) == 1 and seen[0] is not None and seen[0].size == 5
