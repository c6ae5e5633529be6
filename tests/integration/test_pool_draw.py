"""The finite pool (``draw_mode=pool``): shared by threads and processes, each entry dealt once,
then sold out with nothing debited."""

from __future__ import annotations

import datetime as dt
import os
import random
import subprocess
import sys
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import PRICE, assert_problem, balance, buy, deposit, ledger_sums, play_settings

from colour_collector.game.draw import NO_WIN
from colour_collector.game.pool import load_pool
from colour_collector.game.prize_table import load_tiers
from colour_collector.server.settings import Settings
from colour_collector.service import purchase as buying
from colour_collector.service.errors import PoolExhaustedServiceError
from colour_collector.service.outcomes import FinitePoolSource
from colour_collector.service.purchase import PlayPolicy
from colour_collector.store import Database
from support import fund, sign_up


def small_pool() -> tuple[int, ...]:
    """30 entries: 8 x £5, 3 x '£10 (£10 Prize Game)', 1 x the top prize, 18 that win nothing."""
    counts = [0] * (len(load_tiers()) + 1)
    counts[0], counts[5], counts[-2], counts[-1] = 8, 3, 1, 18
    return tuple(counts)


def expected_deals(remaining: tuple[int, ...]) -> Counter[int]:
    """Outcome index -> entries (NO_WIN for the last count)."""
    found: Counter[int] = Counter()
    for position, count in enumerate(remaining):
        if count:
            found[NO_WIN if position == len(remaining) - 1 else position] = count
    return found


def store_pool(database: Database, remaining: tuple[int, ...]) -> None:
    with database() as uow:
        assert uow.pool.get_for_update() is not None  # the server stored the whole pool at start
        uow.pool.save(remaining, 6_500_000 - sum(remaining))
        uow.commit()


def stored_pool(database: Database) -> tuple[int, ...] | None:
    with database() as uow:
        return uow.pool.get_for_update()


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return play_settings(database_url, tmp_path, draw_mode="pool")


@pytest.fixture
def database(app: Any) -> Database:
    found: Database = app.state.database
    return found


def deal_until_sold_out(database: Database, source: FinitePoolSource) -> list[int]:
    rng = random.SystemRandom()
    dealt = []
    while True:
        with database() as uow:
            try:
                tier = source.draw(uow, rng)
            except PoolExhaustedServiceError:
                return dealt
            uow.commit()
        dealt.append(NO_WIN if tier is None else tier.index)


def test_threads_deal_each_entry_once_then_sold_out(player: Any, database: Database) -> None:
    assert sum(stored_pool(database) or ()) == 6_500_000
    store_pool(database, small_pool())
    source = FinitePoolSource(load_pool())
    start = threading.Barrier(6)

    def dealer(_: int) -> list[int]:
        start.wait()
        return deal_until_sold_out(database, source)

    with ThreadPoolExecutor(6) as pool:
        hands = list(pool.map(dealer, range(6)))
    assert Counter(index for hand in hands for index in hand) == expected_deals(small_pool())
    assert sum(stored_pool(database) or (1,)) == 0

    deposit(player, 1000)
    before = ledger_sums(database)
    assert_problem(buy(player), 503, "sold_out")
    assert ledger_sums(database) == before
    assert balance(player) == 1000
    assert player.get("/api/my-games").json()["total"] == 0


def test_parallel_purchases_take_exactly_the_entries_left(database: Database) -> None:
    left = [0] * (len(load_tiers()) + 1)
    left[0], left[-1] = 4, 6  # 10 plays on sale, 14 buyers
    store_pool(database, tuple(left))
    policy = PlayPolicy(PRICE, dt.timedelta(hours=24), FinitePoolSource(load_pool()))
    buyers = []
    for n in range(14):
        account, token = sign_up(database, f"b{n}@example.com")
        fund(database, token, PRICE)
        buyers.append((account.id, token))
    start = threading.Barrier(len(buyers))
    rng = random.SystemRandom()

    def purchase(buyer: tuple[int, str]) -> int | None:
        start.wait()
        try:
            done = buying.purchase(
                database, buyer[1], policy, confirm=True, idempotency_key=None, rng=rng
            )
        except PoolExhaustedServiceError:
            return None
        return NO_WIN if done.play.tier_index is None else done.play.tier_index

    with ThreadPoolExecutor(len(buyers)) as pool:
        got = list(pool.map(purchase, buyers))
    sold = [index for index in got if index is not None]
    assert Counter(sold) == expected_deals(tuple(left))
    assert got.count(None) == 4
    with database() as uow:
        balances = [uow.wallets.balance(account) for account, _ in buyers]
    assert sorted(balances) == [0] * 10 + [PRICE] * 4
    assert ledger_sums(database)["plays"] == 10


DEALER = """
import random, sys
from colour_collector.game.draw import NO_WIN
from colour_collector.game.pool import load_pool
from colour_collector.service.errors import PoolExhaustedServiceError
from colour_collector.service.outcomes import FinitePoolSource
from colour_collector.store import Database

database = Database(sys.argv[1])
source = FinitePoolSource(load_pool())
rng = random.SystemRandom()
while True:
    with database() as uow:
        try:
            tier = source.draw(uow, rng)
        except PoolExhaustedServiceError:
            break
        uow.commit()
    print(NO_WIN if tier is None else tier.index, flush=True)
database.dispose()
"""


@pytest.mark.slow
def test_two_processes_share_the_pool(database: Database, tmp_path: Path) -> None:
    store_pool(database, small_pool())
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLOUR_COLLECTOR_")}
    dealers = [
        subprocess.Popen(
            [sys.executable, "-c", DEALER, database.url],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    dealt: Counter[int] = Counter()
    for dealer in dealers:
        out, err = dealer.communicate(timeout=120)
        assert dealer.returncode == 0, err
        dealt.update(int(line) for line in out.split())
    assert dealt == expected_deals(small_pool())
    assert sum(stored_pool(database) or (1,)) == 0
