"""What a player's protection is now, for the account screens: the deposit limits with what has
been deposited in each window and any change waiting, whether the player has been asked about
limits, a time-out or self-exclusion in force, and the reality check interval."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from colour_collector.service.accounts import live_session
from colour_collector.service.clock import utcnow
from colour_collector.service.models import AccountId, Movement, MovementKind, Pence
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory
from colour_collector.service.protection_models import (
    DepositLimit,
    Exclusion,
    ExclusionKind,
    LimitPeriod,
    longest_in_force,
)


@dataclass(frozen=True, slots=True)
class LimitStanding:
    """One period's limit and how much of it is used."""

    limit: DepositLimit
    """The limit, with any change waiting."""
    deposited_pence: Pence
    """Deposits in the window ending now."""


@dataclass(frozen=True, slots=True)
class Protection:
    """A player's protection now."""

    limits: Mapping[LimitPeriod, LimitStanding]
    """Every period's limit."""
    limits_answered: bool
    """Whether the player has set a limit or declined to."""
    exclusion: Exclusion | None
    """The time-out or self-exclusion in force, if any (:func:`exclusion_in_force`)."""
    reality_check_minutes: int
    """Minutes of play between reality checks."""
    now: dt.datetime
    """The server's time of this answer."""


def limits_by_period(uow: UnitOfWork, account_id: AccountId) -> Mapping[LimitPeriod, DepositLimit]:
    """Every period's limit (an empty one where none is stored)."""
    stored = {limit.period: limit for limit in uow.protection.limits(account_id)}
    return {p: stored.get(p, DepositLimit(account_id, p, None)) for p in LimitPeriod}


def deposited(deposits: Sequence[Movement], period: LimitPeriod, now: dt.datetime) -> Pence:
    """Deposits made in ``period``'s window ending at ``now``, and any stored with a later time
    (``limits.check_deposit``)."""
    start = now - period.window
    return sum(m.amount_pence for m in deposits if start < m.created_at)


def limit_standings(
    uow: UnitOfWork, account_id: AccountId, at: dt.datetime
) -> Mapping[LimitPeriod, LimitStanding]:
    """Every period's limit with what was deposited in its window ending at ``at``."""
    by_period = limits_by_period(uow, account_id)
    longest = max(p.window for p in LimitPeriod)
    deposits = uow.wallets.movements_since(account_id, MovementKind.DEPOSIT, at - longest)
    return {p: LimitStanding(by_period[p], deposited(deposits, p, at)) for p in LimitPeriod}


def last_self_exclusion(
    uow: UnitOfWork, account_id: AccountId, at: dt.datetime
) -> Exclusion | None:
    """The player's self-exclusion that ends last, with when they asked to play again: one of
    the breaks a purchase is checked against (``exclusions_to_check``), read the same way."""
    return max(
        (
            e
            for e in uow.protection.exclusions_to_check(account_id, at)
            if e.kind is ExclusionKind.SELF_EXCLUSION
        ),
        key=lambda e: e.ends_at,
        default=None,
    )


def exclusion_in_force(uow: UnitOfWork, account_id: AccountId, at: dt.datetime) -> Exclusion | None:
    """The break that refuses plays and deposits at ``at`` and lets go last: a time-out or
    self-exclusion whose term runs, or a self-exclusion whose term has ended, until a day after
    the player asked to play again (``Exclusion.in_force``): an account does not reopen by
    itself, and a time-out taken meanwhile does not hide it."""
    return longest_in_force(uow.protection.exclusions_to_check(account_id, at), at)


def standing(uow: UnitOfWork, account_id: AccountId, at: dt.datetime) -> Protection:
    """The player's protection at ``at``, read inside ``uow``."""
    settings = uow.protection.settings(account_id)
    return Protection(
        limits=limit_standings(uow, account_id, at),
        limits_answered=settings.limits_answered_at is not None,
        exclusion=exclusion_in_force(uow, account_id, at),
        reality_check_minutes=settings.reality_check_minutes,
        now=at,
    )


def overview(
    factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> Protection:
    """The logged-in player's protection."""
    at = now or utcnow()
    with factory() as uow:
        return standing(uow, live_session(uow, token, at).account_id, at)
