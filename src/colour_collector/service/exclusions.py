"""Time-outs (24 hours to 6 weeks) and self-exclusions (6 months to 5 years).

From the moment one is taken, purchases and deposits are refused until it ends; a play already
in progress may still be finished, and the balance may still be withdrawn. Neither can be lifted
early: there is no way to end or shorten one, only to take another that ends later.

A time-out ends by itself. A self-exclusion does not (LCCP SR code 3.5.3): once its term is
over it stays in place until the player asks to play again (:func:`ask_to_return`), and a day
after that (``RETURN_COOLING_OFF``).
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import replace

from colour_collector.service import audit, protection
from colour_collector.service.accounts import live_session
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    ConfirmationRequiredError,
    ExcludedError,
    InvalidInputError,
    ReturnNotAllowedError,
    SelfExcludedError,
    TimedOutError,
)
from colour_collector.service.models import AccountId, AuditKind
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory
from colour_collector.service.protection_models import (
    RETURN_COOLING_OFF,
    Exclusion,
    ExclusionKind,
)

TIME_OUT_DAYS = (1, 42)
"""Shortest and longest time-out in days: 24 hours to 6 weeks."""
SELF_EXCLUSION_MONTHS = (6, 60)
"""Shortest and longest self-exclusion in months: 6 months to 5 years."""


def add_months(at: dt.datetime, months: int) -> dt.datetime:
    """``at`` moved on by calendar months (the 31st becomes the month's last day if shorter)."""
    index = at.month - 1 + months
    year, month = at.year + index // 12, index % 12 + 1
    day = min(at.day, calendar.monthrange(year, month)[1])
    return at.replace(year=year, month=month, day=day)


def time_out_end(start: dt.datetime, days: int) -> dt.datetime:
    """When a time-out of ``days`` taken at ``start`` ends; refuses lengths out of range."""
    low, high = TIME_OUT_DAYS
    if isinstance(days, bool) or not isinstance(days, int) or not low <= days <= high:
        raise InvalidInputError(
            f"a time-out lasts {low} to {high} days (24 hours to 6 weeks), got {days!r}",
            field="days",
        )
    return start + dt.timedelta(days=days)


def self_exclusion_end(start: dt.datetime, months: int) -> dt.datetime:
    """When a self-exclusion of ``months`` taken at ``start`` ends; refuses lengths out of
    range."""
    low, high = SELF_EXCLUSION_MONTHS
    if isinstance(months, bool) or not isinstance(months, int) or not low <= months <= high:
        raise InvalidInputError(
            f"a self-exclusion lasts {low} to {high} months (6 months to 5 years), got {months!r}",
            field="months",
        )
    return add_months(start, months)


def refusal(exclusion: Exclusion, at: dt.datetime) -> ExcludedError:
    """The error a purchase or deposit at ``at`` gets during ``exclusion``."""
    until = exclusion.ends_at.isoformat()
    if exclusion.kind is ExclusionKind.TIME_OUT:
        return TimedOutError(
            f"you are taking a time-out until {until}: no plays or deposits until then",
            until=exclusion.ends_at,
        )
    if exclusion.active(at):
        return SelfExcludedError(
            f"you have excluded yourself until {until}: no plays or deposits until then",
            until=exclusion.ends_at,
        )
    returns = exclusion.returns_at
    if returns is None:
        return SelfExcludedError(
            f"your self-exclusion ended at {until}; it stays in place until you ask to play"
            " again (POST /api/protection/self-exclusion/return), and for 24 hours after",
            until=None,
        )
    return SelfExcludedError(
        f"your self-exclusion ended at {until} and you asked to play again: no plays or"
        f" deposits until {returns.isoformat()}, 24 hours after you asked",
        until=returns,
    )


def refuse_if_excluded(uow: UnitOfWork, account_id: AccountId, at: dt.datetime) -> None:
    """Raise :class:`ExcludedError` if a time-out or self-exclusion is in force at ``at``
    (``protection.exclusion_in_force``)."""
    found = protection.exclusion_in_force(uow, account_id, at)
    if found is not None:
        raise refusal(found, at)


def take(
    factory: UnitOfWorkFactory,
    token: str | None,
    kind: ExclusionKind,
    length: int,
    *,
    confirm: bool,
    now: dt.datetime | None = None,
) -> protection.Protection:
    """Start a time-out of ``length`` days or a self-exclusion of ``length`` months at once.
    It cannot be undone, so the request must say ``confirm``. It drops any raise or removal of a
    deposit limit that waits. Audited."""
    at = now or utcnow()
    ends = (
        time_out_end(at, length)
        if kind is ExclusionKind.TIME_OUT
        else self_exclusion_end(at, length)
    )
    if confirm is not True:
        raise ConfirmationRequiredError(
            f'a {kind.value.replace("_", "-")} cannot be undone: send {{"confirm": true}}',
            field="confirm",
        )
    with factory() as uow:
        account_id = live_session(uow, token, at, lock_account=True).account_id
        stored = uow.protection.add_exclusion(
            account_id=account_id, kind=kind, starts_at=at, ends_at=ends
        )
        # A raise or removal of a deposit limit that waits is dropped: confirmed the moment the
        # break ends, it would make room for after it.
        dropped = [
            limit
            for limit in protection.limits_by_period(uow, account_id).values()
            if limit.pending
        ]
        for limit in dropped:
            uow.protection.save_limit(replace(limit, requested_at=None, requested_pence=None))
        audit.append(
            uow,
            AuditKind.TIME_OUT if kind is ExclusionKind.TIME_OUT else AuditKind.SELF_EXCLUSION,
            account_id,
            {
                "exclusion_id": stored.id,
                "length": length,
                "unit": "days" if kind is ExclusionKind.TIME_OUT else "months",
                "ends_at": audit.canonical_time(ends),
                "limit_changes_dropped": [
                    {
                        "period": limit.period.value,
                        "requested_pence": limit.requested_pence,
                        "requested_at": audit.canonical_time(limit.requested_at),
                    }
                    for limit in dropped
                    if limit.requested_at is not None
                ],
            },
            now=at,
        )
        found = protection.standing(uow, account_id, at)
        uow.commit()
    return found


def ask_to_return(
    factory: UnitOfWorkFactory,
    token: str | None,
    *,
    confirm: bool,
    now: dt.datetime | None = None,
) -> protection.Protection:
    """The player asks to play again after their self-exclusion has ended: plays and deposits
    open 24 hours later. Refused (:class:`ReturnNotAllowedError`) while its term runs or when
    there is none; asking again changes nothing. It must say ``confirm``. Audited."""
    if confirm is not True:
        raise ConfirmationRequiredError(
            'asking to play again after a self-exclusion must be confirmed: send {"confirm": true}',
            field="confirm",
        )
    at = now or utcnow()
    with factory() as uow:
        account_id = live_session(uow, token, at, lock_account=True).account_id
        last = protection.last_self_exclusion(uow, account_id, at)
        if last is None:
            raise ReturnNotAllowedError("you have no self-exclusion to return from")
        if last.active(at):
            raise ReturnNotAllowedError(
                f"your self-exclusion runs until {last.ends_at.isoformat()}: it cannot be"
                " lifted early; you can ask to play again once it has ended"
            )
        if last.returns_at is None:
            uow.protection.save_settings(
                replace(uow.protection.settings(account_id), return_asked_at=at)
            )
            audit.append(
                uow,
                AuditKind.SELF_EXCLUSION_RETURN,
                account_id,
                {
                    "exclusion_id": last.id,
                    "plays_from": audit.canonical_time(at + RETURN_COOLING_OFF),
                },
                now=at,
            )
        found = protection.standing(uow, account_id, at)
        uow.commit()
    return found
