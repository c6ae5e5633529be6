"""Deposits and withdrawals made through the payment provider."""

from __future__ import annotations

from sqlalchemy import Connection, insert, select

from colour_collector.service.models import AccountId
from colour_collector.service.protection_models import Payment, PaymentKind
from colour_collector.store.tables import payments


class SqlPayments:
    """Implements ``service.ports.Payments``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(self, payment: Payment) -> Payment:
        new_id = self.connection.execute(
            insert(payments)
            .values(
                account_id=payment.account_id,
                kind=payment.kind.value,
                amount_pence=payment.amount_pence,
                idempotency_key=payment.idempotency_key,
                provider_reference=payment.provider_reference,
                movement_id=payment.movement_id,
                created_at=payment.created_at,
            )
            .returning(payments.c.id)
        ).scalar_one()
        return Payment(
            new_id,
            payment.account_id,
            payment.kind,
            payment.amount_pence,
            payment.idempotency_key,
            payment.provider_reference,
            payment.movement_id,
            payment.created_at,
        )

    def by_idempotency_key(
        self, account_id: AccountId, kind: PaymentKind, key: str
    ) -> Payment | None:
        row = self.connection.execute(
            select(payments).where(
                payments.c.account_id == account_id,
                payments.c.kind == kind.value,
                payments.c.idempotency_key == key,
            )
        ).first()
        if row is None:
            return None
        return Payment(
            row.id,
            row.account_id,
            PaymentKind(row.kind),
            int(row.amount_pence),
            row.idempotency_key,
            row.provider_reference,
            row.movement_id,
            row.created_at,
        )
