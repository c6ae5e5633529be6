"""The audit log's entries and its head: the single row naming the last entry, which a database
trigger moves to each entry as it is stored (migration 0004).

The entry's hash is computed by ``service.audit`` (the only place); this module stores it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, func, insert, select

from colour_collector.service.models import AuditEntry, ChainHead
from colour_collector.store.tables import audit_head, audit_log

HEAD_ROW = 1
"""Id of the single ``audit_head`` row (created by the first migration)."""
_HEAD = select(audit_head.c.seq, audit_head.c.hash).where(audit_head.c.id == HEAD_ROW)
_HEAD_FOR_UPDATE = _HEAD.with_for_update()
_ADD_ENTRY = insert(audit_log)


class SqlAuditLog:
    """Implements ``service.ports.AuditLog``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def _head(self, *, lock: bool) -> ChainHead:
        row = self.connection.execute(_HEAD_FOR_UPDATE if lock else _HEAD).first()
        if row is None:  # only a database the migrations did not make gets here
            raise RuntimeError("the audit_head row is missing; run the migrations")
        return ChainHead(seq=int(row.seq), hash=row.hash)

    def head(self) -> ChainHead:
        return self._head(lock=False)

    def head_for_update(self) -> ChainHead:
        return self._head(lock=True)

    def add(self, entry: AuditEntry) -> None:
        self.connection.execute(
            _ADD_ENTRY,
            {
                "seq": entry.seq,
                "created_at": entry.created_at,
                "kind": entry.kind,
                "account_id": entry.account_id,
                "payload": entry.payload,
                "prev_hash": entry.prev_hash,
                "hash": entry.hash,
            },
        )
        # The head row follows: the trigger audit_log_moves_head (migration 0004) moves it.

    def entries(self, after_seq: int = 0, limit: int = 1000) -> Sequence[AuditEntry]:
        rows = self.connection.execute(
            select(audit_log)
            .where(audit_log.c.seq > after_seq)
            .order_by(audit_log.c.seq)
            .limit(limit)
        )
        return [
            AuditEntry(
                seq=int(row.seq),
                created_at=row.created_at,
                kind=row.kind,
                account_id=row.account_id,
                payload=row.payload,
                prev_hash=row.prev_hash,
                hash=row.hash,
            )
            for row in rows
        ]

    def last_seq(self) -> int:
        return int(
            self.connection.execute(
                select(func.coalesce(func.max(audit_log.c.seq), 0))
            ).scalar_one()
        )
