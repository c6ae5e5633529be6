"""The wallet ledger, and the deposits and withdrawals made through the payment provider."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Protocol

from colour_collector.service.models import AccountId, Movement, MovementKind, Pence
from colour_collector.service.protection_models import Payment, PaymentKind


class Wallets(Protocol):
    """The wallet ledger: one row per movement; a balance is the sum of its account's rows.

    Callers lock the account (:meth:`Accounts.get_for_update`) before reading a balance they
    mean to change.
    """

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
        """Append one movement (with the Idempotency-Key it was asked for with, if one: a key
        is used at most once an account)."""
        ...

    def by_idempotency_key(self, account_id: AccountId, key: str) -> Movement | None:
        """The account's movement asked for with this Idempotency-Key, if any."""
        ...

    def after(self, movement_id: int, limit: int) -> Sequence[Movement]:
        """Every account's movements with an id above ``movement_id``, by id, at most
        ``limit`` (to read the whole ledger a batch at a time)."""
        ...

    def balance(self, account_id: AccountId) -> Pence:
        """The account's balance (0 without movements)."""
        ...

    def recent(self, account_id: AccountId, limit: int) -> Sequence[Movement]:
        """The account's latest movements, newest first."""
        ...

    def get(self, movement_id: int) -> Movement | None:
        """One movement by id."""
        ...

    def totals_since(
        self, account_id: AccountId, since: dt.datetime
    ) -> Mapping[MovementKind, Pence]:
        """The sum of the account's movements of each kind made at or after ``since``."""
        ...

    def movements_since(
        self, account_id: AccountId, kind: MovementKind, since: dt.datetime
    ) -> Sequence[Movement]:
        """The account's movements of ``kind`` made after ``since``, oldest first."""
        ...


class Payments(Protocol):
    """Deposits and withdrawals made through the payment provider."""

    def add(self, payment: Payment) -> Payment:
        """Store a payment (its ``id`` is ignored and returned set)."""
        ...

    def by_idempotency_key(
        self, account_id: AccountId, kind: PaymentKind, key: str
    ) -> Payment | None:
        """The account's payment of ``kind`` made with this Idempotency-Key."""
        ...
