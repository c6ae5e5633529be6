"""The services outside the game that the use cases call: mail to players, sent outside any
unit of work, and the payment provider, called inside one with an idempotency key
(decision 0160)."""

from __future__ import annotations

from typing import Protocol

from colour_collector.service.models import AccountId, Pence


class Mailer(Protocol):
    """Sends e-mail to players (outside any unit of work: a mail cannot be rolled back)."""

    def send(self, to: str, subject: str, text: str) -> None:
        """Send a plain-text mail; raise ``OSError`` (or ``smtplib.SMTPException``, an
        ``OSError``) when it cannot be handed over."""
        ...


class PaymentProvider(Protocol):
    """The payment provider: takes deposits from and pays withdrawals to a player.

    A call with a key already used answers as the first call did and moves no more money, so a
    request retried after a lost answer or a failed commit is safe."""

    def take_deposit(self, *, account_id: AccountId, amount_pence: Pence, key: str) -> str:
        """Take ``amount_pence`` from the player; the provider's reference. Raise
        ``PaymentDeclinedError`` if refused."""
        ...

    def send_withdrawal(self, *, account_id: AccountId, amount_pence: Pence, key: str) -> str:
        """Pay ``amount_pence`` to the player; the provider's reference. Raise
        ``PaymentDeclinedError`` if refused."""
        ...
