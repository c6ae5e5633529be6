"""Appending to the audit log: lock the chain head, hash and insert the entry, move the head.

On SQLite the write lock is already held (``BEGIN IMMEDIATE``), so this is three statements and
no round trips. On PostgreSQL it is one statement (the head locked by its first CTE, the hash
computed in SQL), so the head stays locked only while PostgreSQL itself works; :func:`after`
builds the same statement behind another write, appending the entry only if that write wrote a
row.
"""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy import Connection, TextClause, bindparam, insert, select, text, update

from colour_collector.service.models import NewAuditEntry
from colour_collector.store.prepared import Prepared
from colour_collector.store.tables import UtcDateTime, audit_head, audit_log

_LOCK_HEAD = Prepared(
    select(audit_head.c.seq, audit_head.c.hash).where(audit_head.c.id == 1).with_for_update()
)
_APPEND_ENTRY = Prepared(
    insert(audit_log).values(
        seq=bindparam("e_seq"),
        created_at=bindparam("e_created_at"),
        kind=bindparam("e_kind"),
        account_id=bindparam("e_account_id"),
        payload=bindparam("e_payload"),
        prev_hash=bindparam("e_prev_hash"),
        hash=bindparam("e_hash"),
    )
)
_MOVE_HEAD = Prepared(
    update(audit_head)
    .where(audit_head.c.id == 1)
    .values(seq=bindparam("e_seq"), hash=bindparam("e_hash"))
)


def _chain_sql(first: str = "", source: str = "(VALUES (1)) AS one (n)", guard: str = "") -> str:
    """The PostgreSQL statement appending the entry bound as ``:e_*``, after the CTE ``first``
    (with its trailing comma), once for the one row of ``source``, the head locked if ``guard``.

    The head is locked by the ``head`` CTE; the final UPDATE then moves that same (locked, so
    latest) row. Without a head row the entry's seq is NULL and the insert fails, instead of
    appending nothing.
    """
    return f"""
WITH {first}head AS (
    SELECT seq, hash FROM audit_head WHERE id = 1{guard} FOR UPDATE
), entry AS (
    INSERT INTO audit_log (seq, created_at, kind, account_id, payload, prev_hash, hash)
    SELECT head.seq + 1, :e_created_at, CAST(:e_kind AS VARCHAR),
           CAST(:e_account_id AS INTEGER), CAST(:e_payload AS TEXT), head.hash,
           encode(sha256(convert_to(
               '[' || (head.seq + 1) || ',' || CAST(:e_hashed AS TEXT) || ',"' || head.hash
               || '"]', 'UTF8')), 'hex')
    FROM {source} LEFT JOIN head ON true
    RETURNING seq, hash
)
UPDATE audit_head SET seq = entry.seq, hash = entry.hash FROM entry WHERE audit_head.id = 1
"""


def _typed(statement: TextClause) -> TextClause:
    return statement.bindparams(bindparam("e_created_at", type_=UtcDateTime()))


_CHAIN_ENTRY = Prepared(_typed(text(_chain_sql())))


def after(name: str, write: str) -> TextClause:
    """A PostgreSQL statement: the CTE ``name AS (write)``, then, only if it gives a row (it
    must give at most one: one entry is appended for each), the entry bound as ``:e_*``
    appended. The head is locked after ``write`` has run (its ``EXISTS`` guard makes that so
    whatever plan PostgreSQL picks), so a step takes its locks in the same order as everywhere
    else: the play, then the head. It returns the new head's ``seq``: no row when nothing was
    appended."""
    sql = _chain_sql(
        first=f"{name} AS ({write}), ",
        source=name,
        guard=f" AND EXISTS (SELECT FROM {name})",
    )
    return _typed(text(sql + "RETURNING audit_head.seq"))


def values(entry: NewAuditEntry) -> dict[str, Any]:
    """``entry`` as the ``:e_*`` parameters of this module's statements."""
    return {
        "e_created_at": entry.created_at,
        "e_kind": entry.kind,
        "e_account_id": entry.account_id,
        "e_payload": entry.payload,
        "e_hashed": entry.hashed,
    }


def append(connection: Connection, entry: NewAuditEntry) -> None:
    """Append ``entry`` in the connection's transaction (on PostgreSQL, queued: sent with the
    next read or the commit)."""
    if connection.dialect.name == "postgresql":
        _CHAIN_ENTRY.send(connection, values(entry))
        return
    head = _LOCK_HEAD.first(connection, {})
    if head is None:
        raise RuntimeError("audit_head row is missing; run the migrations")
    seq, prev_hash = int(head.seq) + 1, head.hash
    text_hashed = f'[{seq},{entry.hashed},"{prev_hash}"]'
    digest = hashlib.sha256(text_hashed.encode("ascii")).hexdigest()
    chained = {"e_seq": seq, "e_prev_hash": prev_hash, "e_hash": digest}
    _APPEND_ENTRY.send(connection, {**values(entry), **chained})  # e_hashed is not bound here
    _MOVE_HEAD.send(connection, {"e_seq": seq, "e_hash": digest})
