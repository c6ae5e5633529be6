"""Verifying the audit chain from the console, and remembering the result: the console shows
the last verification (when, by whom, how many entries, the last hash, or the first break)."""

from __future__ import annotations

import datetime as dt

from colour_collector.service import audit
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import AuditChainBrokenError
from colour_collector.service.models import AuditKind
from colour_collector.service.operators import current, operator_in
from colour_collector.service.ports import UnitOfWorkFactory
from colour_collector.service.protection_models import AuditCheck, OperatorRole


def verify(
    factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> AuditCheck:
    """Check the whole chain (``service.audit.verify_chain``), store the result and audit that
    it was done; a manager's action."""
    at = now or utcnow()
    operator = current(factory, token, OperatorRole.MANAGER, now=at)
    try:
        report = audit.verify_chain(factory)
        check = AuditCheck(at, operator.name, report.entries, report.last_hash, None)
    except AuditChainBrokenError as broken:
        intact = 0 if broken.seq is None else broken.seq - 1
        check = AuditCheck(at, operator.name, intact, "", str(broken))
    with factory() as uow:
        operator_in(uow, token, OperatorRole.MANAGER, at)
        uow.audit_checks.add(check)
        audit.append(
            uow,
            AuditKind.AUDIT_VERIFIED,
            None,
            {
                "operator": operator.name,
                "entries": check.entries,
                "last_hash": check.last_hash,
                "intact": check.problem is None,
            },
            now=at,
        )
        uow.commit()
    return check
