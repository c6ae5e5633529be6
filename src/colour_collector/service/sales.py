"""The sales switch: an operator stops and restarts sales of the game.

Stopping sales refuses new purchases from the next one on; plays already bought go on, finish
and pay as usual (steps and FINISH do not look at the switch), and so does the auto-finisher.
The switch is one row shared by every server process; each change is audited with the operator
who made it.
"""

from __future__ import annotations

import datetime as dt
import unicodedata

from colour_collector.service import audit
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import InvalidInputError, SalesStoppedError
from colour_collector.service.models import AuditKind
from colour_collector.service.operators import operator_in
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory
from colour_collector.service.protection_models import OperatorRole, SalesState

MAX_REASON = 500
"""Longest reason an operator may give."""


def refuse_if_stopped(uow: UnitOfWork) -> None:
    """Raise :class:`SalesStoppedError` when sales are stopped. Read by a purchase: a stop
    waits for the purchases that found sales on to be committed (``state_for_sale``)."""
    if not uow.sales.state_for_sale().on_sale:
        raise SalesStoppedError("sales of Colour Collector are stopped: no plays are on sale")


def state(
    factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> SalesState:
    """The switch, for an operator."""
    with factory() as uow:
        operator_in(uow, token, OperatorRole.VIEWER, now or utcnow())
        return uow.sales.state()


def switch(
    factory: UnitOfWorkFactory,
    token: str | None,
    *,
    on_sale: bool,
    reason: str,
    now: dt.datetime | None = None,
) -> SalesState:
    """Stop (``on_sale`` False) or restart sales; a manager's action, audited with the reason.
    Setting the switch where it already is changes nothing and writes nothing."""
    cleaned = reason.strip()
    if not 0 < len(cleaned) <= MAX_REASON:
        raise InvalidInputError(
            f"say why, in 1 to {MAX_REASON} characters (got {len(cleaned)})", field="reason"
        )
    # A NUL (which PostgreSQL cannot store), a line break, a tab; a bidirectional override or a
    # zero-width mark, which would make the audit log and the console show another text.
    control = next((c for c in cleaned if unicodedata.category(c).startswith("C")), None)
    if control is not None:
        raise InvalidInputError(
            "say why on one line, without control or format characters such as"
            f" U+{ord(control):04X} ({unicodedata.name(control, 'unnamed')})",
            field="reason",
        )
    at = now or utcnow()
    with factory() as uow:
        operator = operator_in(uow, token, OperatorRole.MANAGER, at)
        before = uow.sales.state_for_update()
        if before.on_sale == on_sale:
            return before
        after = SalesState(on_sale=on_sale, changed_at=at, changed_by=operator.name, reason=cleaned)
        uow.sales.save(after)
        audit.append(
            uow,
            AuditKind.SALES_STARTED if on_sale else AuditKind.SALES_STOPPED,
            None,
            {"operator": operator.name, "reason": cleaned},
            now=at,
        )
        uow.commit()
    return after
