"""The wallet ledger: one row per movement."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, func, insert, select

from colour_collector.service.models import AccountId, Movement, MovementKind, Pence
from colour_collector.store.tables import ledger

_BALANCE = select(func.coalesce(func.sum(ledger.c.amount_pence), 0)).where(
    ledger.c.account_id == bindparam("account_id")
)
_ADD = insert(ledger).returning(ledger.c.id)
_BY_KEY = select(ledger).where(
    ledger.c.account_id == bindparam("account_id"),
    ledger.c.idempotency_key == bindparam("idempotency_key"),
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


class SqlWallets:
    """Implements ``service.ports.Wallets``."""

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
        idempotency_key: str | None = None,
    ) -> Movement:
        new_id = self.connection.execute(
            _ADD,
            {
                "account_id": account_id,
                "amount_pence": amount_pence,
                "kind": kind.value,
                "reference": reference,
                "created_at": created_at,
                "idempotency_key": idempotency_key,
            },
        ).scalar_one()
        return Movement(new_id, account_id, amount_pence, kind, reference, created_at)

    def by_idempotency_key(self, account_id: AccountId, key: str) -> Movement | None:
        row = self.connection.execute(
            _BY_KEY, {"account_id": account_id, "idempotency_key": key}
        ).first()
        return None if row is None else _movement(row)

    def after(self, movement_id: int, limit: int) -> Sequence[Movement]:
        rows = self.connection.execute(
            select(ledger).where(ledger.c.id > movement_id).order_by(ledger.c.id).limit(limit)
        )
        return [_movement(row) for row in rows]

    def balance(self, account_id: AccountId) -> Pence:
        return int(self.connection.execute(_BALANCE, {"account_id": account_id}).scalar_one())

    def recent(self, account_id: AccountId, limit: int) -> Sequence[Movement]:
        rows = self.connection.execute(
            select(ledger)
            .where(ledger.c.account_id == account_id)
            .order_by(ledger.c.id.desc())
            .limit(limit)
        )
        return [_movement(row) for row in rows]

    def get(self, movement_id: int) -> Movement | None:
        row = self.connection.execute(select(ledger).where(ledger.c.id == movement_id)).first()
        return None if row is None else _movement(row)

    def totals_since(
        self, account_id: AccountId, since: dt.datetime
    ) -> Mapping[MovementKind, Pence]:
        rows = self.connection.execute(
            select(ledger.c.kind, func.sum(ledger.c.amount_pence).label("total"))
            .where(ledger.c.account_id == account_id, ledger.c.created_at >= since)
            .group_by(ledger.c.kind)
        )
        return {MovementKind(row.kind): int(row.total) for row in rows}

    def movements_since(
        self, account_id: AccountId, kind: MovementKind, since: dt.datetime
    ) -> Sequence[Movement]:
        rows = self.connection.execute(
            select(ledger)
            .where(
                ledger.c.account_id == account_id,
                ledger.c.kind == kind.value,
                ledger.c.created_at > since,
            )
            .order_by(ledger.c.created_at, ledger.c.id)
        )
        return [_movement(row) for row in rows]
