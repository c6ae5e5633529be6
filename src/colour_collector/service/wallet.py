"""The wallet: a ledger of signed movements in integer pence whose sum is the balance.

:func:`credit` and :func:`debit` run inside the caller's unit of work and do not commit, so a
purchase debits the stake, stores the play and appends to the audit log in one transaction. The
caller has locked the account (:meth:`~colour_collector.service.ports.Accounts.get_for_update`
or a session read ``lock_account=True``), so a balance read and the movement written after it
cannot interleave with another writer, and a balance never goes below zero.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from colour_collector.service import audit, safeguards
from colour_collector.service.accounts import live_session
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    InsufficientFundsError,
    InvalidInputError,
    NotFoundError,
    TestDepositsDisabledError,
)
from colour_collector.service.idempotency import check_idempotency_key, refuse_reuse
from colour_collector.service.models import AccountId, AuditKind, Movement, MovementKind, Pence
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


def credit(
    uow: UnitOfWork,
    account_id: AccountId,
    amount_pence: Pence,
    kind: MovementKind,
    *,
    reference: str | None,
    now: dt.datetime,
    idempotency_key: str | None = None,
) -> Movement:
    """Add ``amount_pence`` (> 0) to a locked account's wallet inside ``uow``."""
    _check_positive(amount_pence)
    return uow.wallets.add(
        account_id=account_id,
        amount_pence=amount_pence,
        kind=kind,
        reference=reference,
        created_at=now,
        idempotency_key=idempotency_key,
    )


def debit(
    uow: UnitOfWork,
    account_id: AccountId,
    amount_pence: Pence,
    kind: MovementKind,
    *,
    reference: str | None,
    now: dt.datetime,
) -> Pence:
    """Take ``amount_pence`` (> 0) from a locked account's wallet inside ``uow``; the balance
    after. Raises :class:`InsufficientFundsError` (writing nothing) if the balance is smaller."""
    _check_positive(amount_pence)
    balance = uow.wallets.balance(account_id)
    if balance < amount_pence:
        raise InsufficientFundsError(
            f"balance is {balance} pence, {amount_pence} pence needed",
            balance_pence=balance,
            wanted_pence=amount_pence,
        )
    uow.wallets.add(
        account_id=account_id,
        amount_pence=-amount_pence,
        kind=kind,
        reference=reference,
        created_at=now,
    )
    return balance - amount_pence


@dataclass(frozen=True, slots=True)
class Statement:
    """A wallet's balance and its latest movements."""

    balance_pence: Pence
    """Current balance."""
    movements: Sequence[Movement]
    """Latest movements, newest first."""


def statement(
    factory: UnitOfWorkFactory,
    token: str | None,
    limit: int = 20,
    *,
    now: dt.datetime | None = None,
) -> Statement:
    """The logged-in player's balance and latest movements."""
    if not 1 <= limit <= MAX_MOVEMENTS_PAGE:
        raise InvalidInputError(
            f"limit must be between 1 and {MAX_MOVEMENTS_PAGE}, got {limit!r}", field="limit"
        )
    with factory() as uow:
        session = live_session(uow, token, now or utcnow())
        return Statement(
            balance_pence=uow.wallets.balance(session.account_id),
            movements=tuple(uow.wallets.recent(session.account_id, limit)),
        )


def movement(
    factory: UnitOfWorkFactory,
    token: str | None,
    movement_id: int,
    *,
    now: dt.datetime | None = None,
) -> Movement:
    """One movement of the player's wallet; :class:`NotFoundError` if not there or not theirs."""
    with factory() as uow:
        session = live_session(uow, token, now or utcnow())
        found = uow.wallets.get(movement_id)
    if found is None or found.account_id != session.account_id:
        raise NotFoundError(f"no movement with id {movement_id!r} in this wallet")
    return found


@dataclass(frozen=True, slots=True)
class Deposit:
    """The result of a test deposit."""

    movement: Movement
    """The ledger row written."""
    balance_pence: Pence
    """Balance after the deposit."""
    created: bool = True
    """Whether this request credited it (False: an earlier one with the same Idempotency-Key)."""


def test_deposit(
    factory: UnitOfWorkFactory,
    token: str | None,
    amount_pence: Pence,
    *,
    enabled: bool,
    max_pence: Pence = MAX_TEST_DEPOSIT_PENCE,
    idempotency_key: str | None = None,
    now: dt.datetime | None = None,
) -> Deposit:
    """Credit test funds (test environments only), audited, in one transaction. A repeat with
    an Idempotency-Key used before answers the earlier deposit and credits nothing (a different
    amount with a used key is refused)."""
    if not enabled:
        raise TestDepositsDisabledError("test deposits are disabled on this server")
    _check_positive(amount_pence)
    if amount_pence > max_pence:
        raise InvalidInputError(
            f"a test deposit is at most {max_pence} pence, got {amount_pence!r}",
            field="amount_pence",
        )
    key = check_idempotency_key(idempotency_key)
    at = now or utcnow()
    with factory() as uow:
        session = live_session(uow, token, at, lock_account=True)
        earlier = None if key is None else uow.wallets.by_idempotency_key(session.account_id, key)
        if key is not None and earlier is not None:
            if earlier.amount_pence != amount_pence or earlier.kind is not MovementKind.DEPOSIT:
                refuse_reuse(key, f"{earlier.kind.value} of {earlier.amount_pence} pence")
            return Deposit(earlier, uow.wallets.balance(session.account_id), created=False)
        safeguards.before_deposit(uow, session.account_id, amount_pence, at)
        row = credit(
            uow,
            session.account_id,
            amount_pence,
            MovementKind.DEPOSIT,
            reference="test deposit",
            now=at,
            idempotency_key=key,
        )
        new_balance = uow.wallets.balance(session.account_id)
        audit.append(
            uow,
            AuditKind.DEPOSIT,
            session.account_id,
            {
                "movement_id": row.id,
                "amount_pence": amount_pence,
                "test": True,
                "idempotency_key": key,
            },
            now=at,
        )
        uow.commit()
    return Deposit(movement=row, balance_pence=new_balance)
