"""The wallet: a ledger of signed movements in integer pence whose sum is the balance.

:func:`credit` and :func:`debit` run inside the caller's unit of work and do not commit, so a
purchase can ``debit`` the stake, store the play and ``audit.append`` in one transaction. Both
lock the account first (``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite every write unit of
work starts with ``BEGIN IMMEDIATE``), so the balance read and the new row cannot interleave
with another writer and the balance never goes below zero.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from colour_collector.service import audit
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    InsufficientFundsError,
    InvalidInputError,
    NotFoundError,
    TestDepositsDisabledError,
)
from colour_collector.service.models import (
    AccountId,
    AuditKind,
    Movement,
    MovementKind,
    Pence,
)
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory

MAX_TEST_DEPOSIT_PENCE: Pence = 100_000
"""Largest single test deposit: £1,000."""

MAX_MOVEMENTS_PAGE = 100
"""Most movements one statement returns."""


def _check_positive(amount_pence: Pence) -> None:
    if isinstance(amount_pence, bool) or not isinstance(amount_pence, int):
        raise InvalidInputError(
            f"amount must be an integer number of pence, got {amount_pence!r}",
            field="amount_pence",
        )
    if amount_pence <= 0:
        raise InvalidInputError(
            f"amount must be positive, got {amount_pence!r} pence", field="amount_pence"
        )


def balance(uow: UnitOfWork, account_id: AccountId) -> Pence:
    """The balance: the sum of the ledger rows of the account."""
    return uow.ledger.balance(account_id)


def credit(
    uow: UnitOfWork,
    account_id: AccountId,
    amount_pence: Pence,
    kind: MovementKind,
    *,
    reference: str | None = None,
    now: dt.datetime | None = None,
) -> Movement:
    """Add ``amount_pence`` (> 0) to the wallet inside ``uow``; the caller commits."""
    _check_positive(amount_pence)
    if not uow.accounts.lock(account_id):
        raise NotFoundError(f"no account with id {account_id!r}")
    return uow.ledger.add(
        account_id=account_id,
        amount_pence=amount_pence,
        kind=kind,
        reference=reference,
        created_at=now or utcnow(),
    )


def credit_locked(
    uow: UnitOfWork,
    account_id: AccountId,
    amount_pence: Pence,
    kind: MovementKind,
    *,
    reference: str | None,
    now: dt.datetime,
) -> None:
    """:func:`credit` for a caller that holds the account's lock in ``uow``; the movement is
    written with the unit of work's next statement or its commit."""
    _check_positive(amount_pence)
    uow.ledger.add_later(
        account_id=account_id,
        amount_pence=amount_pence,
        kind=kind,
        reference=reference,
        created_at=now,
    )


def debit_locked(
    uow: UnitOfWork,
    account_id: AccountId,
    amount_pence: Pence,
    kind: MovementKind,
    *,
    balance_pence: Pence,
    reference: str | None,
    now: dt.datetime,
) -> None:
    """:func:`debit` for a caller that holds the account's lock in ``uow`` and has read its
    balance since (``balance_pence``); the movement is written with the unit of work's next
    statement or its commit. Raises :class:`InsufficientFundsError` (writing nothing)."""
    _check_positive(amount_pence)
    _check_covers(balance_pence, amount_pence)
    uow.ledger.add_later(
        account_id=account_id,
        amount_pence=-amount_pence,
        kind=kind,
        reference=reference,
        created_at=now,
    )


def _check_covers(balance_pence: Pence, amount_pence: Pence) -> None:
    if balance_pence < amount_pence:
        raise InsufficientFundsError(
            f"balance is {balance_pence} pence, {amount_pence} pence needed",
            balance_pence=balance_pence,
            wanted_pence=amount_pence,
        )


def debit(
    uow: UnitOfWork,
    account_id: AccountId,
    amount_pence: Pence,
    kind: MovementKind,
    *,
    reference: str | None = None,
    now: dt.datetime | None = None,
) -> Movement:
    """Take ``amount_pence`` (> 0) from the wallet inside ``uow``; the caller commits.

    Raises :class:`InsufficientFundsError` (writing nothing) if the balance is smaller.
    """
    _check_positive(amount_pence)
    if not uow.accounts.lock(account_id):
        raise NotFoundError(f"no account with id {account_id!r}")
    _check_covers(uow.ledger.balance(account_id), amount_pence)
    return uow.ledger.add(
        account_id=account_id,
        amount_pence=-amount_pence,
        kind=kind,
        reference=reference,
        created_at=now or utcnow(),
    )


@dataclass(frozen=True, slots=True)
class Statement:
    """A wallet's balance and its latest movements."""

    balance_pence: Pence
    """Current balance."""
    movements: Sequence[Movement]
    """Latest movements, newest first."""


def statement(uow_factory: UnitOfWorkFactory, account_id: AccountId, limit: int = 20) -> Statement:
    """Balance and latest movements, read in one transaction."""
    if not 1 <= limit <= MAX_MOVEMENTS_PAGE:
        raise InvalidInputError(
            f"limit must be between 1 and {MAX_MOVEMENTS_PAGE}, got {limit!r}", field="limit"
        )
    with uow_factory(write=False) as uow:
        return Statement(
            balance_pence=uow.ledger.balance(account_id),
            movements=tuple(uow.ledger.recent(account_id, limit)),
        )


def movement(uow_factory: UnitOfWorkFactory, account_id: AccountId, movement_id: int) -> Movement:
    """One movement of the account's wallet; :class:`NotFoundError` if not there or not theirs."""
    with uow_factory(write=False) as uow:
        found = uow.ledger.get(movement_id)
    if found is None or found.account_id != account_id:
        raise NotFoundError(f"no movement with id {movement_id!r} in this wallet")
    return found


@dataclass(frozen=True, slots=True)
class Deposit:
    """The result of a test deposit."""

    movement: Movement
    """The ledger row written."""
    balance_pence: Pence
    """Balance after the deposit."""


def test_deposit(
    uow_factory: UnitOfWorkFactory,
    account_id: AccountId,
    amount_pence: Pence,
    *,
    enabled: bool,
    max_pence: Pence = MAX_TEST_DEPOSIT_PENCE,
) -> Deposit:
    """Credit test funds (test environments only), audited, in one transaction."""
    if not enabled:
        raise TestDepositsDisabledError("test deposits are disabled on this server")
    _check_positive(amount_pence)
    if amount_pence > max_pence:
        raise InvalidInputError(
            f"a test deposit is at most {max_pence} pence, got {amount_pence!r}",
            field="amount_pence",
        )
    with uow_factory() as uow:
        row = credit(uow, account_id, amount_pence, MovementKind.DEPOSIT, reference="test deposit")
        audit.append(
            uow,
            AuditKind.DEPOSIT,
            account_id,
            {"movement_id": row.id, "amount_pence": amount_pence, "test": True},
            now=row.created_at,
        )
        new_balance = uow.ledger.balance(account_id)
        uow.commit()
    return Deposit(movement=row, balance_pence=new_balance)
