"""Reality checks: at the interval the player chose (60 minutes by default), the game pauses
before the next purchase and shows how long this login session has lasted and its net position.

The clock is the login session's: a check is due ``interval`` after the session started, or
after the player last chose to continue. A new login starts a new session, so its checks start
again from zero. Only a purchase waits for it: a play in progress is never interrupted.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from colour_collector.service import audit
from colour_collector.service.accounts import live_session
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import InvalidInputError, RealityCheckDueError
from colour_collector.service.models import AuditKind, MovementKind, Pence, Session
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory

INTERVAL_MINUTES = (10, 240)
"""Shortest and longest interval a player may choose, in minutes."""


@dataclass(frozen=True, slots=True)
class RealityCheck:
    """Where a login session is with its reality checks, and what a check shows."""

    interval_minutes: int
    """Minutes of play between checks."""
    started_at: dt.datetime
    """When the session started."""
    due_at: dt.datetime
    """When the next check is (or was) due."""
    played_seconds: int
    """Time since the session started."""
    staked_pence: Pence
    """Stakes paid in the session."""
    won_pence: Pence
    """Prizes credited in the session."""

    @property
    def net_pence(self) -> Pence:
        """Prizes minus stakes in the session."""
        return self.won_pence - self.staked_pence

    def due(self, now: dt.datetime) -> bool:
        """Whether a check must be seen before the next purchase."""
        return now >= self.due_at


def check_interval(minutes: object) -> int:
    """An interval as asked for: whole minutes within :data:`INTERVAL_MINUTES`."""
    low, high = INTERVAL_MINUTES
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not low <= minutes <= high:
        raise InvalidInputError(
            f"a reality check interval is {low} to {high} minutes, got {minutes!r}",
            field="interval_minutes",
        )
    return minutes


def due_at(session: Session, interval_minutes: int, last: dt.datetime | None) -> dt.datetime:
    """When the session's next check is due: an interval after it started or after the player
    last continued, whichever is later."""
    anchor = session.created_at if last is None else max(last, session.created_at)
    return anchor + dt.timedelta(minutes=interval_minutes)


def _check(uow: UnitOfWork, session: Session, at: dt.datetime, *, money: bool) -> RealityCheck:
    interval = uow.protection.settings(session.account_id).reality_check_minutes
    due = due_at(session, interval, uow.protection.last_reality_check(session.token_hash))
    totals = uow.wallets.totals_since(session.account_id, session.created_at) if money else {}
    return RealityCheck(
        interval_minutes=interval,
        started_at=session.created_at,
        due_at=due,
        played_seconds=max(0, int((at - session.created_at).total_seconds())),
        staked_pence=-totals.get(MovementKind.STAKE, 0),
        won_pence=totals.get(MovementKind.PRIZE, 0),
    )


def refuse_if_due(uow: UnitOfWork, session: Session, at: dt.datetime) -> None:
    """Raise :class:`RealityCheckDueError` if the session's check is due at ``at``."""
    interval = uow.protection.settings(session.account_id).reality_check_minutes
    due = due_at(session, interval, uow.protection.last_reality_check(session.token_hash))
    if at < due:
        return
    check = _check(uow, session, at, money=True)
    raise RealityCheckDueError(
        f"reality check: you have played for {check.played_seconds // 60} minutes this session"
        f" and your net position is {check.net_pence} pence; continue, see your history or"
        " log out before the next play",
        played_seconds=check.played_seconds,
        net_pence=check.net_pence,
        due_at=due,
    )


def look(
    factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> RealityCheck:
    """The session's reality check: interval, when it is due, time played, net position."""
    at = now or utcnow()
    with factory() as uow:
        session = live_session(uow, token, at)
        return _check(uow, session, at, money=True)


def continue_playing(
    factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> RealityCheck:
    """The player saw the check and chose to continue: the next is an interval from now. Before
    a check is due this changes nothing (and is not audited): continuing cannot put off a check
    the player has not been shown."""
    at = now or utcnow()
    with factory() as uow:
        session = live_session(uow, token, at, lock_account=True)
        seen = _check(uow, session, at, money=True)
        if not seen.due(at):
            return seen
        uow.protection.record_reality_check(session.token_hash, at)
        audit.append(
            uow,
            AuditKind.REALITY_CHECK,
            session.account_id,
            {"played_seconds": seen.played_seconds, "net_pence": seen.net_pence},
            now=at,
        )
        uow.commit()
    return replace(seen, due_at=at + dt.timedelta(minutes=seen.interval_minutes))


def set_interval(
    factory: UnitOfWorkFactory,
    token: str | None,
    minutes: int,
    *,
    now: dt.datetime | None = None,
) -> RealityCheck:
    """Choose the interval between checks (it applies to this session at once). Audited.

    A check due is seen first: :class:`RealityCheckDueError` for an interval that would put it
    off (a shorter one, which keeps it due, is taken), so that no check is skipped unseen."""
    interval = check_interval(minutes)
    at = now or utcnow()
    with factory() as uow:
        session = live_session(uow, token, at, lock_account=True)
        settings = uow.protection.settings(session.account_id)
        last = uow.protection.last_reality_check(session.token_hash)
        if due_at(session, interval, last) > at:
            refuse_if_due(uow, session, at)
        uow.protection.save_settings(replace(settings, reality_check_minutes=interval))
        audit.append(
            uow,
            AuditKind.REALITY_CHECK_SET,
            session.account_id,
            {"interval_minutes": interval},
            now=at,
        )
        check = _check(uow, session, at, money=True)
        uow.commit()
    return check
