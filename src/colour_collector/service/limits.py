"""Deposit limits: daily, weekly and monthly, counted gross over rolling windows.

The rules, as the player is told them:

- A limit counts every deposit made in the window ending now (any 24 hours, any 7 days, any 30
  days); withdrawals do not give room back (gross).
- A raise may not be over a longer period's limit asked for with it (a daily limit over the
  weekly could never be reached); a lower or first limit, a removal and what the player has
  already are never refused for their order, so a protective request always goes through.
- Lowering a limit, or setting one where there was none, takes effect at once and drops any
  increase or removal that was waiting.
- Raising or removing a limit waits: it can be confirmed by the player 24 hours after it was
  asked for, and only then takes effect. Until it is confirmed the old limit holds. Asking for
  another raise starts the 24 hours again; asking for the one waiting leaves it as it is.
- So the limits in force can be out of order (a daily limit whose removal waits, or one in force
  already, over a weekly just lowered): the tighter binds.
- A deposit that would take the window's deposits over a limit is refused, naming the limit and
  when enough of the window's deposits have left it for this deposit to fit.
- During a time-out or self-exclusion a limit can be lowered or set, not raised or removed:
  neither asked for nor confirmed. Taking one drops any raise or removal that waits.
- A player is asked to set limits before the first deposit through the payment provider, and may
  decline; either answer is remembered.

Every change is audited in the unit of work that makes it, under the lock of the player's
account.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import replace

from colour_collector.service import audit, exclusions, protection
from colour_collector.service.accounts import live_session
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    DepositLimitExceededError,
    InvalidInputError,
    LimitChangeNotDueError,
    NoPendingLimitChangeError,
)
from colour_collector.service.models import AccountId, AuditKind, Movement, MovementKind, Pence
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory
from colour_collector.service.protection_models import DepositLimit, LimitPeriod

MAX_LIMIT_PENCE: Pence = 10_000_000
"""The largest limit a player may set: £100,000."""


def check_amount(period: LimitPeriod, amount: object) -> Pence | None:
    """A limit as asked for: None (no limit) or 1 pence to :data:`MAX_LIMIT_PENCE`."""
    if amount is None:
        return None
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidInputError(
            f"a {period.value} limit must be a whole number of pence or null, got {amount!r}",
            field=f"{period.value}_pence",
        )
    if not 0 < amount <= MAX_LIMIT_PENCE:
        raise InvalidInputError(
            f"a {period.value} limit must be 1 to {MAX_LIMIT_PENCE} pence, got {amount!r}",
            field=f"{period.value}_pence",
        )
    return amount


def check_amounts(wanted: Mapping[LimitPeriod, object]) -> dict[LimitPeriod, Pence | None]:
    """Every period's limit checked (:func:`check_amount`); one error naming each that is not
    acceptable, so a player corrects them all at once."""
    checked: dict[LimitPeriod, Pence | None] = {}
    refused: list[InvalidInputError] = []
    for period in LimitPeriod:
        try:
            checked[period] = check_amount(period, wanted.get(period))
        except InvalidInputError as error:
            refused.append(error)
    _raise_all(refused)
    return checked


def check_order(
    asked: Mapping[LimitPeriod, Pence | None], before: Mapping[LimitPeriod, DepositLimit]
) -> None:
    """Refuse a raise asked for (a limit over the one in force, not the change that waits
    already) over a longer period's limit asked for with it, a daily over the weekly: it could
    never be reached. Named at the shorter period, with the smallest longer limit; one error
    for each. A lower or first limit, a removal and what the player has already are never
    refused for their order, so that a protective request always goes through at once (the
    tighter limit binds)."""
    periods = list(LimitPeriod)  # shortest first
    refused: list[InvalidInputError] = []
    for at, period in enumerate(periods):
        amount, held = asked[period], before[period]
        if amount is None or not is_tighter(held.amount_pence, amount):
            continue  # a removal, or not a raise
        if held.pending and amount == held.requested_pence:
            continue  # the raise that waits already
        caps = [(asked[p], p) for p in periods[at + 1 :] if asked[p] is not None]
        if not caps:
            continue
        cap, longer = min(caps, key=lambda c: (c[0], periods.index(c[1])))
        if cap is not None and cap < amount:
            refused.append(
                InvalidInputError(
                    f"a {period.value} limit of {amount} pence is more than the {longer.value}"
                    f" limit of {cap} pence asked for with it, so it could never be reached:"
                    f" ask for {cap} pence or less",
                    field=f"{period.value}_pence",
                )
            )
    _raise_all(refused)


def _raise_all(refused: Sequence[InvalidInputError]) -> None:
    if refused:
        first, *others = refused
        raise InvalidInputError(str(first), field=first.field, also=tuple(others))


def is_tighter(new: Pence | None, current: Pence | None) -> bool:
    """Whether ``new`` allows less than ``current`` (None allows everything)."""
    return new is not None and (current is None or new < current)


def change(limit: DepositLimit, new: Pence | None, now: dt.datetime) -> DepositLimit:
    """The limit after the player asks for ``new``: a tighter limit at once, a looser one (or
    none) waiting for confirmation after the cooling-off; asking for the limit in force drops a
    waiting change, and asking for the one waiting leaves it as it is (every period is named in
    each request, so a change of another period repeats it)."""
    if limit.pending and new == limit.requested_pence:
        return limit
    if new == limit.amount_pence:
        return replace(limit, requested_at=None, requested_pence=None)
    if is_tighter(new, limit.amount_pence):
        return replace(limit, amount_pence=new, requested_at=None, requested_pence=None)
    return replace(limit, requested_at=now, requested_pence=new)


def confirm(limit: DepositLimit, now: dt.datetime) -> DepositLimit:
    """The limit once its waiting change is confirmed; raises when there is none or the
    cooling-off has not ended."""
    confirmable = limit.confirmable_at
    if confirmable is None:
        raise NoPendingLimitChangeError(
            f"there is no increase or removal of the {limit.period.value} limit to confirm"
        )
    if now < confirmable:
        raise LimitChangeNotDueError(
            f"the change of the {limit.period.value} limit can be confirmed from"
            f" {confirmable.isoformat()}, 24 hours after it was asked for",
            period=limit.period.value,
            confirmable_at=confirmable,
        )
    return replace(
        limit, amount_pence=limit.requested_pence, requested_at=None, requested_pence=None
    )


def fits_at(
    deposits: Sequence[Movement], limit_pence: Pence, amount: Pence, window: dt.timedelta
) -> dt.datetime | None:
    """When ``amount`` fits under the limit, given the window's deposits oldest first: the time
    the last deposit that must leave the window leaves it (None if ``amount`` alone is over the
    limit)."""
    if amount > limit_pence:
        return None
    total = sum(m.amount_pence for m in deposits)
    for movement in deposits:
        total -= movement.amount_pence
        if total + amount <= limit_pence:
            return movement.created_at + window
    return None  # unreachable: once every deposit has left, amount <= limit fits


def check_deposit(
    limits: Sequence[DepositLimit],
    deposits: Sequence[Movement],
    amount: Pence,
    now: dt.datetime,
) -> None:
    """Refuse a deposit of ``amount`` at ``now`` that would go over a limit in force, given the
    deposits of the longest window, oldest first. Of several limits it would break, the one that
    stays in the way longest is named.

    A deposit stored with a time after ``now`` counts too: its request read the time after this
    one's but took the account's lock first (or ran on a server whose clock is ahead), and
    leaving it out would let two deposits made at once each fit the limit."""
    broken: list[DepositLimitExceededError] = []
    for limit in limits:
        if limit.amount_pence is None:
            continue
        start = now - limit.period.window
        recent = [m for m in deposits if start < m.created_at]
        so_far = sum(m.amount_pence for m in recent)
        if so_far + amount <= limit.amount_pence:
            continue
        resets = fits_at(recent, limit.amount_pence, amount, limit.period.window)
        left = max(0, limit.amount_pence - so_far)
        broken.append(
            DepositLimitExceededError(
                f"a deposit of {amount} pence would go over your {limit.period.value} deposit"
                f" limit of {limit.amount_pence} pence: {so_far} pence deposited in the"
                f" {_window_words(limit.period)}, {left} pence left"
                + ("" if resets is None else f"; it fits from {resets.isoformat()}"),
                period=limit.period.value,
                limit_pence=limit.amount_pence,
                deposited_pence=so_far,
                resets_at=resets,
            )
        )
    if broken:
        far = dt.datetime.max.replace(tzinfo=dt.UTC)
        raise max(broken, key=lambda e: far if e.resets_at is None else e.resets_at)


def _window_words(period: LimitPeriod) -> str:
    return {"daily": "last 24 hours", "weekly": "last 7 days"}.get(period.value, "last 30 days")


def check_deposit_in(
    uow: UnitOfWork, account_id: AccountId, amount: Pence, at: dt.datetime
) -> None:
    """:func:`check_deposit` on the stored limits and deposits (the account is locked)."""
    limits = [
        limit
        for limit in protection.limits_by_period(uow, account_id).values()
        if limit.amount_pence
    ]
    if not limits:
        return
    longest = max(limit.period.window for limit in limits)
    deposits = uow.wallets.movements_since(account_id, MovementKind.DEPOSIT, at - longest)
    check_deposit(limits, deposits, amount, at)


def set_limits(
    factory: UnitOfWorkFactory,
    token: str | None,
    wanted: Mapping[LimitPeriod, Pence | None],
    *,
    now: dt.datetime | None = None,
) -> protection.Protection:
    """Ask for new limits (every period named; None for no limit): tighter ones at once, looser
    ones waiting 24 hours for confirmation. Audited."""
    checked = check_amounts(wanted)
    at = now or utcnow()
    with factory() as uow:
        account_id = live_session(uow, token, at, lock_account=True).account_id
        before = protection.limits_by_period(uow, account_id)
        check_order(checked, before)
        after = {p: change(before[p], checked[p], at) for p in LimitPeriod}
        if any(after[p].pending and after[p] != before[p] for p in LimitPeriod):
            _refuse_during_a_break(uow, account_id, at)
        for period, limit in after.items():
            if limit != before[period]:
                uow.protection.save_limit(limit)
        settings = uow.protection.settings(account_id)
        if settings.limits_answered_at is None:
            uow.protection.save_settings(replace(settings, limits_answered_at=at))
        audit.append(
            uow,
            AuditKind.DEPOSIT_LIMITS_SET,
            account_id,
            {
                "asked": {p.value: checked[p] for p in LimitPeriod},
                "in_force": {p.value: after[p].amount_pence for p in LimitPeriod},
                "waiting": {
                    p.value: after[p].requested_pence for p in LimitPeriod if after[p].pending
                },
            },
            now=at,
        )
        found = protection.standing(uow, account_id, at)
        uow.commit()
    return found


def _refuse_during_a_break(uow: UnitOfWork, account_id: AccountId, at: dt.datetime) -> None:
    """During a time-out or self-exclusion a limit can be lowered or set, not raised or removed
    (asked for, or confirmed): the break is no time to prepare more room for after it. (Taking
    one drops the changes that wait: ``exclusions.take``.)"""
    found = protection.exclusion_in_force(uow, account_id, at)
    if found is not None:
        refused = exclusions.refusal(found, at)
        raise type(refused)(
            f"{refused}; a deposit limit can be lowered during a break, not raised or removed",
            until=refused.until,
        )


def decline(
    factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> protection.Protection:
    """The player chose not to set a deposit limit when asked (remembered, audited)."""
    at = now or utcnow()
    with factory() as uow:
        account_id = live_session(uow, token, at, lock_account=True).account_id
        settings = uow.protection.settings(account_id)
        uow.protection.save_settings(replace(settings, limits_answered_at=at))
        audit.append(uow, AuditKind.DEPOSIT_LIMITS_DECLINED, account_id, {}, now=at)
        found = protection.standing(uow, account_id, at)
        uow.commit()
    return found


def confirm_change(
    factory: UnitOfWorkFactory,
    token: str | None,
    period: LimitPeriod,
    *,
    now: dt.datetime | None = None,
) -> protection.Protection:
    """Confirm a waiting increase or removal of ``period``'s limit once 24 hours have passed."""
    at = now or utcnow()
    with factory() as uow:
        account_id = live_session(uow, token, at, lock_account=True).account_id
        _refuse_during_a_break(uow, account_id, at)
        before = protection.limits_by_period(uow, account_id)[period]
        after = confirm(before, at)
        uow.protection.save_limit(after)
        audit.append(
            uow,
            AuditKind.DEPOSIT_LIMIT_CONFIRMED,
            account_id,
            {
                "period": period.value,
                "from_pence": before.amount_pence,
                "to_pence": after.amount_pence,
            },
            now=at,
        )
        found = protection.standing(uow, account_id, at)
        uow.commit()
    return found
