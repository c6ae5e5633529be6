"""What the use cases ask of storage. ``colour_collector.store`` implements these.

A unit of work is one database transaction: it rolls back unless :meth:`UnitOfWork.commit` is
called. Use cases that move money or append to the audit log do all their writes through one
unit of work, so a purchase can debit the wallet, store the play and append the audit entry
atomically.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from types import TracebackType
from typing import Protocol, Self

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
from colour_collector.service.play_models import PlayStatus, PurchaseState, StoredPlay, TryPlay


class AccountRepository(Protocol):
    """Accounts and their credentials."""

    def add(
        self, *, email: str, password_hash: str, date_of_birth: dt.date, created_at: dt.datetime
    ) -> Account:
        """Store a new account; raise ``EmailTakenError`` if the e-mail is taken."""
        ...

    def get(self, account_id: AccountId) -> Account | None:
        """The account with this id, if any."""
        ...

    def find_by_email(self, email: str) -> StoredAccount | None:
        """The account registered with this normalised e-mail, if any."""
        ...

    def lock(self, account_id: AccountId) -> bool:
        """Hold the account row until the end of the transaction (``SELECT ... FOR UPDATE``);
        False if there is no such account.

        Writers that read-then-write the wallet of one account call this first so that they
        serialise. On SQLite the whole write transaction is already serialised by
        ``BEGIN IMMEDIATE``.
        """
        ...


class SessionRepository(Protocol):
    """Login sessions, keyed by the SHA-256 of the opaque token held in the cookie."""

    def add(
        self,
        *,
        token_hash: str,
        account_id: AccountId,
        created_at: dt.datetime,
        expires_at: dt.datetime,
    ) -> None:
        """Store a new session."""
        ...

    def lock_account_for(self, token_hash: str, now: dt.datetime) -> AccountId | None:
        """The account of the session with this token hash live at ``now``, locked for update
        as ``AccountRepository.lock`` locks it (one statement for both)."""
        ...

    def account_for(self, token_hash: str, now: dt.datetime) -> Account | None:
        """The account of an unexpired session, if any (one query)."""
        ...

    def delete(self, token_hash: str) -> AccountId | None:
        """Remove a session; return its account if it existed."""
        ...

    def live(
        self, token_hash: str, now: dt.datetime
    ) -> tuple[AccountId, dt.datetime, dt.datetime] | None:
        """The account, start and end of the session with this token hash live at ``now``."""
        ...

    def delete_expired(self, now: dt.datetime) -> int:
        """Remove expired sessions; return how many."""
        ...


class LoginAttemptRepository(Protocol):
    """Failed login attempts, shared by every server process through the database."""

    def add_failure(self, *, email: str, client: str, at: dt.datetime) -> None:
        """Record one failed attempt."""
        ...

    def failures_by_email(self, email: str, since: dt.datetime) -> Sequence[dt.datetime]:
        """Times of failures for this e-mail at or after ``since``, oldest first."""
        ...

    def failures_by_client(self, client: str, since: dt.datetime) -> Sequence[dt.datetime]:
        """Times of failures from this client at or after ``since``, oldest first."""
        ...

    def clear_email(self, email: str) -> None:
        """Forget the failures of an e-mail (after a successful login)."""
        ...

    def delete_before(self, before: dt.datetime) -> int:
        """Forget failures older than ``before``; return how many."""
        ...


class LedgerRepository(Protocol):
    """The wallet ledger: one row per movement, the balance is their sum."""

    def add(
        self,
        *,
        account_id: AccountId,
        amount_pence: Pence,
        kind: MovementKind,
        reference: str | None,
        created_at: dt.datetime,
    ) -> Movement:
        """Append one movement."""
        ...

    def add_later(
        self,
        *,
        account_id: AccountId,
        amount_pence: Pence,
        kind: MovementKind,
        reference: str | None,
        created_at: dt.datetime,
    ) -> None:
        """Append one movement without waiting for its id: the store may send it with the next
        statement or the commit (its error, if any, is raised there)."""
        ...

    def balance(self, account_id: AccountId) -> Pence:
        """Sum of all movements of the account (0 when none)."""
        ...

    def totals_since(self, account_id: AccountId, since: dt.datetime) -> dict[MovementKind, Pence]:
        """The sum of the account's movements of each kind made at or after ``since``."""
        ...

    def recent(self, account_id: AccountId, limit: int) -> Sequence[Movement]:
        """The latest movements, newest first."""
        ...

    def get(self, movement_id: int) -> Movement | None:
        """One movement by id."""
        ...


class AuditRepository(Protocol):
    """The append-only, hash-chained audit log."""

    def append(self, entry: NewAuditEntry) -> None:
        """Chain an entry after the head: lock the head row (until the end of the
        transaction), insert the entry with ``seq`` one more than the head's and ``prev_hash``
        the head's hash, and move the head to it. The store may send it with the commit (its
        error, if any, is raised there).

        Its hash is the SHA-256 (hex) of ``'[' + str(seq) + ',' + hashed + ',"' + prev_hash +
        '"]'`` (``hashed``: ``entry.hashed``, :func:`colour_collector.service.audit.hashed_fields`).
        """
        ...

    def head(self) -> ChainHead:
        """The chain head, without locking."""
        ...

    def entries(self, after_seq: int = 0, limit: int = 1000) -> Sequence[AuditEntry]:
        """Entries with ``seq > after_seq`` in order, at most ``limit``."""
        ...


class UnitOfWork(Protocol):
    """One transaction over all repositories. Rolls back on exit unless committed."""

    @property
    def accounts(self) -> AccountRepository:
        """Accounts and credentials."""
        ...

    @property
    def sessions(self) -> SessionRepository:
        """Login sessions."""
        ...

    @property
    def login_attempts(self) -> LoginAttemptRepository:
        """Failed logins."""
        ...

    @property
    def ledger(self) -> LedgerRepository:
        """The wallet ledger."""
        ...

    @property
    def audit(self) -> AuditRepository:
        """The audit log."""
        ...

    @property
    def plays(self) -> PlayRepository:
        """Purchased plays."""
        ...

    @property
    def tries(self) -> TryRepository:
        """Free Try plays."""
        ...

    @property
    def pool(self) -> PoolRepository:
        """The finite prize pool."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def commit(self) -> None:
        """Make every write of this unit of work durable."""
        ...

    def rollback(self) -> None:
        """Discard every write of this unit of work."""
        ...


class UnitOfWorkFactory(Protocol):
    """Opens units of work. ``write=False`` may skip taking the write lock (SQLite)."""

    def __call__(self, *, write: bool = True) -> UnitOfWork: ...


class PlayRepository(Protocol):
    """Purchased plays."""

    def add(self, play: StoredPlay) -> StoredPlay:
        """Store a new play (its ``id`` is ignored); raise ``DuplicatePlayError`` if its Play
        Number or (account, Idempotency-Key) is taken."""
        ...

    def get(self, play_number: str, *, lock: bool = False) -> StoredPlay | None:
        """The play with this Play Number (locked for update when ``lock``)."""
        ...

    def locked_for_session(
        self,
        token_hash: str,
        play_number: str,
        now: dt.datetime,
        known: tuple[int, str] | None = None,
    ) -> StoredPlay | None:
        """The play with this Play Number, locked for update, if it belongs to the account of a
        session with this token hash that is live at ``now`` (one statement for both).

        ``known`` is ``(revealed, record)`` the caller already holds for this play in progress:
        when the stored play is in progress at that ``revealed``, its record is not read, and
        the returned play carries ``known``'s record.
        """
        ...

    def before_purchase(self, account_id: AccountId, idempotency_key: str | None) -> PurchaseState:
        """What a purchase must know before it buys, read in one statement: the play an earlier
        purchase with this key made (none without a key), the account's play in progress and
        its balance (the sum of its ledger rows). Plays found are then read in full."""
        ...

    def unfinished(self, account_id: AccountId) -> StoredPlay | None:
        """The account's play in progress, if any."""
        ...

    def page(self, account_id: AccountId, offset: int, limit: int) -> Sequence[StoredPlay]:
        """The account's plays, newest first."""
        ...

    def count(self, account_id: AccountId) -> int:
        """How many plays the account has."""
        ...

    def due(self, now: dt.datetime, limit: int) -> Sequence[str]:
        """Play Numbers of plays in progress whose ``finish_by`` has passed."""
        ...

    def update(
        self,
        play_id: int,
        *,
        record: str,
        revealed: int,
        status: PlayStatus,
        balance_after_pence: Pence | None,
        finished_at: dt.datetime | None,
    ) -> None:
        """Save progress."""
        ...

    def advance(self, play_id: int, revealed: int) -> None:
        """Save progress when only the number of revealed steps changed."""
        ...

    def advance_kept(
        self,
        play: StoredPlay,
        *,
        token_hash: str,
        now: dt.datetime,
        record: str | None,
        entry: NewAuditEntry,
    ) -> bool:
        """A step of a play the caller kept from when it last stored it: if the stored play is
        still ``play`` (in progress at ``play.revealed``) and a session with this token hash is
        live at ``now`` for its owner, move ``revealed`` on by one (and save ``record``, unless
        None) and append ``entry`` to the audit log; otherwise write nothing.

        Return whether it was written. It must be the first thing the unit of work does; the
        store may commit it by itself (on PostgreSQL it is one statement, and the commit that
        follows has nothing left to do; a rollback cannot undo it).
        """
        ...


class TryRepository(Protocol):
    """Free Try plays, found by the hash of their secret token."""

    def add(self, token_hash: str, play: TryPlay, client: str) -> TryPlay:
        """Store a new Try play started by ``client`` (its network address)."""
        ...

    def started_since(self, client: str, since: dt.datetime) -> int:
        """How many Try plays ``client`` started at or after ``since``."""
        ...

    def get(self, token_hash: str, *, lock: bool = False) -> TryPlay | None:
        """The Try play with this token hash."""
        ...

    def update(
        self, play_id: int, *, record: str, revealed: int, finished_at: dt.datetime | None
    ) -> None:
        """Save progress."""
        ...

    def delete_before(self, before: dt.datetime) -> int:
        """Forget Try plays started before ``before``; return how many."""
        ...


class PoolRepository(Protocol):
    """The finite prize pool's remaining counts, shared by every server process."""

    def lock(self) -> tuple[int, ...] | None:
        """Lock the pool row and return the remaining counts (None if no pool is stored)."""
        ...

    def create_if_missing(self, remaining: tuple[int, ...]) -> bool:
        """Store a full pool unless one is stored; True if this call stored it."""
        ...

    def save(self, remaining: tuple[int, ...], dealt: int) -> None:
        """Store new remaining counts (the row must be locked)."""
        ...
