"""Concurrent purchases on the real database, and other players' Play Numbers.

The concurrency tests call the service functions from threads (the same code the routes call),
each thread with its own units of work, so requests really overlap on the database.
"""

from __future__ import annotations

import datetime as dt
import random
import secrets
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
from colour_collector.service import accounts, plays, wallet
from colour_collector.service.accounts import Caller
from colour_collector.service.errors import (
    InsufficientFundsError,
    PlayNotOverError,
    StepOutOfOrderError,
)
from colour_collector.service.models import MovementKind
from colour_collector.service.outcomes import IndependentSource
from colour_collector.service.play_numbers import new_play_number
from colour_collector.service.plays import PlayPolicy
from colour_collector.store import Database, upgrade_to_head

POLICY = PlayPolicy(PRICE, dt.timedelta(hours=24), IndependentSource(load_pool()))


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return play_settings(database_url, tmp_path, [None, None])


@pytest.fixture
def database(database_url: str) -> Any:
    upgrade_to_head(database_url)
    db = Database(database_url, pool_size=10, max_overflow=20)
    yield db
    db.dispose()


def new_account(database: Database, name: str, pence: int) -> int:
    account = accounts.register(
        database,
        email=f"{name}@example.com",
        password="a long enough password",
        date_of_birth=dt.date(1980, 1, 1),
    )
    if pence:
        with database.unit_of_work() as uow:
            wallet.credit(uow, account.id, pence, MovementKind.DEPOSIT, reference="test")
            uow.commit()
    return account.id


def run_together(workers: int, job: Callable[[int], Any]) -> list[Any]:
    """Run ``job(i)`` on ``workers`` threads released at the same moment."""
    start = threading.Barrier(workers)

    def go(i: int) -> Any:
        start.wait()
        return job(i)

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(go, range(workers)))


def test_twenty_parallel_purchases_with_one_key(database: Database) -> None:
    account = new_account(database, "idem", 10 * PRICE)
    rng = random.SystemRandom()
    answers = run_together(
        20,
        lambda _: plays.purchase(
            database, account, POLICY, confirm=True, idempotency_key="same-key", rng=rng
        ),
    )
    assert sum(answer.created for answer in answers) == 1
    assert {answer.play.play_number for answer in answers} == {answers[0].play.play_number}
    assert not any(answer.resumed for answer in answers)
    assert {answer.balance_pence for answer in answers} == {9 * PRICE}
    sums = ledger_sums(database)
    assert sums["plays"] == 1
    assert sums["stake"] == -PRICE
    with database.unit_of_work(write=False) as uow:
        assert wallet.balance(uow, account) == 9 * PRICE


def play_until_broke(
    database: Database, account: int, rng: random.Random, caller: Caller | None = None
) -> Counter[str]:
    """Buy (or resume), reveal everything and finish until the money runs out.

    Several threads run this for the same player at once, so each step may race with another
    thread's: a conflict answer is normal, anything else fails the test. ``caller`` (default:
    the account id) is who buys, reveals and finishes: a session token takes the session
    look-up paths, which lock the account or the play in the same statement.
    """
    who: Caller = account if caller is None else caller
    seen: Counter[str] = Counter()
    for _ in range(200):
        try:
            bought = plays.purchase(
                database, who, POLICY, confirm=True, idempotency_key=uuid.uuid4().hex, rng=rng
            )
        except InsufficientFundsError:
            seen["broke"] += 1
            return seen
        seen["bought" if bought.created else "resumed"] += 1
        play = bought.play
        while True:
            current = plays.get_play(database, account, play.play_number)
            if current.status.value != "in_progress" or current.revealed == current.steps:
                break
            record = plays.record_of(current)
            kind = type(record.steps[current.revealed]).__name__
            step = {"MainSpin": "spin", "BonusRound": "bonus_pick", "PrizeSpin": "prize_spin"}
            try:
                plays.reveal(
                    database,
                    who,
                    play.play_number,
                    step[kind],
                    "even" if kind == "BonusRound" else None,
                    rng=rng,
                )
            except StepOutOfOrderError:
                seen["conflict"] += 1
        try:
            plays.finish(database, who, play.play_number)
        except PlayNotOverError:  # pragma: no cover - every step was revealed above
            raise
    return seen


@pytest.mark.parametrize("by_session", [False, True], ids=["account", "session"])
def test_parallel_purchases_never_overdraw(database: Database, by_session: bool) -> None:
    deposits = {
        new_account(database, f"p{i}", pence): pence
        for i, pence in enumerate([PRICE - 1, PRICE, 2 * PRICE + 250, 3 * PRICE])
    }
    rng = random.SystemRandom()
    callers: dict[int, Caller] = {account: account for account in deposits}
    if by_session:
        now = dt.datetime.now(dt.UTC)
        with database.unit_of_work() as uow:
            for account in deposits:
                token = secrets.token_urlsafe(24)
                uow.sessions.add(
                    token_hash=accounts.hash_token(token), account_id=account, created_at=now,
                    expires_at=now + dt.timedelta(hours=1),
                )  # fmt: skip
                callers[account] = accounts.SessionToken(token)
            uow.commit()
    owners = [account for account in deposits for _ in range(3)]
    outcomes = run_together(
        len(owners), lambda i: play_until_broke(database, owners[i], rng, callers[owners[i]])
    )
    assert all(seen["broke"] == 1 for seen in outcomes)

    assert running_balances_never_negative(database)
    sums = ledger_sums(database)
    assert sums["deposit"] == sum(deposits.values())
    assert -sums["stake"] == PRICE * sums["plays"]
    assert sums["plays"] == sum(seen["bought"] for seen in outcomes)
    with database.unit_of_work(write=False) as uow:
        balances = {account: wallet.balance(uow, account) for account in deposits}
        for account, pence in deposits.items():
            mine = uow.plays.page(account, 0, 100)
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
