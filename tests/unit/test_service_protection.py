"""Player protection's rules on in-memory fakes of the ports, with a clock the test controls:
deposit limits and their cooling-off, time-outs and self-exclusion, reality checks, inactivity,
deposits and withdrawals through the payment provider, and the sales switch."""

from __future__ import annotations

import copy
import datetime as dt
import json
import random

import pytest
from test_service_plays import PRICE, policy

from colour_collector.game.progress import expected_step
from colour_collector.service import (
    accounts,
    audit,
    deposits,
    exclusions,
    inactivity,
    limits,
    protection,
    reality_checks,
    reveal,
    settle,
    wallet,
    withdrawals,
)
from colour_collector.service import purchase as buying
from colour_collector.service.accounts import AccountPolicy, Passwords
from colour_collector.service.errors import (
    ConfirmationRequiredError,
    DepositLimitExceededError,
    DepositLimitsUnansweredError,
    InsufficientFundsError,
    InvalidInputError,
    LimitChangeNotDueError,
    NoPendingLimitChangeError,
    NotAuthenticatedError,
    PaymentDeclinedError,
    PaymentsUnavailableError,
    RealityCheckDueError,
    ReturnNotAllowedError,
    SelfExcludedError,
    TimedOutError,
)
from colour_collector.service.models import AuditKind, MovementKind
from colour_collector.service.protection_models import (
    DepositLimit,
    ExclusionKind,
    LimitPeriod,
)
from fakes import FakeDatabase, FakePaymentProvider
from support import register_and_confirm

T0 = dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC)
HOUR = dt.timedelta(hours=1)
DAY = dt.timedelta(days=1)
POLICY = AccountPolicy(
    passwords=Passwords(time_cost=1, memory_kib=8, parallelism=1),
    idle_timeout=dt.timedelta(minutes=30),
)
"""The server's session rules: 12 hours at most, 30 minutes idle."""
LASTING = AccountPolicy(passwords=POLICY.passwords, session_lifetime=dt.timedelta(days=3650))
"""Sessions that outlast the tests of other rules (their clocks jump days ahead)."""
NO_LIMITS = {p: None for p in LimitPeriod}


def player(
    db: FakeDatabase,
    email: str = "p@example.com",
    at: dt.datetime = T0,
    rules: AccountPolicy = LASTING,
) -> str:
    """A registered player logged in at ``at`` under ``rules``; their session token."""
    if db.state.accounts == {} or not any(
        a.account.email == email for a in db.state.accounts.values()
    ):
        register_and_confirm(
            db, POLICY, email=email, password="correct horse battery",
            date_of_birth=dt.date(1990, 1, 1), now=at,
        )  # fmt: skip
    return accounts.login(
        db, rules, email=email, password="correct horse battery", client="c", now=at
    ).token


def audit_kinds(db: FakeDatabase) -> list[str]:
    return [entry.kind for entry in db.state.audit]


def pay_in(
    db: FakeDatabase, token: str, pence: int, at: dt.datetime, key: str | None = None
) -> deposits.PaymentMade:
    return deposits.deposit(
        db,
        token,
        pence,
        idempotency_key=key or f"k-{at.isoformat()}-{pence}",
        provider=FakePaymentProvider(),
        now=at,
    )


# ------------------------------------------------------------------------- deposit limits


def test_a_lower_limit_applies_at_once_and_a_higher_one_after_24_hours_and_confirmation() -> None:
    db = FakeDatabase()
    token = player(db)
    set_to = limits.set_limits(db, token, {**NO_LIMITS, LimitPeriod.DAILY: 5000}, now=T0)
    assert set_to.limits[LimitPeriod.DAILY].limit.amount_pence == 5000
    assert set_to.limits_answered
    lower = limits.set_limits(db, token, {**NO_LIMITS, LimitPeriod.DAILY: 2000}, now=T0 + HOUR)
    assert lower.limits[LimitPeriod.DAILY].limit.amount_pence == 2000
    higher = limits.set_limits(db, token, {**NO_LIMITS, LimitPeriod.DAILY: 8000}, now=T0 + HOUR)
    daily = higher.limits[LimitPeriod.DAILY].limit
    assert (daily.amount_pence, daily.requested_pence) == (2000, 8000)
    assert daily.confirmable_at == T0 + HOUR + DAY
    with pytest.raises(LimitChangeNotDueError) as early:
        limits.confirm_change(
            db, token, LimitPeriod.DAILY, now=T0 + HOUR + DAY - dt.timedelta(seconds=1)
        )
    assert early.value.confirmable_at == T0 + HOUR + DAY
    # The old limit holds meanwhile, and after the 24 hours until the player confirms.
    later = protection.overview(db, token, now=T0 + 3 * DAY)
    assert later.limits[LimitPeriod.DAILY].limit.amount_pence == 2000
    done = limits.confirm_change(db, token, LimitPeriod.DAILY, now=T0 + 3 * DAY)
    assert done.limits[LimitPeriod.DAILY].limit == DepositLimit(
        db.state.sessions[accounts.hash_token(token)].account_id, LimitPeriod.DAILY, 8000
    )
    with pytest.raises(NoPendingLimitChangeError):
        limits.confirm_change(db, token, LimitPeriod.DAILY, now=T0 + 3 * DAY)
    assert audit_kinds(db).count("deposit_limits_set") == 3
    assert audit_kinds(db)[-1] == "deposit_limit_confirmed"


def test_removing_a_limit_waits_and_a_new_decrease_drops_the_waiting_change() -> None:
    db = FakeDatabase()
    token = player(db)
    limits.set_limits(db, token, {**NO_LIMITS, LimitPeriod.WEEKLY: 10_000}, now=T0)
    removal = limits.set_limits(db, token, NO_LIMITS, now=T0 + HOUR)
    weekly = removal.limits[LimitPeriod.WEEKLY].limit
    assert weekly.amount_pence == 10_000 and weekly.pending and weekly.requested_pence is None
    tighter = limits.set_limits(
        db, token, {**NO_LIMITS, LimitPeriod.WEEKLY: 9000}, now=T0 + 2 * HOUR
    )
    weekly = tighter.limits[LimitPeriod.WEEKLY].limit
    assert weekly.amount_pence == 9000 and not weekly.pending
    limits.set_limits(db, token, NO_LIMITS, now=T0 + 3 * HOUR)
    gone = limits.confirm_change(db, token, LimitPeriod.WEEKLY, now=T0 + 3 * HOUR + DAY)
    assert gone.limits[LimitPeriod.WEEKLY].limit.amount_pence is None


def test_asking_again_restarts_the_cooling_off() -> None:
    limit = DepositLimit(1, LimitPeriod.MONTHLY, 1000)
    first = limits.change(limit, 2000, T0)
    again = limits.change(first, 3000, T0 + 20 * HOUR)
    assert again.confirmable_at == T0 + 20 * HOUR + DAY
    assert limits.change(again, 1000, T0 + 21 * HOUR) == limit  # the limit in force: no change
    # Asking for the change that waits (a request names every period) keeps its time.
    assert limits.change(again, 3000, T0 + 22 * HOUR) == again
    removal = limits.change(limit, None, T0)
    assert limits.change(removal, None, T0 + HOUR) == removal


@pytest.mark.parametrize("bad", [0, -1, limits.MAX_LIMIT_PENCE + 1, True, "100", 1.5])
def test_a_limit_must_be_whole_positive_pence(bad: object) -> None:
    with pytest.raises(InvalidInputError) as refused:
        limits.check_amount(LimitPeriod.DAILY, bad)
    assert refused.value.field == "daily_pence"


def test_every_limit_not_acceptable_is_named_at_once() -> None:
    db = FakeDatabase()
    token = player(db)
    wanted = {LimitPeriod.DAILY: 0, LimitPeriod.WEEKLY: 10_000, LimitPeriod.MONTHLY: "lots"}
    with pytest.raises(InvalidInputError) as refused:
        limits.set_limits(db, token, wanted, now=T0)  # type: ignore[arg-type]
    assert [field for field, _ in refused.value.problems] == ["daily_pence", "monthly_pence"]


def test_a_raise_over_a_longer_periods_limit_is_refused_and_nothing_changes() -> None:
    """A raised daily limit over the weekly could never be reached: the player is told the most
    it can be; equal limits, and no limit for one of them, are in order."""
    db = FakeDatabase()
    token = player(db)
    limits.set_limits(db, token, {**NO_LIMITS, LimitPeriod.DAILY: 2000}, now=T0)
    wanted = {LimitPeriod.DAILY: 9000, LimitPeriod.WEEKLY: 5000, LimitPeriod.MONTHLY: 4000}
    before, commits = copy.deepcopy(db.state), db.commits
    with pytest.raises(InvalidInputError) as refused:
        limits.set_limits(db, token, wanted, now=T0 + HOUR)
    # The smallest longer limit is named: asking for the weekly's would be refused again.
    assert refused.value.problems == [
        (
            "daily_pence",
            "a daily limit of 9000 pence is more than the monthly limit of 4000 pence asked for"
            " with it, so it could never be reached: ask for 4000 pence or less",
        ),
    ]
    skipping = {LimitPeriod.DAILY: 3000, LimitPeriod.WEEKLY: None, LimitPeriod.MONTHLY: 2500}
    with pytest.raises(InvalidInputError, match="more than the monthly limit") as refused:
        limits.set_limits(db, token, skipping, now=T0 + HOUR)
    assert refused.value.field == "daily_pence"
    assert db.commits == commits and db.state == before  # nothing changed
    for fine in (
        {LimitPeriod.DAILY: 5000, LimitPeriod.WEEKLY: 5000, LimitPeriod.MONTHLY: 5000},
        {LimitPeriod.DAILY: 1500, LimitPeriod.WEEKLY: None, LimitPeriod.MONTHLY: None},
        {LimitPeriod.DAILY: None, LimitPeriod.WEEKLY: 9000, LimitPeriod.MONTHLY: 10_000},
    ):
        shown = limits.set_limits(db, token, fine, now=T0 + 2 * HOUR).limits
        asked = {
            p: s.limit.requested_pence if s.limit.pending else s.limit.amount_pence
            for p, s in shown.items()
        }
        assert asked == fine  # taken as asked: at once, or waiting


def test_what_the_player_has_already_is_never_out_of_order() -> None:
    """A protective request always goes through, whatever the order of the limits held."""
    db = FakeDatabase()
    token = player(db)
    at = T0
    # A daily limit whose removal waits; the weekly lowered under it: accepted (it binds).
    limits.set_limits(db, token, {**NO_LIMITS, LimitPeriod.DAILY: 10_000}, now=at)
    limits.set_limits(db, token, NO_LIMITS, now=at + HOUR)  # the removal waits
    lowered = {**NO_LIMITS, LimitPeriod.WEEKLY: 5000}
    shown = limits.set_limits(db, token, lowered, now=at + 2 * HOUR).limits
    assert shown[LimitPeriod.DAILY].limit.amount_pence == 10_000  # in force while it waits
    assert shown[LimitPeriod.WEEKLY].limit.amount_pence == 5000
    # Asking again for the daily in force cancels its removal, though it is over the weekly.
    keep = {**NO_LIMITS, LimitPeriod.DAILY: 10_000, LimitPeriod.WEEKLY: 5000}
    shown = limits.set_limits(db, token, keep, now=at + 3 * HOUR).limits
    assert not shown[LimitPeriod.DAILY].limit.pending
    # A raise that waits, repeated while the weekly is lowered under it: accepted too.
    other = player(db, email="other@example.com")
    limits.set_limits(db, other, {**NO_LIMITS, LimitPeriod.DAILY: 100, LimitPeriod.WEEKLY: 50_000},
                      now=at)  # fmt: skip
    raise_ = {**NO_LIMITS, LimitPeriod.DAILY: 1000, LimitPeriod.WEEKLY: 50_000}
    limits.set_limits(db, other, raise_, now=at + HOUR)
    under = {**NO_LIMITS, LimitPeriod.DAILY: 1000, LimitPeriod.WEEKLY: 500}
    shown = limits.set_limits(db, other, under, now=at + 2 * HOUR).limits
    assert shown[LimitPeriod.WEEKLY].limit.amount_pence == 500
    assert shown[LimitPeriod.DAILY].limit.requested_pence == 1000
    # Another raise of the daily over it is refused.
    with pytest.raises(InvalidInputError, match="ask for 500 pence or less"):
        limits.set_limits(db, other, {**under, LimitPeriod.DAILY: 2000}, now=at + 3 * HOUR)
    # Lowering two limits at once goes through, whatever their order; a first limit too.
    third = player(db, email="third@example.com")
    limits.set_limits(db, third, {**NO_LIMITS, LimitPeriod.DAILY: 1000, LimitPeriod.WEEKLY: 5000},
                      now=at)  # fmt: skip
    both = {**NO_LIMITS, LimitPeriod.DAILY: 800, LimitPeriod.WEEKLY: 500}
    shown = limits.set_limits(db, third, both, now=at + HOUR).limits
    assert [shown[p].limit.amount_pence for p in LimitPeriod] == [800, 500, None]
    first = {LimitPeriod.DAILY: 800, LimitPeriod.WEEKLY: 500, LimitPeriod.MONTHLY: 100}
    shown = limits.set_limits(db, third, first, now=at + 2 * HOUR).limits
    assert shown[LimitPeriod.MONTHLY].limit.amount_pence == 100


def test_during_a_break_a_limit_can_be_lowered_but_not_raised_or_removed() -> None:
    db = FakeDatabase()
    token = player(db)
    limits.set_limits(db, token, {**NO_LIMITS, LimitPeriod.WEEKLY: 5000}, now=T0)
    limits.set_limits(db, token, {**NO_LIMITS, LimitPeriod.WEEKLY: 9000}, now=T0 + HOUR)
    # Taking the break drops the raise that waits: confirmed as it ends, it would make room.
    taken = exclusions.take(db, token, ExclusionKind.TIME_OUT, 7, confirm=True, now=T0 + 2 * HOUR)
    assert not taken.limits[LimitPeriod.WEEKLY].limit.pending
    assert taken.limits[LimitPeriod.WEEKLY].limit.amount_pence == 5000
    entry = [e for e in db.state.audit if e.kind == AuditKind.TIME_OUT][-1]
    assert json.loads(entry.payload)["limit_changes_dropped"] == [
        {
            "period": "weekly",
            "requested_pence": 9000,
            "requested_at": audit.canonical_time(T0 + HOUR),
        }
    ]
    before, commits = copy.deepcopy(db.state), db.commits
    for wanted in (
        {**NO_LIMITS, LimitPeriod.WEEKLY: 10_000},  # a raise
        {**NO_LIMITS, LimitPeriod.DAILY: 100, LimitPeriod.WEEKLY: None},  # a removal
    ):
        with pytest.raises(TimedOutError, match="can be lowered during a break, not raised"):
            limits.set_limits(db, token, wanted, now=T0 + 3 * HOUR)
    # Confirming is refused for the break (whether or not a change waits).
    with pytest.raises(TimedOutError):
        limits.confirm_change(db, token, LimitPeriod.WEEKLY, now=T0 + 2 * DAY)
    assert db.commits == commits and db.state == before
    # Limits may be lowered or set.
    lower = {**NO_LIMITS, LimitPeriod.DAILY: 1000, LimitPeriod.WEEKLY: 3000}
    shown = limits.set_limits(db, token, lower, now=T0 + 4 * HOUR).limits
    assert [shown[p].limit.amount_pence for p in LimitPeriod] == [1000, 3000, None]
    # Once the break is over, a raise is asked for and confirmed as ever.
    later = T0 + 8 * DAY
    limits.set_limits(db, token, {**NO_LIMITS, LimitPeriod.WEEKLY: 4000}, now=later)
    done = limits.confirm_change(db, token, LimitPeriod.WEEKLY, now=later + DAY)
    assert done.limits[LimitPeriod.WEEKLY].limit.amount_pence == 4000


def test_a_deposit_over_a_limit_is_refused_naming_it_and_when_it_fits() -> None:
    db = FakeDatabase()
    token = player(db)
    limits.set_limits(
        db, token, {**NO_LIMITS, LimitPeriod.DAILY: 3000, LimitPeriod.WEEKLY: 4000}, now=T0
    )
    pay_in(db, token, 1000, T0)
    pay_in(db, token, 1500, T0 + 2 * HOUR)
    with pytest.raises(DepositLimitExceededError) as over:
        pay_in(db, token, 1000, T0 + 3 * HOUR)
    # Daily: 2500 of 3000 used; 1000 fits once the first 1000 leaves the 24 hours.
    assert (over.value.period, over.value.limit_pence) == ("daily", 3000)
    assert over.value.deposited_pence == 2500
    assert over.value.resets_at == T0 + DAY
    pay_in(db, token, 500, T0 + 4 * HOUR)  # exactly up to the limit
    # Gross: a withdrawal gives no room back.
    withdrawals.withdraw(
        db, token, 2000, idempotency_key="w", provider=FakePaymentProvider(), now=T0 + 5 * HOUR
    )
    with pytest.raises(DepositLimitExceededError):
        pay_in(db, token, 100, T0 + 5 * HOUR)
    # A day later the daily window has room, the weekly (3000 of 4000) only for 1000.
    with pytest.raises(DepositLimitExceededError) as weekly:
        pay_in(db, token, 1500, T0 + DAY + 5 * HOUR)
    assert weekly.value.period == "weekly"
    assert weekly.value.resets_at == T0 + 7 * DAY
    pay_in(db, token, 1000, T0 + DAY + 5 * HOUR)


def test_a_deposit_stored_with_a_later_time_counts_against_the_limit() -> None:
    # Two deposits at once: the one whose time was read later (or on a server whose clock is
    # ahead) takes the account's lock first; the other, read a millisecond earlier, must still
    # see it, or two deposits each "fit" a limit together twice over.
    db = FakeDatabase()
    token = player(db)
    limits.set_limits(db, token, {**NO_LIMITS, LimitPeriod.DAILY: 1000}, now=T0)
    pay_in(db, token, 1000, T0 + HOUR)
    with pytest.raises(DepositLimitExceededError) as over:
        pay_in(db, token, 1000, T0 + HOUR - dt.timedelta(milliseconds=1))
    assert over.value.deposited_pence == 1000
    assert over.value.resets_at == T0 + HOUR + DAY
    seen = protection.overview(db, token, now=T0 + HOUR - dt.timedelta(milliseconds=1))
    assert seen.limits[LimitPeriod.DAILY].deposited_pence == 1000


def test_a_deposit_larger_than_the_limit_never_fits() -> None:
    db = FakeDatabase()
    token = player(db)
    limits.set_limits(db, token, {**NO_LIMITS, LimitPeriod.MONTHLY: 2000}, now=T0)
    with pytest.raises(DepositLimitExceededError) as over:
        pay_in(db, token, 2500, T0)
    assert over.value.resets_at is None and over.value.period == "monthly"


def test_the_limit_that_stays_in_the_way_longest_is_named() -> None:
    deposits_made = [
        _deposit(T0, 1000),
        _deposit(T0 + 2 * DAY, 1000),
    ]
    both = [
        DepositLimit(1, LimitPeriod.DAILY, 1000),
        DepositLimit(1, LimitPeriod.WEEKLY, 2000),
    ]
    with pytest.raises(DepositLimitExceededError) as over:
        limits.check_deposit(both, deposits_made, 500, T0 + 2 * DAY + HOUR)
    assert over.value.period == "weekly" and over.value.resets_at == T0 + 7 * DAY


def _deposit(at: dt.datetime, pence: int) -> wallet.Movement:
    return wallet.Movement(0, 1, pence, MovementKind.DEPOSIT, None, at)


def test_the_first_deposit_waits_for_the_limit_question_and_declining_is_an_answer() -> None:
    db = FakeDatabase()
    token = player(db)
    with pytest.raises(DepositLimitsUnansweredError):
        pay_in(db, token, 1000, T0)
    assert db.state.movements == []
    answered = limits.decline(db, token, now=T0)
    assert answered.limits_answered and all(
        s.limit.amount_pence is None for s in answered.limits.values()
    )
    assert pay_in(db, token, 1000, T0).balance_pence == 1000
    assert "deposit_limits_declined" in audit_kinds(db)


# ------------------------------------------------------------------------- payments


def test_a_deposit_with_the_same_key_moves_money_once() -> None:
    db = FakeDatabase()
    token = player(db)
    limits.decline(db, token, now=T0)
    provider = FakePaymentProvider()
    first = deposits.deposit(db, token, 700, idempotency_key="abc", provider=provider, now=T0)
    again = deposits.deposit(db, token, 700, idempotency_key="abc", provider=provider, now=T0)
    assert first.created and not again.created
    assert again.payment == first.payment and again.balance_pence == 700
    assert len(provider.calls) == 1 and provider.calls[0][3].endswith(":abc")
    assert audit_kinds(db).count("deposit") == 1
    payload = json.loads(db.state.audit[-1].payload)
    assert payload["provider_reference"] == first.payment.provider_reference


def test_a_key_used_for_another_amount_is_refused_and_moves_nothing() -> None:
    db = FakeDatabase()
    token = player(db)
    limits.decline(db, token, now=T0)
    provider = FakePaymentProvider()
    deposits.deposit(db, token, 700, idempotency_key="k", provider=provider, now=T0)
    withdrawals.withdraw(db, token, 200, idempotency_key="k", provider=provider, now=T0)
    before = (list(db.state.movements), list(db.state.payments), len(db.state.audit))
    with pytest.raises(InvalidInputError) as deposit:
        deposits.deposit(db, token, 900, idempotency_key="k", provider=provider, now=T0)
    with pytest.raises(InvalidInputError) as withdrawal:
        withdrawals.withdraw(db, token, 300, idempotency_key="k", provider=provider, now=T0)
    assert deposit.value.field == withdrawal.value.field == "Idempotency-Key"
    assert "deposit of 700 pence" in str(deposit.value)
    assert "withdrawal of 200 pence" in str(withdrawal.value)
    assert (db.state.movements, db.state.payments, len(db.state.audit)) == before
    assert len(provider.calls) == 2  # the provider was not asked again


def test_a_declined_or_impossible_payment_moves_nothing() -> None:
    db = FakeDatabase()
    token = player(db)
    limits.decline(db, token, now=T0)
    for provider, error in (
        (FakePaymentProvider(decline=True), PaymentDeclinedError),
        (None, PaymentsUnavailableError),
    ):
        with pytest.raises(error):
            deposits.deposit(db, token, 500, idempotency_key="x", provider=provider, now=T0)
    with pytest.raises(InvalidInputError) as keyless:
        deposits.deposit(
            db, token, 500, idempotency_key=None, provider=FakePaymentProvider(), now=T0
        )
    assert keyless.value.field == "Idempotency-Key"
    assert db.state.movements == [] and db.state.payments == []


def test_a_withdrawal_is_at_most_the_balance_and_repeats_answer_the_same() -> None:
    db = FakeDatabase()
    token = player(db)
    limits.decline(db, token, now=T0)
    pay_in(db, token, 1000, T0)
    provider = FakePaymentProvider()
    with pytest.raises(InsufficientFundsError) as short:
        withdrawals.withdraw(db, token, 1001, idempotency_key="w", provider=provider, now=T0)
    assert short.value.balance_pence == 1000 and provider.calls == []
    out = withdrawals.withdraw(db, token, 600, idempotency_key="w", provider=provider, now=T0)
    again = withdrawals.withdraw(db, token, 600, idempotency_key="w", provider=provider, now=T0)
    assert out.balance_pence == 400 and again.payment == out.payment and not again.created
    assert wallet.statement(db, token, now=T0).balance_pence == 400
    assert [m.kind for m in db.state.movements] == [MovementKind.DEPOSIT, MovementKind.WITHDRAWAL]


# ------------------------------------------------------------------------- breaks


def test_a_time_out_refuses_plays_and_deposits_at_once_until_it_ends() -> None:
    db = FakeDatabase()
    token = player(db)
    limits.decline(db, token, now=T0)
    pay_in(db, token, 2000, T0)
    rules = policy([None])
    bought = buying.purchase(
        db, token, rules, confirm=True, idempotency_key=None, rng=random.Random(1), now=T0
    )
    taken = exclusions.take(db, token, ExclusionKind.TIME_OUT, 1, confirm=True, now=T0 + HOUR)
    assert taken.exclusion is not None and taken.exclusion.ends_at == T0 + HOUR + DAY
    # The purchase screen offers to continue the play in progress: the break allows that.
    assert buying.quote(db, token, rules, now=T0 + HOUR).refusal is None
    # The play in progress may be finished, and pays.
    number = bought.play.play_number
    for _ in range(bought.play.steps):
        play = db.state.plays[number]
        kind = expected_step(bought.record, play.revealed)
        assert kind is not None
        reveal.reveal(db, token, number, kind.value, "odd" if kind.value == "bonus_pick" else None,
                      rng=random.Random(2), now=T0 + HOUR)  # fmt: skip
    assert settle.finish(db, token, number, now=T0 + HOUR).play.status.value == "finished"
    # Now the purchase screen warns of the refusal Confirm would get, with its end.
    warned = buying.quote(db, token, rules, now=T0 + 2 * HOUR).refusal
    assert isinstance(warned, TimedOutError) and warned.until == T0 + HOUR + DAY
    with pytest.raises(TimedOutError) as refused:
        buying.purchase(db, token, rules, confirm=True, idempotency_key=None,
                        rng=random.Random(1), now=T0 + 2 * HOUR)  # fmt: skip
    assert refused.value.until == T0 + HOUR + DAY
    with pytest.raises(TimedOutError):
        pay_in(db, token, 100, T0 + 2 * HOUR)
    with pytest.raises(TimedOutError):
        wallet.test_deposit(db, token, 100, enabled=True, now=T0 + 2 * HOUR)
    # The balance can still be withdrawn.
    withdrawals.withdraw(db, token, 100, idempotency_key="out", provider=FakePaymentProvider(),
                         now=T0 + 2 * HOUR)  # fmt: skip
    # Once it has ended (a new login), plays are on sale again.
    later = player(db, at=T0 + HOUR + DAY)
    assert buying.quote(db, later, rules, now=T0 + HOUR + DAY).refusal is None
    again = buying.purchase(db, later, policy([None]), confirm=True, idempotency_key=None,
                            rng=random.Random(1), now=T0 + HOUR + DAY)  # fmt: skip
    assert again.created
    assert audit_kinds(db).count("time_out") == 1


@pytest.mark.parametrize(("kind", "length"), [(ExclusionKind.TIME_OUT, 1),
                                              (ExclusionKind.SELF_EXCLUSION, 6)])  # fmt: skip
def test_a_break_refuses_a_purchase_whose_time_was_read_before_it_was_taken(
    kind: ExclusionKind, length: int
) -> None:
    # A purchase reads the time, then waits for the account's lock, which the break's request
    # (its time read a moment later, or on a server whose clock is ahead) holds: once the break
    # is stored the purchase must be refused, and so must a deposit.
    db = FakeDatabase()
    token = player(db)
    limits.decline(db, token, now=T0)
    pay_in(db, token, 2000, T0)
    exclusions.take(db, token, kind, length, confirm=True, now=T0 + HOUR)
    earlier = T0 + HOUR - dt.timedelta(milliseconds=1)
    with pytest.raises(TimedOutError if kind is ExclusionKind.TIME_OUT else SelfExcludedError):
        buying.purchase(db, token, policy([None]), confirm=True, idempotency_key=None,
                        rng=random.Random(1), now=earlier)  # fmt: skip
    with pytest.raises(TimedOutError if kind is ExclusionKind.TIME_OUT else SelfExcludedError):
        pay_in(db, token, 100, earlier)
    assert protection.overview(db, token, now=earlier).exclusion is not None
    assert db.state.plays == {}


def test_a_self_exclusion_cannot_be_shortened_by_a_time_out() -> None:
    db = FakeDatabase()
    token = player(db)
    exclusions.take(db, token, ExclusionKind.SELF_EXCLUSION, 6, confirm=True, now=T0)
    exclusions.take(db, token, ExclusionKind.TIME_OUT, 1, confirm=True, now=T0 + HOUR)
    later = player(db, at=T0 + 2 * DAY)
    found = protection.overview(db, later, now=T0 + 2 * DAY)
    assert found.exclusion is not None
    assert found.exclusion.kind is ExclusionKind.SELF_EXCLUSION
    assert found.exclusion.ends_at == dt.datetime(2027, 6, 3, 12, 0, tzinfo=dt.UTC)
    limits.decline(db, later, now=T0 + 2 * DAY)
    with pytest.raises(SelfExcludedError):
        pay_in(db, later, 100, T0 + 2 * DAY)


def test_an_ended_self_exclusion_stays_until_the_player_asks_to_return_and_a_day_passes() -> None:
    # LCCP SR code 3.5.3: at the end of the period the player chose, the self-exclusion stays in
    # place unless the player takes positive action to gamble again, and then only after a
    # day's cooling-off. The account must not reopen by itself.
    db = FakeDatabase()
    token = player(db)
    limits.decline(db, token, now=T0)
    pay_in(db, token, 2000, T0)
    taken = exclusions.take(db, token, ExclusionKind.SELF_EXCLUSION, 6, confirm=True, now=T0)
    assert taken.exclusion is not None
    end = taken.exclusion.ends_at
    # Asking to return during the term is refused: nothing can shorten it.
    with pytest.raises(ReturnNotAllowedError):
        exclusions.ask_to_return(db, token, confirm=True, now=end - HOUR)
    rules = policy([None, None])
    later = player(db, at=end + DAY)
    with pytest.raises(SelfExcludedError) as refused:
        buying.purchase(db, later, rules, confirm=True, idempotency_key=None,
                        rng=random.Random(1), now=end + DAY)  # fmt: skip
    assert refused.value.until is None  # not until the player asks
    with pytest.raises(SelfExcludedError):
        pay_in(db, later, 100, end + DAY)
    found = protection.overview(db, later, now=end + DAY).exclusion
    assert found is not None and found.kind is ExclusionKind.SELF_EXCLUSION
    assert found.ended(end + DAY) and found.returns_at is None
    # The player asks (confirmed): play resumes a day later, not before.
    with pytest.raises(ConfirmationRequiredError):
        exclusions.ask_to_return(db, later, confirm=False, now=end + DAY)
    asked = exclusions.ask_to_return(db, later, confirm=True, now=end + DAY)
    assert asked.exclusion is not None and asked.exclusion.returns_at == end + 2 * DAY
    # Asking again does not move it.
    exclusions.ask_to_return(db, later, confirm=True, now=end + DAY + HOUR)
    with pytest.raises(SelfExcludedError) as refused:
        pay_in(db, later, 100, end + 2 * DAY - HOUR)
    assert refused.value.until == end + 2 * DAY
    assert protection.overview(db, later, now=end + 2 * DAY).exclusion is None
    pay_in(db, later, 100, end + 2 * DAY)
    back = player(db, at=end + 2 * DAY)
    assert buying.purchase(db, back, rules, confirm=True, idempotency_key=None,
                           rng=random.Random(1), now=end + 2 * DAY).created  # fmt: skip
    assert audit_kinds(db).count("self_exclusion_return") == 1
    # A later self-exclusion is not lifted by the return from the earlier one.
    again = exclusions.take(
        db, later, ExclusionKind.SELF_EXCLUSION, 6, confirm=True, now=end + 3 * DAY
    )
    assert again.exclusion is not None
    with pytest.raises(SelfExcludedError):
        pay_in(db, later, 100, again.exclusion.ends_at + 3 * DAY)


def test_a_time_out_during_an_ended_self_exclusion_does_not_hide_it() -> None:
    """A time-out taken once a self-exclusion's term is over ends sooner than the
    self-exclusion, which stays until the player asks to play again: the break shown and the
    refusal are the self-exclusion's (no ``until``), not "a time-out until" a time after which
    play is still refused; and the return may be asked. Once asked, the break in force is the
    one that lets go last: the time-out, or the day after the return."""
    db = FakeDatabase()
    token = player(db)
    limits.decline(db, token, now=T0)
    taken = exclusions.take(db, token, ExclusionKind.SELF_EXCLUSION, 6, confirm=True, now=T0)
    assert taken.exclusion is not None
    end = taken.exclusion.ends_at
    later = player(db, at=end + DAY)
    exclusions.take(db, later, ExclusionKind.TIME_OUT, 3, confirm=True, now=end + DAY)
    shown = protection.overview(db, later, now=end + 2 * DAY).exclusion
    assert shown is not None and shown.kind is ExclusionKind.SELF_EXCLUSION
    with pytest.raises(SelfExcludedError) as refused:
        pay_in(db, later, 100, end + 2 * DAY)
    assert refused.value.until is None
    # Asked: a day later the self-exclusion lets go, the time-out (to end + 4 days) holds.
    exclusions.ask_to_return(db, later, confirm=True, now=end + 2 * DAY)
    with pytest.raises(TimedOutError) as refused:
        pay_in(db, later, 100, end + 2 * DAY + HOUR)
    assert refused.value.until == end + 4 * DAY
    pay_in(db, later, 100, end + 4 * DAY)
    # A time-out that ends before the day after the return does not hide it either.
    second = exclusions.take(db, later, ExclusionKind.SELF_EXCLUSION, 6, confirm=True,
                             now=end + 5 * DAY)  # fmt: skip
    assert second.exclusion is not None
    over = second.exclusion.ends_at
    exclusions.ask_to_return(db, later, confirm=True, now=over + HOUR)
    exclusions.take(db, later, ExclusionKind.TIME_OUT, 1, confirm=True, now=over - HOUR)
    with pytest.raises(SelfExcludedError) as refused:
        pay_in(db, later, 100, over + 2 * HOUR)
    assert refused.value.until == over + HOUR + DAY


def test_a_time_out_ends_by_itself() -> None:
    db = FakeDatabase()
    token = player(db)
    limits.decline(db, token, now=T0)
    exclusions.take(db, token, ExclusionKind.TIME_OUT, 1, confirm=True, now=T0)
    with pytest.raises(ReturnNotAllowedError):
        exclusions.ask_to_return(db, token, confirm=True, now=T0 + 2 * DAY)
    assert protection.overview(db, token, now=T0 + DAY).exclusion is None
    pay_in(db, token, 100, T0 + DAY)


@pytest.mark.parametrize(
    ("kind", "length", "field"),
    [
        (ExclusionKind.TIME_OUT, 0, "days"),
        (ExclusionKind.TIME_OUT, 43, "days"),
        (ExclusionKind.SELF_EXCLUSION, 5, "months"),
        (ExclusionKind.SELF_EXCLUSION, 61, "months"),
    ],
)
def test_breaks_have_their_lengths(kind: ExclusionKind, length: int, field: str) -> None:
    db = FakeDatabase()
    token = player(db)
    with pytest.raises(InvalidInputError) as refused:
        exclusions.take(db, token, kind, length, confirm=True, now=T0)
    assert refused.value.field == field
    with pytest.raises(ConfirmationRequiredError):
        exclusions.take(db, token, kind, 6 if field == "months" else 1, confirm=False, now=T0)
    assert db.state.exclusions == []


def test_months_are_calendar_months() -> None:
    end_of_january = dt.datetime(2027, 1, 31, 9, 0, tzinfo=dt.UTC)
    assert exclusions.add_months(end_of_january, 1) == dt.datetime(2027, 2, 28, 9, 0, tzinfo=dt.UTC)
    assert exclusions.add_months(end_of_january, 60).year == 2032


# ------------------------------------------------------------------------- reality checks


def test_a_reality_check_pauses_the_next_purchase_after_the_interval() -> None:
    db = FakeDatabase()
    token = player(db)
    wallet.test_deposit(db, token, 5000, enabled=True, now=T0)
    rules = policy([None, None, None])

    def buy_and_finish(at: dt.datetime) -> None:
        bought = buying.purchase(db, token, rules, confirm=True, idempotency_key=None,
                                 rng=random.Random(1), now=at)  # fmt: skip
        number = bought.play.play_number
        for _ in range(bought.play.steps):
            kind = expected_step(bought.record, db.state.plays[number].revealed)
            assert kind is not None
            reveal.reveal(db, token, number, kind.value,
                          "odd" if kind.value == "bonus_pick" else None,
                          rng=random.Random(2), now=at)  # fmt: skip
        settle.finish(db, token, number, now=at)

    buy_and_finish(T0 + dt.timedelta(minutes=59))
    assert not reality_checks.look(db, token, now=T0 + HOUR - dt.timedelta(seconds=1)).due(
        T0 + HOUR - dt.timedelta(seconds=1)
    )
    assert buying.quote(db, token, rules, now=T0 + HOUR - dt.timedelta(seconds=1)).refusal is None
    assert isinstance(buying.quote(db, token, rules, now=T0 + HOUR).refusal, RealityCheckDueError)
    with pytest.raises(RealityCheckDueError) as due:
        buy_and_finish(T0 + HOUR)
    assert due.value.played_seconds == 3600 and due.value.net_pence == -PRICE
    seen = reality_checks.continue_playing(db, token, now=T0 + HOUR)
    assert seen.due_at == T0 + 2 * HOUR and seen.net_pence == -PRICE
    buy_and_finish(T0 + HOUR)
    assert "reality_check" in audit_kinds(db)
    # A shorter interval applies at once; a new login starts again from zero.
    shorter = reality_checks.set_interval(db, token, 10, now=T0 + HOUR + dt.timedelta(minutes=15))
    assert shorter.due(T0 + HOUR + dt.timedelta(minutes=15))
    fresh = player(db, at=T0 + 3 * HOUR)
    assert not reality_checks.look(db, fresh, now=T0 + 3 * HOUR).due(T0 + 3 * HOUR)


def test_a_due_reality_check_is_seen_before_a_longer_interval_puts_it_off() -> None:
    """Choosing a longer interval while a check is due would skip the check unseen: refused,
    with nothing written; a shorter one keeps it due and is taken; once seen, any is."""
    db = FakeDatabase()
    token = player(db)
    at = T0 + HOUR
    before, commits = copy.deepcopy(db.state), db.commits
    with pytest.raises(RealityCheckDueError):
        reality_checks.set_interval(db, token, 240, now=at)
    assert db.commits == commits and db.state == before
    assert reality_checks.set_interval(db, token, 30, now=at).due(at)
    reality_checks.continue_playing(db, token, now=at)
    assert not reality_checks.set_interval(db, token, 240, now=at).due(at)
    assert reality_checks.look(db, token, now=at).due_at == at + 4 * HOUR


def test_continuing_before_a_check_is_due_changes_nothing() -> None:
    """Else a client calling it just before each check would never show one."""
    db = FakeDatabase()
    token = player(db)
    early = T0 + HOUR - dt.timedelta(minutes=1)
    before, commits = copy.deepcopy(db.state), db.commits
    seen = reality_checks.continue_playing(db, token, now=early)
    assert seen.due_at == T0 + HOUR and not seen.due(early)
    assert db.commits == commits and db.state == before  # nothing recorded, nothing audited
    assert reality_checks.look(db, token, now=T0 + HOUR).due(T0 + HOUR)
    assert reality_checks.continue_playing(db, token, now=T0 + HOUR).due_at == T0 + 2 * HOUR


@pytest.mark.parametrize("minutes", [9, 241, True])
def test_a_reality_check_interval_is_10_to_240_minutes(minutes: int) -> None:
    with pytest.raises(InvalidInputError):
        reality_checks.check_interval(minutes)


# ------------------------------------------------------------------------- inactivity


def test_a_session_idle_for_30_minutes_ends_and_activity_keeps_it() -> None:
    db = FakeDatabase()
    token = player(db, rules=POLICY)
    thirty = dt.timedelta(minutes=30)
    assert accounts.current_account(db, token, now=T0 + thirty - dt.timedelta(seconds=1))
    with pytest.raises(NotAuthenticatedError):
        accounts.current_account(db, token, now=T0 + thirty)
    kept = player(db, rules=POLICY)
    renewed = inactivity.keep_alive(db, kept, POLICY, now=T0 + dt.timedelta(minutes=29))
    assert renewed.expires_at == T0 + dt.timedelta(minutes=59)
    assert accounts.current_account(db, kept, now=T0 + dt.timedelta(minutes=58))
    with pytest.raises(NotAuthenticatedError):  # an ended session is not revived
        inactivity.keep_alive(db, kept, POLICY, now=T0 + 2 * HOUR)
    # Activity never takes a session past its lifetime.
    last = player(db, rules=POLICY)
    for minutes in range(20, 12 * 60, 20):  # active all day
        end = inactivity.keep_alive(db, last, POLICY, now=T0 + dt.timedelta(minutes=minutes))
    assert end.expires_at == T0 + POLICY.session_lifetime
    with pytest.raises(NotAuthenticatedError):
        inactivity.keep_alive(db, last, POLICY, now=T0 + POLICY.session_lifetime)


def test_without_an_idle_timeout_a_session_lasts_its_lifetime() -> None:
    plain = AccountPolicy(passwords=POLICY.passwords)
    assert plain.session_end(T0, T0 + HOUR) == T0 + plain.session_lifetime
