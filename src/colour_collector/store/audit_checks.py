"""Results of verifying the audit chain from the console."""

from __future__ import annotations

from sqlalchemy import Connection, insert, select

from colour_collector.service.protection_models import AuditCheck
from colour_collector.store.tables import audit_checks


class SqlAuditChecks:
    """Implements ``service.ports.AuditChecks``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(self, check: AuditCheck) -> None:
        self.connection.execute(
            insert(audit_checks).values(
                checked_at=check.checked_at,
                operator=check.operator,
                entries=check.entries,
                last_hash=check.last_hash,
                problem=check.problem,
            )
        )

    def last(self) -> AuditCheck | None:
        row = self.connection.execute(
            select(audit_checks).order_by(audit_checks.c.id.desc()).limit(1)
        ).first()
        if row is None:
            return None
        return AuditCheck(
            row.checked_at, row.operator, int(row.entries), row.last_hash, row.problem
        )
