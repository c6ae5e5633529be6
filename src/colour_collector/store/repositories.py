"""Repositories over the tables of :mod:`colour_collector.store.tables`.

Each returns the frozen records of :mod:`colour_collector.service.models`, never rows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import (
    Connection,
    bindparam,
    delete,
    func,
    insert,
    select,
)
from sqlalchemy.exc import IntegrityError

from colour_collector.service.errors import EmailTakenError
from colour_collector.service.models import (
    Account,
    AccountId,
    AuditEntry,
    ChainHead,
    Movement,
    MovementKind,
    NewAuditEntry,
    Pence,
    StoredAccount,
)
from colour_collector.store import audit_chain
from colour_collector.store.prepared import Prepared
from colour_collector.store.tables import (
    accounts,
    audit_head,
    audit_log,
    ledger,
    login_failures,
    sessions,
)

GENESIS_HASH = "0" * 64

# Statements run on every request, built once and run as prepared statements (see ``prepared``):
# building a statement and running it through ``Connection.execute`` costs more than running it
# on SQLite. Values are bound at execution.
_ACCOUNT_BY_ID = Prepared(select(accounts).where(accounts.c.id == bindparam("account_id")))
_LOCK_ACCOUNT = Prepared(
    select(accounts.c.id).where(accounts.c.id == bindparam("account_id")).with_for_update()
)
_SESSION_ACCOUNT = Prepared(
    select(accounts)
    .join(sessions, sessions.c.account_id == accounts.c.id)
    .where(
        sessions.c.token_hash == bindparam("token_hash"), sessions.c.expires_at > bindparam("now")
    )
)
_LOCK_SESSION_ACCOUNT = Prepared(
    select(accounts.c.id)
    .join(sessions, sessions.c.account_id == accounts.c.id)
    .where(
        sessions.c.token_hash == bindparam("token_hash"), sessions.c.expires_at > bindparam("now")
    )
    .with_for_update(of=accounts)
)
_BALANCE = Prepared(
    select(func.coalesce(func.sum(ledger.c.amount_pence), 0).label("balance")).where(
        ledger.c.account_id == bindparam("account_id")
    )
)
_INSERT_MOVEMENT = insert(ledger).values(
    account_id=bindparam("m_account_id"),
    amount_pence=bindparam("m_amount_pence"),
    kind=bindparam("m_kind"),
    reference=bindparam("m_reference"),
    created_at=bindparam("m_created_at"),
)
_ADD_MOVEMENT = Prepared(_INSERT_MOVEMENT.returning(ledger.c.id))
_ADD_MOVEMENT_LATER = Prepared(_INSERT_MOVEMENT)


def _account(row: Any) -> Account:
    return Account(
        id=row.id,
        email=row.email,
        date_of_birth=row.date_of_birth,
        created_at=row.created_at,
    )


def _movement(row: Any) -> Movement:
    return Movement(
        id=row.id,
        account_id=row.account_id,
        amount_pence=int(row.amount_pence),
        kind=MovementKind(row.kind),
        reference=row.reference,
        created_at=row.created_at,
    )


class SqlAccountRepository:
    """Implements ``AccountRepository``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(
        self, *, email: str, password_hash: str, date_of_birth: dt.date, created_at: dt.datetime
    ) -> Account:
        values = {
            "email": email,
            "password_hash": password_hash,
            "date_of_birth": date_of_birth,
            "created_at": created_at,
        }
        try:
            with self.connection.begin_nested():
                new_id = self.connection.execute(
                    insert(accounts).values(values).returning(accounts.c.id)
                ).scalar_one()
        except IntegrityError:
            raise EmailTakenError(f"an account with e-mail {email!r} already exists") from None
        return Account(id=new_id, email=email, date_of_birth=date_of_birth, created_at=created_at)

    def get(self, account_id: AccountId) -> Account | None:
        row = _ACCOUNT_BY_ID.first(self.connection, {"account_id": account_id})
        return None if row is None else _account(row)

    def find_by_email(self, email: str) -> StoredAccount | None:
        row = self.connection.execute(select(accounts).where(accounts.c.email == email)).first()
        if row is None:
            return None
        return StoredAccount(account=_account(row), password_hash=row.password_hash)

    def lock(self, account_id: AccountId) -> bool:
        # FOR UPDATE is left out by SQLAlchemy on SQLite, where BEGIN IMMEDIATE serialises.
        return _LOCK_ACCOUNT.scalar(self.connection, {"account_id": account_id}) is not None


class SqlSessionRepository:
    """Implements ``SessionRepository``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(
        self,
        *,
        token_hash: str,
        account_id: AccountId,
        created_at: dt.datetime,
        expires_at: dt.datetime,
    ) -> None:
        self.connection.execute(
            insert(sessions).values(
                token_hash=token_hash,
                account_id=account_id,
                created_at=created_at,
                expires_at=expires_at,
            )
        )

    def lock_account_for(self, token_hash: str, now: dt.datetime) -> AccountId | None:
        # FOR UPDATE is left out by SQLAlchemy on SQLite, where BEGIN IMMEDIATE serialises.
        found = _LOCK_SESSION_ACCOUNT.scalar(
            self.connection, {"token_hash": token_hash, "now": now}
        )
        return None if found is None else int(found)

    def account_for(self, token_hash: str, now: dt.datetime) -> Account | None:
        row = _SESSION_ACCOUNT.first(self.connection, {"token_hash": token_hash, "now": now})
        return None if row is None else _account(row)

    def delete(self, token_hash: str) -> AccountId | None:
        found = self.connection.execute(
            delete(sessions)
            .where(sessions.c.token_hash == token_hash)
            .returning(sessions.c.account_id)
        ).scalar_one_or_none()
        return None if found is None else int(found)

    def live(
        self, token_hash: str, now: dt.datetime
    ) -> tuple[AccountId, dt.datetime, dt.datetime] | None:
        row = self.connection.execute(
            select(sessions.c.account_id, sessions.c.created_at, sessions.c.expires_at).where(
                sessions.c.token_hash == token_hash, sessions.c.expires_at > now
            )
        ).first()
        return None if row is None else (int(row.account_id), row.created_at, row.expires_at)

    def delete_expired(self, now: dt.datetime) -> int:
        result = self.connection.execute(delete(sessions).where(sessions.c.expires_at <= now))
        return int(getattr(result, "rowcount", 0))


class SqlLoginAttemptRepository:
    """Implements ``LoginAttemptRepository``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add_failure(self, *, email: str, client: str, at: dt.datetime) -> None:
        self.connection.execute(
            insert(login_failures).values(email=email, client=client[:255], created_at=at)
        )

    def failures_by_email(self, email: str, since: dt.datetime) -> Sequence[dt.datetime]:
        return (
            self.connection.execute(
                select(login_failures.c.created_at)
                .where(login_failures.c.email == email, login_failures.c.created_at >= since)
                .order_by(login_failures.c.created_at)
            )
            .scalars()
            .all()
        )

    def failures_by_client(self, client: str, since: dt.datetime) -> Sequence[dt.datetime]:
        return (
            self.connection.execute(
                select(login_failures.c.created_at)
                .where(
                    login_failures.c.client == client[:255], login_failures.c.created_at >= since
                )
                .order_by(login_failures.c.created_at)
            )
            .scalars()
            .all()
        )

    def clear_email(self, email: str) -> None:
        self.connection.execute(delete(login_failures).where(login_failures.c.email == email))

    def delete_before(self, before: dt.datetime) -> int:
        result = self.connection.execute(
            delete(login_failures).where(login_failures.c.created_at < before)
        )
        return int(getattr(result, "rowcount", 0))


def _movement_params(movement: Movement) -> dict[str, Any]:
    return {
        "m_account_id": movement.account_id,
        "m_amount_pence": movement.amount_pence,
        "m_kind": str(movement.kind),
        "m_reference": movement.reference,
        "m_created_at": movement.created_at,
    }


class SqlLedgerRepository:
    """Implements ``LedgerRepository``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(
        self,
        *,
        account_id: AccountId,
        amount_pence: Pence,
        kind: MovementKind,
        reference: str | None,
        created_at: dt.datetime,
    ) -> Movement:
        movement = Movement(0, account_id, amount_pence, kind, reference, created_at)
        new_id = _ADD_MOVEMENT.scalar(self.connection, _movement_params(movement))
        if new_id is None:
            raise RuntimeError("the ledger insert returned no id")
        return replace(movement, id=new_id)

    def add_later(
        self,
        *,
        account_id: AccountId,
        amount_pence: Pence,
        kind: MovementKind,
        reference: str | None,
        created_at: dt.datetime,
    ) -> None:
        movement = Movement(0, account_id, amount_pence, kind, reference, created_at)
        _ADD_MOVEMENT_LATER.send(self.connection, _movement_params(movement))

    def balance(self, account_id: AccountId) -> Pence:
        return int(_BALANCE.scalar(self.connection, {"account_id": account_id}) or 0)

    def totals_since(self, account_id: AccountId, since: dt.datetime) -> dict[MovementKind, Pence]:
        rows = self.connection.execute(
            select(ledger.c.kind, func.sum(ledger.c.amount_pence).label("total"))
            .where(ledger.c.account_id == account_id, ledger.c.created_at >= since)
            .group_by(ledger.c.kind)
        )
        return {MovementKind(row.kind): int(row.total) for row in rows}

    def recent(self, account_id: AccountId, limit: int) -> Sequence[Movement]:
        rows = self.connection.execute(
            select(ledger)
            .where(ledger.c.account_id == account_id)
            .order_by(ledger.c.id.desc())
            .limit(limit)
        ).all()
        return [_movement(row) for row in rows]

    def get(self, movement_id: int) -> Movement | None:
        row = self.connection.execute(select(ledger).where(ledger.c.id == movement_id)).first()
        return None if row is None else _movement(row)


class SqlAuditRepository:
    """Implements ``AuditRepository``. Appends serialise on the single ``audit_head`` row."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def append(self, entry: NewAuditEntry) -> None:
        audit_chain.append(self.connection, entry)

    def head(self) -> ChainHead:
        row = self.connection.execute(
            select(audit_head.c.seq, audit_head.c.hash).where(audit_head.c.id == 1)
        ).first()
        if row is None:
            return ChainHead(seq=0, hash=GENESIS_HASH)
        return ChainHead(seq=int(row.seq), hash=row.hash)

    def entries(self, after_seq: int = 0, limit: int = 1000) -> Sequence[AuditEntry]:
        rows = self.connection.execute(
            select(audit_log)
            .where(audit_log.c.seq > after_seq)
            .order_by(audit_log.c.seq)
            .limit(limit)
        ).all()
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
