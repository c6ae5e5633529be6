"""Two purchases expect the same pool position, on SQLite and PostgreSQL: the first to take it
buys it, and the other, refused the position under the pool's lock (``DealMovedError``), starts
again, expects the next position and buys that one (decision 0151, ``service/purchase.py``).

The race is made, not waited for: the service's ``_build`` holds each purchase after it read the
position it expects, until the test lets it on, first one and then the other.
"""

from __future__ import annotations

import datetime as dt
import random
import threading
from typing import Any

import pytest

from colour_collector.game.generator import generate
from colour_collector.game.pool_deal import play_seed
from colour_collector.service import pools, wallet
from colour_collector.service import purchase as buying
from colour_collector.service.outcomes import PoolSource
from colour_collector.service.purchase import PlayPolicy
from colour_collector.store import Database
from pool_support import small_pool
from support import sign_up

KEY = pools.seal_key("the race's test key")


def test_a_purchase_that_loses_its_position_buys_the_next_one(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = Database(database_url)
    pool = small_pool()
    try:
        pools.load(database, pool, KEY, published_only=False)
        tokens = {}
        for name in ("first", "second"):
            _, tokens[name] = sign_up(database, f"{name}@example.com")
            wallet.test_deposit(database, tokens[name], 2000, enabled=True)
        policy = PlayPolicy(
            500, dt.timedelta(hours=24), PoolSource(pools.Sale(KEY, published_only=False))
        )

        gates = {name: threading.Event() for name in tokens}
        arrived = threading.Semaphore(0)
        deals: dict[str, list[Any]] = {name: [] for name in tokens}
        build = buying._build

        def held_build(deal: Any) -> Any:
            name = threading.current_thread().name
            deals[name].append(deal)
            arrived.release()
            assert gates[name].wait(30), "the test never let the purchase on"
            return build(deal)

        monkeypatch.setattr(buying, "_build", held_build)
        bought: dict[str, Any] = {}

        def buy(name: str) -> None:
            bought[name] = buying.purchase(
                database,
                tokens[name],
                policy,
                confirm=True,
                idempotency_key=None,
                rng=random.Random(7),
            )

        threads = {
            name: threading.Thread(target=buy, args=(name,), name=name, daemon=True)
            for name in tokens
        }
        for thread in threads.values():
            thread.start()
        for _ in tokens:  # both have read the position they expect, and wait to build it
            assert arrived.acquire(timeout=30), "a purchase never reached its build"
        for name in ("first", "second"):
            gates[name].set()
            threads[name].join(timeout=30)
        with database() as uow:
            stored = uow.pools.get(bought["first"].play.pool_id)
    finally:
        database.dispose()

    assert [d.position for d in deals["first"]] == [0]
    assert [d.position for d in deals["second"]] == [0, 1]  # lost position 0, started again
    assert bought["first"].play.pool_position == 0
    assert bought["second"].play.pool_position == 1
    assert stored is not None and stored.dealt == 2
    # The second's play is position 1's: the play of its seed and the tier dealt there.
    again = deals["second"][-1]
    assert again.seed == play_seed(pool.secret, 1)
    assert bought["second"].record == generate(again.tier, random.Random(again.seed))
    assert {b.balance_pence for b in bought.values()} == {1500}
