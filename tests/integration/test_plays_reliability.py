"""Concurrent purchases on the real database, and other players' Play Numbers.

The concurrency tests call the service functions from threads (the same code the routes call),
each thread with its own units of work, so requests really overlap on the database.
"""

from __future__ import annotations

import datetime as dt
import random
import threading
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import (
    PRICE,
    assert_problem,
    buy,
    deposit,
    ledger_sums,
    play_settings,
    running_balances_never_negative,
)

from colour_collector.game.pool import load_pool
from colour_collector.server.settings import Settings
from colour_collector.service import my_games, records, reveal, settle
from colour_collector.service import purchase as buying
from colour_collector.service.errors import InsufficientFundsError, StepOutOfOrderError
from colour_collector.service.outcomes import IndependentSource
from colour_collector.service.play_numbers import new_play_number
from colour_collector.service.purchase import PlayPolicy
from colour_collector.store import Database
from support import fund, sign_up

POLICY = PlayPolicy(PRICE, dt.timedelta(hours=24), IndependentSource(load_pool()))


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return play_settings(database_url, tmp_path, [None, None])


@pytest.fixture
def database(database_url: str) -> Any:
    db = Database(database_url, pool_size=20)
    yield db
    db.dispose()


def new_player(database: Database, name: str, pence: int) -> tuple[int, str]:
    """A player with ``pence`` in the wallet: the account id and a session token."""
    account, token = sign_up(database, f"{name}@example.com")
    if pence:
        fund(database, token, pence)
    return account.id, token


def run_together(workers: int, job: Callable[[int], Any]) -> list[Any]:
    """Run ``job(i)`` on ``workers`` threads released at the same moment."""
    start = threading.Barrier(workers)

    def go(i: int) -> Any:
        start.wait()
        return job(i)

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(go, range(workers)))


def test_twenty_parallel_purchases_with_one_key(database: Database) -> None:
    account, token = new_player(database, "idem", 10 * PRICE)
    rng = random.SystemRandom()
    answers = run_together(
        20,
        lambda _: buying.purchase(
            database, token, POLICY, confirm=True, idempotency_key="same-key", rng=rng
        ),
    )
    assert sum(answer.created for answer in answers) == 1
    assert {answer.play.play_number for answer in answers} == {answers[0].play.play_number}
    assert not any(answer.resumed for answer in answers)
    assert {answer.balance_pence for answer in answers} == {9 * PRICE}
    sums = ledger_sums(database)
    assert sums["plays"] == 1
    assert sums["stake"] == -PRICE
    with database() as uow:
        assert uow.wallets.balance(account) == 9 * PRICE


STEP_OF = {"MainSpin": "spin", "BonusRound": "bonus_pick", "PrizeSpin": "prize_spin"}


def play_until_broke(database: Database, token: str, rng: random.Random) -> Counter[str]:
    """Buy (or resume), reveal everything and finish until the money runs out.

    Several threads run this for the same player at once, so each step may race with another
    thread's: a conflict answer is normal, anything else fails the test.
    """
    seen: Counter[str] = Counter()
    for _ in range(200):
        try:
            bought = buying.purchase(
                database, token, POLICY, confirm=True, idempotency_key=uuid.uuid4().hex, rng=rng
            )
        except InsufficientFundsError:
            seen["broke"] += 1
            return seen
        seen["bought" if bought.created else "resumed"] += 1
        number = bought.play.play_number
        while True:
            current = my_games.get_play(database, token, number)
            if current.status.value != "in_progress" or current.revealed == current.steps:
                break
            kind = type(records.decode(current.record).steps[current.revealed]).__name__
            try:
                reveal.reveal(
                    database,
                    token,
                    number,
                    STEP_OF[kind],
                    "even" if kind == "BonusRound" else None,
                    rng=rng,
                    step=current.revealed,
                )
            except StepOutOfOrderError:
                seen["conflict"] += 1
        settle.finish(database, token, number)
    return seen


def test_parallel_purchases_never_overdraw(database: Database) -> None:
    players = [
        (*new_player(database, f"p{i}", pence), pence)
        for i, pence in enumerate([PRICE - 1, PRICE, 2 * PRICE + 250, 3 * PRICE])
    ]
    rng = random.SystemRandom()
    threads = [player for player in players for _ in range(3)]
    outcomes = run_together(len(threads), lambda i: play_until_broke(database, threads[i][1], rng))
    assert all(seen["broke"] == 1 for seen in outcomes)

    assert running_balances_never_negative(database)
    sums = ledger_sums(database)
    deposits = sum(pence for _, _, pence in players)
    assert sums["deposit"] == deposits
    assert -sums["stake"] == PRICE * sums["plays"]
    assert sums["plays"] == sum(seen["bought"] for seen in outcomes)
    with database() as uow:
        balances = {account: uow.wallets.balance(account) for account, _, _ in players}
        for account, _, pence in players:
            # every play: a lucky player can play on for more than a page of plays
            mine = uow.plays.page(account, 0, uow.plays.count(account) + 1)
            assert all(p.status.value == "finished" for p in mine)
            prizes = sum(p.prize_pence for p in mine)
            assert balances[account] == pence - PRICE * len(mine) + prizes
            assert 0 <= balances[account] < PRICE  # stopped only when broke
            if mine:  # the newest play's balance after is the final balance
                assert mine[0].balance_after_pence == balances[account]
    assert sum(balances.values()) == sums["deposit"] + sums["stake"] + sums.get("prize", 0)


@pytest.fixture
def two_players(app: Any, new_client: Any) -> tuple[Any, Any]:
    with new_client(app) as owner, new_client(app) as other:
        owner.sign_up("owner@example.com")
        other.sign_up("other@example.com")
        deposit(owner, 2000)
        deposit(other, 2000)
        yield owner, other


def test_other_players_play_is_not_found_everywhere(two_players: tuple[Any, Any]) -> None:
    owner, other = two_players
    bought = buy(owner).json()
    number = bought["play"]["play_number"]
    own = buy(other).json()["play"]["play_number"]

    for candidate in (number, number.lower(), f"  {number} "):
        asks = [
            other.get(f"/api/plays/{candidate}"),
            other.post(f"/api/plays/{candidate}/steps", json={"kind": "spin"}),
            other.post(f"/api/plays/{candidate}/finish", json={}),
            other.get(f"/api/my-games/{candidate}"),
        ]
        missing = new_play_number()
        same_asks = [
            other.get(f"/api/plays/{missing}"),
            other.post(f"/api/plays/{missing}/steps", json={"kind": "spin"}),
            other.post(f"/api/plays/{missing}/finish", json={}),
            other.get(f"/api/my-games/{missing}"),
        ]
        for answer, unknown in zip(asks, same_asks, strict=True):
            body = assert_problem(answer, 404, "play_not_found")
            # The same answer as for a Play Number nobody has: nothing tells them apart.
            expected = unknown.json()
            expected["detail"] = expected["detail"].replace(missing, candidate)
            assert body == expected
    # Nothing moved: the owner's play is where it was, the other's own play is untouched.
    assert owner.get(f"/api/plays/{number}").json()["board"] == bought["board"]
    assert other.get(f"/api/plays/{own}").json()["play"]["revealed"] == 0
    assert other.get("/api/my-games").json()["total"] == 1
    # The owner does see it, in any case and with spaces.
    assert owner.get(f"/api/my-games/{number.lower()}").status_code == 200
