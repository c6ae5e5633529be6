"""The store's protection and console repositories on SQLite and on PostgreSQL: what the ports
promise (``service.ports``), as ``test_store_adapters.py`` checks the others."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest
from test_store_adapters import a_play

from colour_collector.service.errors import OperatorNameTakenError
from colour_collector.service.models import AccountId, MovementKind, Session
from colour_collector.service.ports import UnitOfWork
from colour_collector.service.protection_models import (
    AuditCheck,
    DepositLimit,
    Exclusion,
    ExclusionKind,
    LimitPeriod,
    OperatorRole,
    OperatorSession,
    OutcomeFigures,
    Payment,
    PaymentKind,
    ProtectionSettings,
    SalesState,
    longest_in_force,
)
from colour_collector.store import Database
from support import sign_up

WHEN = dt.datetime(2026, 12, 2, 14, 7, 15, 123456, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


def to_check(uow: UnitOfWork, account_id: int, now: dt.datetime) -> Exclusion | None:
    """The break the service finds in force from what the store reads for it."""
    return longest_in_force(uow.protection.exclusions_to_check(AccountId(account_id), now), now)


@pytest.fixture
def account_id(database: Database) -> int:
    return sign_up(database, "p@example.com")[0].id


def test_settings_and_limits_are_stored_and_removed(database: Database, account_id: int) -> None:
    with database() as uow:
        assert uow.protection.settings(account_id) == ProtectionSettings(account_id, None, 60)
        uow.protection.save_settings(ProtectionSettings(account_id, WHEN, 30))
        uow.protection.save_settings(ProtectionSettings(account_id, WHEN, 45, WHEN))
        daily = DepositLimit(account_id, LimitPeriod.DAILY, 2000, WHEN, None)
        monthly = DepositLimit(account_id, LimitPeriod.MONTHLY, None, WHEN, 9000)
        uow.protection.save_limit(monthly)
        uow.protection.save_limit(daily)
        uow.commit()
    with database() as uow:
        assert uow.protection.settings(account_id) == ProtectionSettings(account_id, WHEN, 45, WHEN)
        assert uow.protection.limits(account_id) == [daily, monthly]  # by period
        uow.protection.save_limit(DepositLimit(account_id, LimitPeriod.MONTHLY, None))
        uow.commit()
    with database() as uow:
        assert uow.protection.limits(account_id) == [daily]
        assert uow.protection.limits(account_id + 1) == []


def test_the_exclusion_in_force_is_the_one_that_ends_last(
    database: Database, account_id: int
) -> None:
    with database() as uow:
        long = uow.protection.add_exclusion(
            account_id=account_id, kind=ExclusionKind.SELF_EXCLUSION, starts_at=WHEN,
            ends_at=WHEN + 200 * DAY,
        )  # fmt: skip
        short = uow.protection.add_exclusion(
            account_id=account_id, kind=ExclusionKind.TIME_OUT, starts_at=WHEN + DAY,
            ends_at=WHEN + 2 * DAY,
        )  # fmt: skip
        uow.commit()
    with database() as uow:
        # In force from the moment it is stored, even at a time read before it was taken.
        assert to_check(uow, account_id, WHEN - DAY) == long
        assert to_check(uow, account_id, WHEN + DAY) == long
        # After its term the self-exclusion is still the one to check (it stays in force until
        # the player asks to play again), with when they asked from their settings.
        assert to_check(uow, account_id, WHEN + 300 * DAY) == long
        assert uow.protection.exclusions(account_id) == [short, long]
        asked = WHEN + 250 * DAY
        uow.protection.save_settings(ProtectionSettings(account_id, None, 60, asked))
        uow.commit()
    other = sign_up(database, "other@example.com")[0].id
    with database() as uow:
        # In force until a day after the player asked; then nothing is.
        ended = to_check(uow, account_id, asked + DAY / 2)
        assert ended == replace(long, return_asked_at=asked)
        assert to_check(uow, account_id, asked + 2 * DAY) is None
        # A time-out alone is no longer checked once it has ended.
        uow.protection.add_exclusion(
            account_id=other, kind=ExclusionKind.TIME_OUT, starts_at=WHEN, ends_at=WHEN + DAY
        )
        assert to_check(uow, other, WHEN) is not None
        assert to_check(uow, other, WHEN + DAY) is None


def test_a_time_out_after_a_self_exclusions_term_does_not_hide_it(
    database: Database, account_id: int
) -> None:
    """The running time-out ends last, but the ended self-exclusion holds until the player
    asks to play again: it is the one checked (and shown), until it lets go sooner."""
    with database() as uow:
        ended = uow.protection.add_exclusion(
            account_id=account_id, kind=ExclusionKind.SELF_EXCLUSION, starts_at=WHEN,
            ends_at=WHEN + 200 * DAY,
        )  # fmt: skip
        time_out = uow.protection.add_exclusion(
            account_id=account_id, kind=ExclusionKind.TIME_OUT, starts_at=WHEN + 201 * DAY,
            ends_at=WHEN + 204 * DAY,
        )  # fmt: skip
        uow.commit()
    with database() as uow:
        assert to_check(uow, account_id, WHEN + 202 * DAY) == ended
        asked = WHEN + 202 * DAY
        uow.protection.save_settings(ProtectionSettings(account_id, None, 60, asked))
        uow.commit()
    with database() as uow:
        # A day after the return the time-out is the break that lets go last.
        assert to_check(uow, account_id, asked + DAY / 2) == time_out
        assert to_check(uow, account_id, WHEN + 205 * DAY) is None


def test_reality_checks_belong_to_a_session_and_go_with_it(
    database: Database, account_id: int
) -> None:
    with database() as uow:
        uow.accounts.add_session(Session("s1", account_id, WHEN, WHEN + DAY))
        assert uow.protection.last_reality_check("s1") is None
        uow.protection.record_reality_check("s1", WHEN)
        uow.protection.record_reality_check("s1", WHEN + dt.timedelta(hours=1))
        uow.accounts.renew_session("s1", WHEN + 2 * DAY)
        uow.commit()
    with database() as uow:
        assert uow.protection.last_reality_check("s1") == WHEN + dt.timedelta(hours=1)
        assert uow.accounts.session("s1", WHEN + DAY) is not None  # renewed
        uow.accounts.remove_session("s1")
        uow.commit()
    with database() as uow:
        assert uow.protection.last_reality_check("s1") is None


def test_the_sales_switch_is_one_row_on_sale_at_first(database: Database) -> None:
    with database() as uow:
        assert uow.sales.state() == SalesState(on_sale=True)
        stopped = SalesState(False, WHEN, "mia", "check")
        uow.sales.save(stopped)
        uow.commit()
    with database() as uow:
        assert uow.sales.state_for_update() == stopped


def test_a_stop_of_sales_waits_for_the_purchases_that_found_them_on(database: Database) -> None:
    # A purchase that read the switch on sale is committed before the stop that came meanwhile
    # (on PostgreSQL the stop waits for it; on SQLite one writer at a time): no purchase is
    # committed after sales were stopped.
    done: list[str] = []

    def stop() -> None:
        with database() as uow:
            assert uow.sales.state_for_update().on_sale
            uow.sales.save(SalesState(False, WHEN, "mia", "check"))
            uow.commit()
        done.append("stop")

    with ThreadPoolExecutor(1) as pool:
        with database() as uow:
            assert uow.sales.state_for_sale().on_sale
            stopping = pool.submit(stop)
            time.sleep(0.3)  # the stop waits for this purchase meanwhile
            done.append("purchase")
            uow.commit()
        stopping.result()
    assert done == ["purchase", "stop"]
    with database() as uow:
        assert not uow.sales.state_for_sale().on_sale


def test_payments_are_found_by_kind_and_key(database: Database, account_id: int) -> None:
    with database() as uow:
        movement = uow.wallets.add(
            account_id=account_id, amount_pence=700, kind=MovementKind.DEPOSIT, reference="r",
            created_at=WHEN,
        )  # fmt: skip
        made = uow.payments.add(
            Payment(0, account_id, PaymentKind.DEPOSIT, 700, "k", "ref", movement.id, WHEN)
        )
        uow.commit()
    with database() as uow:
        assert made.id > 0
        assert uow.payments.by_idempotency_key(account_id, PaymentKind.DEPOSIT, "k") == made
        assert uow.payments.by_idempotency_key(account_id, PaymentKind.WITHDRAWAL, "k") is None
        since = uow.wallets.movements_since(account_id, MovementKind.DEPOSIT, WHEN - DAY)
        assert since == [movement]
        assert uow.wallets.movements_since(account_id, MovementKind.DEPOSIT, WHEN) == []


def test_operators_and_their_sessions(database: Database) -> None:
    with database() as uow:
        made = uow.operators.add(
            name="mia", password_hash="h", role=OperatorRole.MANAGER, created_at=WHEN
        )
        uow.operators.add_session(OperatorSession("t", made.id, WHEN, WHEN + DAY))
        uow.commit()
    with database() as uow:
        with pytest.raises(OperatorNameTakenError):
            uow.operators.add(
                name="mia", password_hash="h", role=OperatorRole.VIEWER, created_at=WHEN
            )
        assert uow.operators.by_name("mia") is not None
        assert uow.operators.get(made.id) == made and uow.operators.all() == [made]
        assert uow.operators.session("t", WHEN) is not None
        assert uow.operators.session("t", WHEN + DAY) is None
        assert uow.operators.remove_session("t") is not None
        uow.commit()


def test_figures_add_up_the_plays_and_checks_are_kept(database: Database, account_id: int) -> None:
    from colour_collector.service.play_models import PlayStatus

    with database() as uow:
        uow.plays.add(a_play(account_id, "CC-0000-0001-1"))
        won = uow.plays.add(
            replace(a_play(account_id, "CC-0000-0002-2"), tier_index=0, prize_pence=500)
        )
        uow.plays.save(replace(won, status=PlayStatus.FINISHED, revealed=7), was=won)
        uow.audit_checks.add(AuditCheck(WHEN, "mia", 3, "a" * 64, None))
        uow.audit_checks.add(AuditCheck(WHEN + DAY, None, 4, "b" * 64, "broken"))
        uow.commit()
    with database() as uow:
        # The play in progress is left out of the outcomes (its prize is not told yet).
        assert uow.figures.finished_by_outcome() == [OutcomeFigures(0, 1, 500)]
        assert uow.figures.in_progress() == 1
        assert uow.audit_checks.last() == AuditCheck(WHEN + DAY, None, 4, "b" * 64, "broken")
