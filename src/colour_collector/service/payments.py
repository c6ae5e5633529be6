"""What deposits and withdrawals share: the Idempotency-Key they require, the amounts they
accept, and the simulated payment provider that development and test servers use.

There is no real provider in this repository: a production server has none configured, and its
deposits and withdrawals answer ``PaymentsUnavailableError`` until one is written against
``service.ports.PaymentProvider``.
"""

from __future__ import annotations

import hashlib

from colour_collector.service.errors import InvalidInputError, PaymentsUnavailableError
from colour_collector.service.idempotency import MAX_IDEMPOTENCY_KEY, check_idempotency_key
from colour_collector.service.models import AccountId, Pence
from colour_collector.service.ports import PaymentProvider
from colour_collector.service.protection_models import PaymentKind

MAX_PAYMENT_PENCE: Pence = 1_000_000
"""Largest single deposit or withdrawal: £10,000."""


def check_amount(amount_pence: object) -> Pence:
    """A payment's amount: 1 to :data:`MAX_PAYMENT_PENCE` pence."""
    if isinstance(amount_pence, bool) or not isinstance(amount_pence, int):
        raise InvalidInputError(
            f"amount must be a whole number of pence, got {amount_pence!r}", field="amount_pence"
        )
    if not 0 < amount_pence <= MAX_PAYMENT_PENCE:
        raise InvalidInputError(
            f"amount must be 1 to {MAX_PAYMENT_PENCE} pence, got {amount_pence!r}",
            field="amount_pence",
        )
    return amount_pence


def check_key(key: str | None) -> str:
    """The Idempotency-Key a payment must carry: 1 to 255 printable ASCII characters."""
    checked = check_idempotency_key(key)
    if checked is None:
        raise InvalidInputError(
            f"a payment needs an Idempotency-Key of 1 to {MAX_IDEMPOTENCY_KEY} characters, so"
            " that a retried request never moves money twice",
            field="Idempotency-Key",
        )
    return checked


def provider_key(kind: PaymentKind, account_id: AccountId, key: str) -> str:
    """The key the provider is given: the player's key, made unique across players and kinds."""
    return f"{kind.value}:{account_id}:{key}"


def require(provider: PaymentProvider | None) -> PaymentProvider:
    """``provider``, or :class:`PaymentsUnavailableError` when the server has none."""
    if provider is None:
        raise PaymentsUnavailableError("no payment provider is configured on this server")
    return provider


class SimulatedPaymentProvider:
    """A payment provider that accepts every payment and moves no real money (development and
    test servers). Its reference is derived from the key, so a repeated key answers the same."""

    def take_deposit(self, *, account_id: AccountId, amount_pence: Pence, key: str) -> str:
        """Accept the deposit."""
        return _reference("dep", key)

    def send_withdrawal(self, *, account_id: AccountId, amount_pence: Pence, key: str) -> str:
        """Accept the withdrawal."""
        return _reference("wd", key)


def _reference(prefix: str, key: str) -> str:
    return f"sim-{prefix}-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:20]}"
