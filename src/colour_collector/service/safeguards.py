"""The checks in front of a purchase and a deposit, in the unit of work that makes them.

A purchase is refused while sales are stopped, while the player is on a time-out or
self-excluded, and while the session's reality check is due (until the player continues). A
deposit is refused during a time-out or self-exclusion and over a deposit limit. Each raises a
``ServiceError`` naming why, before any money moves.
"""

from __future__ import annotations

import datetime as dt

from colour_collector.service import exclusions, limits, reality_checks, sales
from colour_collector.service.models import AccountId, Pence, Session
from colour_collector.service.ports import UnitOfWork


def before_purchase(uow: UnitOfWork, session: Session, at: dt.datetime) -> None:
    """Refuse a purchase by ``session``'s player at ``at`` if anything stands in its way."""
    sales.refuse_if_stopped(uow)
    exclusions.refuse_if_excluded(uow, session.account_id, at)
    reality_checks.refuse_if_due(uow, session, at)


def before_deposit(uow: UnitOfWork, account_id: AccountId, amount: Pence, at: dt.datetime) -> None:
    """Refuse a deposit of ``amount`` to a locked account at ``at`` during a break or over a
    limit."""
    exclusions.refuse_if_excluded(uow, account_id, at)
    limits.check_deposit_in(uow, account_id, amount, at)
