"""Withdrawals through the payment provider.

Always allowed, during a time-out or self-exclusion too, up to the balance. Like a deposit, a
withdrawal carries an Idempotency-Key (the same key answers the withdrawal it made, and a
request of another amount with it is refused), and the wallet is debited, the provider paid and
the withdrawal audited in one transaction under the account's lock: a provider that refuses
leaves the balance as it was.
"""

from __future__ import annotations

import datetime as dt

from colour_collector.service import audit, payments
from colour_collector.service.accounts import live_session
from colour_collector.service.clock import utcnow
from colour_collector.service.deposits import PaymentMade
from colour_collector.service.errors import InsufficientFundsError
from colour_collector.service.idempotency import refuse_reuse
from colour_collector.service.models import AuditKind, MovementKind, Pence
from colour_collector.service.ports import PaymentProvider, UnitOfWorkFactory
from colour_collector.service.protection_models import Payment, PaymentKind


def withdraw(
    factory: UnitOfWorkFactory,
    token: str | None,
    amount_pence: Pence,
    *,
    idempotency_key: str | None,
    provider: PaymentProvider | None,
    now: dt.datetime | None = None,
) -> PaymentMade:
    """Pay ``amount_pence`` of the balance to the player through the provider."""
    amount = payments.check_amount(amount_pence)
    key = payments.check_key(idempotency_key)
    at = now or utcnow()
    with factory() as uow:
        account_id = live_session(uow, token, at, lock_account=True).account_id
        earlier = uow.payments.by_idempotency_key(account_id, PaymentKind.WITHDRAWAL, key)
        if earlier is not None:
            if earlier.amount_pence != amount:
                refuse_reuse(key, f"{earlier.kind.value} of {earlier.amount_pence} pence")
            return PaymentMade(earlier, uow.wallets.balance(account_id), created=False)
        balance = uow.wallets.balance(account_id)
        if balance < amount:
            raise InsufficientFundsError(
                f"balance is {balance} pence, {amount} pence asked for",
                balance_pence=balance,
                wanted_pence=amount,
            )
        reference = payments.require(provider).send_withdrawal(
            account_id=account_id,
            amount_pence=amount,
            key=payments.provider_key(PaymentKind.WITHDRAWAL, account_id, key),
        )
        movement = uow.wallets.add(
            account_id=account_id,
            amount_pence=-amount,
            kind=MovementKind.WITHDRAWAL,
            reference=reference,
            created_at=at,
        )
        made = uow.payments.add(
            Payment(0, account_id, PaymentKind.WITHDRAWAL, amount, key, reference, movement.id, at)
        )
        audit.append(
            uow,
            AuditKind.WITHDRAWAL,
            account_id,
            {
                "movement_id": movement.id,
                "payment_id": made.id,
                "amount_pence": amount,
                "provider_reference": reference,
                "idempotency_key": key,
            },
            now=at,
        )
        uow.commit()
    return PaymentMade(made, balance - amount, created=True)
