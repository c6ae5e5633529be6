"""Deposits through the payment provider.

A deposit carries an Idempotency-Key: the same key answers the deposit it made and moves no more
money, and a request of another amount with it is refused. The player must have been asked about
deposit limits first (set one or decline), and a deposit is refused during a time-out or
self-exclusion and over a limit (``safeguards``). The provider is asked only after every check
has passed, inside the unit of work that credits the wallet and audits the deposit; it is given a
key derived from the player's, so a retry after a lost commit is not charged twice.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from colour_collector.service import audit, payments, safeguards
from colour_collector.service.accounts import live_session
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import DepositLimitsUnansweredError
from colour_collector.service.idempotency import refuse_reuse
from colour_collector.service.models import AuditKind, MovementKind, Pence
from colour_collector.service.ports import PaymentProvider, UnitOfWorkFactory
from colour_collector.service.protection_models import Payment, PaymentKind
from colour_collector.service.wallet import credit


@dataclass(frozen=True, slots=True)
class PaymentMade:
    """The answer to a deposit or a withdrawal."""

    payment: Payment
    """The payment (made now, or earlier with the same key)."""
    balance_pence: Pence
    """The wallet balance after the request."""
    created: bool
    """Whether this request made it (False: an Idempotency-Key repeat)."""


def deposit(
    factory: UnitOfWorkFactory,
    token: str | None,
    amount_pence: Pence,
    *,
    idempotency_key: str | None,
    provider: PaymentProvider | None,
    now: dt.datetime | None = None,
) -> PaymentMade:
    """Take ``amount_pence`` through the provider into the wallet, in one transaction."""
    amount = payments.check_amount(amount_pence)
    key = payments.check_key(idempotency_key)
    at = now or utcnow()
    with factory() as uow:
        account_id = live_session(uow, token, at, lock_account=True).account_id
        earlier = uow.payments.by_idempotency_key(account_id, PaymentKind.DEPOSIT, key)
        if earlier is not None:
            if earlier.amount_pence != amount:
                refuse_reuse(key, f"{earlier.kind.value} of {earlier.amount_pence} pence")
            return PaymentMade(earlier, uow.wallets.balance(account_id), created=False)
        if uow.protection.settings(account_id).limits_answered_at is None:
            raise DepositLimitsUnansweredError(
                "set a deposit limit, or decline to, before your first deposit"
            )
        safeguards.before_deposit(uow, account_id, amount, at)
        reference = payments.require(provider).take_deposit(
            account_id=account_id,
            amount_pence=amount,
            key=payments.provider_key(PaymentKind.DEPOSIT, account_id, key),
        )
        movement = credit(
            uow, account_id, amount, MovementKind.DEPOSIT, reference=reference, now=at
        )
        made = uow.payments.add(
            Payment(0, account_id, PaymentKind.DEPOSIT, amount, key, reference, movement.id, at)
        )
        balance = uow.wallets.balance(account_id)
        audit.append(
            uow,
            AuditKind.DEPOSIT,
            account_id,
            {
                "movement_id": movement.id,
                "payment_id": made.id,
                "amount_pence": amount,
                "provider_reference": reference,
                "idempotency_key": key,
                "test": False,
            },
            now=at,
        )
        uow.commit()
    return PaymentMade(made, balance, created=True)
