"""The audit log's entries and its head: the single row naming the last entry, which a database
trigger moves to each entry as it is stored (migration 0004).

An entry is chained in one statement, the only place a chain hash is computed: it locks the head
row, stores the entry with the next ``seq``, the head's hash as ``prev_hash`` and its own hash
(SHA-256, in the database: ``audit_sha256``, migration 0005 on PostgreSQL, a function of the
connection on SQLite), and returns it. No hashing in Python happens while the head is locked;
on PostgreSQL it stays locked until the unit of work commits. ``service.audit.entry_hash``
recomputes every hash independently when the chain is verified.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlalchemy import (
    ColumnElement,
    Connection,
    Executable,
    Integer,
    String,
    Text,
    and_,
    bindparam,
    cast,
    func,
    insert,
    literal,
    select,
)

from colour_collector.service.models import AuditEntry, ChainHead, NewAuditEntry
from colour_collector.store.tables import UtcDateTime, audit_head, audit_log

HEAD_ROW = 1
"""Id of the single ``audit_head`` row (created by the first migration)."""
HASH_FUNCTION = "audit_sha256"
"""The SQL function hashing an entry's canonical text: SHA-256 of its UTF-8 bytes, in hex."""
_HEAD = select(audit_head.c.seq, audit_head.c.hash).where(audit_head.c.id == HEAD_ROW)


def sha256_hex(text: str) -> str:
    """``audit_sha256`` as SQLite runs it (registered on every connection by the store)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _chain() -> Executable:
    seq = audit_head.c.seq + 1
    canonical = (
        literal("[", String)
        + cast(seq, String)
        + literal(",", String)
        + bindparam("hashed", type_=Text)
        + literal(',"', String)
        + audit_head.c.hash
        + literal('"]', String)
    )
    chained = (
        select(
            seq,
            bindparam("created_at", type_=UtcDateTime),
            bindparam("kind", type_=String),
            bindparam("account_id", type_=Integer),
            bindparam("payload", type_=Text),
            audit_head.c.hash,
            getattr(func, HASH_FUNCTION)(canonical, type_=String),
        )
        .where(audit_head.c.id == HEAD_ROW)
        .with_for_update()
    )
    columns = ["seq", "created_at", "kind", "account_id", "payload", "prev_hash", "hash"]
    return (
        insert(audit_log)
        .from_select(columns, chained)
        .returning(audit_log.c.seq, audit_log.c.prev_hash, audit_log.c.hash)
    )


_APPEND = _chain()


class SqlAuditLog:
    """Implements ``service.ports.AuditLog``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def head(self) -> ChainHead:
        row = self.connection.execute(_HEAD).first()
        if row is None:  # only a database the migrations did not make gets here
            raise RuntimeError("the audit_head row is missing; run the migrations")
        return ChainHead(seq=int(row.seq), hash=row.hash)

    def append(self, entry: NewAuditEntry) -> AuditEntry:
        row = self.connection.execute(
            _APPEND,
            {
                "hashed": entry.hashed,
                "created_at": entry.created_at,
                "kind": entry.kind,
                "account_id": entry.account_id,
                "payload": entry.payload,
            },
        ).first()
        if row is None:  # only a database the migrations did not make gets here
            raise RuntimeError("the audit_head row is missing; run the migrations")
        return AuditEntry(
            seq=int(row.seq),
            created_at=entry.created_at,
            kind=entry.kind,
            account_id=entry.account_id,
            payload=entry.payload,
            prev_hash=row.prev_hash,
            hash=row.hash,
        )

    def entries(self, after_seq: int = 0, limit: int = 1000) -> Sequence[AuditEntry]:
        return self._read(audit_log.c.seq > after_seq, limit)

    def entries_of(self, kind: str, after_seq: int = 0, limit: int = 1000) -> Sequence[AuditEntry]:
        return self._read(and_(audit_log.c.seq > after_seq, audit_log.c.kind == kind), limit)

    def _read(self, where: ColumnElement[bool], limit: int) -> Sequence[AuditEntry]:
        rows = self.connection.execute(
            select(audit_log).where(where).order_by(audit_log.c.seq).limit(limit)
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
