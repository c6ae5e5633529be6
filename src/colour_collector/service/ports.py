"""What the use cases ask of storage, one port per aggregate, in the domain's words.

``colour_collector.store`` implements these on SQLite and PostgreSQL; ``tests/fakes.py`` in
memory. A unit of work is one database transaction: it rolls back unless
:meth:`UnitOfWork.commit` is called, and nothing in it commits by itself. A use case that moves
money or appends to the audit log does all its writes through one unit of work, so a purchase
debits the wallet, stores the play and appends the audit entry atomically.

Locks: a ``..._for_update`` read holds its row until the end of the transaction. Writers lock in
one order, everywhere: the account, then the pool on sale, then the play, then the audit chain's
head (appending to the audit log is the last write of a unit of work), so two units of work never
deadlock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Protocol, Self

from colour_collector.service.models import (
    Account,
    AccountId,
    AuditEntry,
    ChainHead,
    ConfirmationToken,
    LoginFailures,
    Movement,
    MovementKind,
    NewAuditEntry,
    Pence,
    Session,
    StoredAccount,
    TokenPurpose,
)
from colour_collector.service.play_models import StoredPlay, TryPlay
from colour_collector.service.pool_models import Checkpoint, PoolId, SoldPlay, StoredPool
from colour_collector.service.protection_models import (
    AuditCheck,
    DepositLimit,
    Exclusion,
    ExclusionKind,
    OperatorRole,
    OperatorSession,
    OutcomeFigures,
    Payment,
    PaymentKind,
    ProtectionSettings,
    SalesState,
    StoredOperator,
)
from colour_collector.service.protection_models import Operator as OperatorAccount


class Accounts(Protocol):
    """Players' accounts and their login sessions."""

    def add(
        self, *, email: str, password_hash: str, date_of_birth: dt.date, created_at: dt.datetime
    ) -> Account:
        """Store a new account; raise ``EmailTakenError`` if the e-mail is taken."""
        ...

    def get(self, account_id: AccountId) -> Account | None:
        """The account with this id, if any."""
        ...

    def get_for_update(self, account_id: AccountId) -> Account | None:
        """The account with this id, locked: writers of one account's wallet serialise here."""
        ...

    def by_email(self, email: str) -> StoredAccount | None:
        """The account registered with this normalised e-mail, with its password hash."""
        ...

    def renew_registration(
        self, account_id: AccountId, *, password_hash: str, date_of_birth: dt.date
    ) -> None:
        """Replace the password and date of birth of an account (not yet confirmed)."""
        ...

    def confirm_email(self, account_id: AccountId, at: dt.datetime) -> None:
        """Record that the account's e-mail address was confirmed at ``at``."""
        ...

    def set_password(self, account_id: AccountId, *, password_hash: str) -> None:
        """Replace the account's password hash (a password reset)."""
        ...

    def add_session(self, session: Session) -> None:
        """Store a new login session."""
        ...

    def session(self, token_hash: str, now: dt.datetime) -> Session | None:
        """The session with this token hash if it is live at ``now``."""
        ...

    def session_for_update(self, token_hash: str, now: dt.datetime) -> Session | None:
        """:meth:`session`, with its account locked as :meth:`get_for_update` locks it."""
        ...

    def remove_session(self, token_hash: str) -> Session | None:
        """End a session; the session ended, if there was one."""
        ...

    def remove_expired_sessions(self, now: dt.datetime) -> int:
        """End every session expired at ``now``; how many."""
        ...

    def remove_sessions(self, account_id: AccountId) -> int:
        """End every session of the account (its password was reset); how many."""
        ...

    def renew_session(self, token_hash: str, expires_at: dt.datetime) -> None:
        """Move a session's end to ``expires_at`` (the player was active)."""
        ...


class LoginThrottle(Protocol):
    """Failed logins, shared by every server process, counted per e-mail and per client."""

    def add_failure(self, *, email: str, client: str, at: dt.datetime) -> None:
        """Record one failed (or not yet checked) attempt."""
        ...

    def failures(self, *, email: str, client: str, after: dt.datetime) -> LoginFailures:
        """Failures of this e-mail and from this client later than ``after``."""
        ...

    def clear(self, email: str) -> None:
        """Forget the failures of an e-mail (after a successful login)."""
        ...

    def forget_before(self, before: dt.datetime) -> int:
        """Forget failures older than ``before``; how many."""
        ...


class ConfirmationTokens(Protocol):
    """The links mailed to accounts' addresses (their tokens' SHA-256), each for one purpose:
    to confirm the account, or to reset its password."""

    def add(self, token: ConfirmationToken) -> None:
        """Store a new link's token."""
        ...

    def get(self, token_hash: str, purpose: TokenPurpose) -> ConfirmationToken | None:
        """The token with this hash if it is for ``purpose`` (used and expired ones too)."""
        ...

    def use_all(self, account_id: AccountId, at: dt.datetime, purpose: TokenPurpose) -> int:
        """Mark every unused token of the account for ``purpose`` used at ``at``; how many."""
        ...


class MailThrottle(Protocol):
    """E-mails asked for (registrations, resends and password resets), counted per address
    whether or not it has an account, shared by every server process."""

    def add(self, *, email: str, at: dt.datetime) -> None:
        """Record one request for a mail to ``email``."""
        ...

    def requests(self, *, email: str, after: dt.datetime) -> tuple[dt.datetime, ...]:
        """Requests for ``email`` later than ``after``, oldest first."""
        ...

    def forget_before(self, before: dt.datetime) -> int:
        """Forget requests older than ``before``; how many."""
        ...


class Mailer(Protocol):
    """Sends e-mail to players (outside any unit of work: a mail cannot be rolled back)."""

    def send(self, to: str, subject: str, text: str) -> None:
        """Send a plain-text mail; raise ``OSError`` (or ``smtplib.SMTPException``, an
        ``OSError``) when it cannot be handed over."""
        ...


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


class Plays(Protocol):
    """Purchased plays."""

    def add(self, play: StoredPlay) -> StoredPlay:
        """Store a new play (its ``id`` is ignored and returned set); raise
        ``DuplicatePlayError`` if its Play Number or (account, Idempotency-Key) is taken."""
        ...

    def get(self, play_number: str) -> StoredPlay | None:
        """The play with this Play Number."""
        ...

    def get_for_update(self, play_number: str) -> StoredPlay | None:
        """The play with this Play Number, locked."""
        ...

    def session_play_for_update(
        self, token_hash: str, play_number: str, now: dt.datetime
    ) -> StoredPlay | None:
        """The play with this Play Number, locked, if it belongs to the account of the session
        with this token hash and the session is live at ``now``."""
        ...

    def by_idempotency_key(self, account_id: AccountId, key: str) -> StoredPlay | None:
        """The play the account bought with this Idempotency-Key."""
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
        """Play Numbers of plays in progress whose ``finish_by`` has passed, oldest first."""
        ...

    def after(self, play_id: int, limit: int) -> Sequence[StoredPlay]:
        """Every account's plays with an id above ``play_id``, by id, at most ``limit`` (to
        read them all a batch at a time)."""
        ...

    def unfinished_prizes(self) -> Mapping[tuple[PoolId, int], int]:
        """Plays dealt from a pool, not finished yet, that win a prize: how many, by pool and
        tier index."""
        ...

    def unfinished_in_pool(self, pool_id: PoolId) -> tuple[int, dt.datetime | None]:
        """How many plays dealt from the pool are in progress, and the latest ``finish_by``
        among them."""
        ...

    def count_in_pool(self, pool_id: PoolId) -> int:
        """How many plays name the pool, whatever their positions."""
        ...

    def sold_from(self, pool_id: PoolId, after: int, limit: int) -> Sequence[SoldPlay]:
        """The plays dealt from the pool at positions above ``after``, by position, at most
        ``limit`` (to read them all a batch at a time)."""
        ...

    def save(self, play: StoredPlay, *, was: StoredPlay) -> None:
        """Store ``play``'s progress (record, revealed, status, balance after, finished at) over
        ``was``, the play as read in this unit of work. Raise ``PlayChangedError`` (writing
        nothing) if the stored play is no longer at ``was.revealed``."""
        ...


class TryPlays(Protocol):
    """Free Try plays, found by the SHA-256 of their secret token."""

    def add(self, token_hash: str, play: TryPlay, client: str) -> TryPlay:
        """Store a new Try play started by ``client`` (its network address)."""
        ...

    def get(self, token_hash: str) -> TryPlay | None:
        """The Try play with this token hash."""
        ...

    def get_for_update(self, token_hash: str) -> TryPlay | None:
        """The Try play with this token hash, locked."""
        ...

    def save(self, play: TryPlay, *, was: TryPlay) -> None:
        """Store ``play``'s progress over ``was`` (as :meth:`Plays.save`)."""
        ...

    def started_after(self, client: str, after: dt.datetime) -> int:
        """How many Try plays ``client`` started later than ``after``."""
        ...

    def start_times(self, client: str, after: dt.datetime) -> tuple[dt.datetime, ...]:
        """When ``client`` started each Try play it started later than ``after``, oldest first."""
        ...

    def remove_before(self, before: dt.datetime) -> int:
        """Forget Try plays started before ``before``; how many."""
        ...


class AuditLog(Protocol):
    """The append-only, hash-chained audit log and its head (the last entry)."""

    def head(self) -> ChainHead:
        """The chain head."""
        ...

    def append(self, entry: NewAuditEntry) -> AuditEntry:
        """Chain ``entry`` after the head and store it as the new head: ``seq`` one more than
        the head's, ``prev_hash`` the head's hash, ``hash`` the SHA-256 (hex) of
        ``'[' + str(seq) + ',' + entry.hashed + ',"' + prev_hash + '"]'`` (which
        ``service.audit.entry_hash`` recomputes from the stored fields). The head stays locked
        until the unit of work ends: appenders serialise here, the last lock a writer takes.
        Return the stored entry."""
        ...

    def entries(self, after_seq: int = 0, limit: int = 1000) -> Sequence[AuditEntry]:
        """Entries with ``seq > after_seq`` in order, at most ``limit``."""
        ...

    def last_seq(self) -> int:
        """The highest ``seq`` stored (0 when there is none)."""
        ...


class Pools(Protocol):
    """Prize pools loaded for sale, what each has dealt, and the checkpoints of closed ones.

    Dealers lock the pool on sale (:meth:`on_sale_for_update`) after the account and before the
    play: account, pool, play, audit head.
    """

    def add(self, pool: StoredPool) -> StoredPool:
        """Store a newly loaded pool (its ``id`` is ignored and returned set); raise
        ``DuplicatePoolError`` if a pool with its commitment is stored."""
        ...

    def get(self, pool_id: PoolId) -> StoredPool | None:
        """The pool with this id."""
        ...

    def get_for_update(self, pool_id: PoolId) -> StoredPool | None:
        """The pool with this id, locked."""
        ...

    def by_commitment(self, commitment: str) -> StoredPool | None:
        """The pool with this commitment."""
        ...

    def on_sale(self) -> StoredPool | None:
        """The pool the next purchase is dealt from: the first loaded that is neither sold out
        nor closed."""
        ...

    def on_sale_for_update(self) -> StoredPool | None:
        """:meth:`on_sale`, locked: dealers serialise here, and each reads what the one before
        it dealt."""
        ...

    def waiting(self, before: PoolId | None = None) -> int:
        """Pools neither sold out nor closed, the one on sale included (with ``before``: only
        those loaded before that pool, which go on sale before it)."""
        ...

    def newest(self, limit: int) -> Sequence[StoredPool]:
        """The pools loaded last, newest first."""
        ...

    def save(self, pool: StoredPool) -> None:
        """Store what changes as a pool sells and closes (remaining, dealt, started at, sold out
        at, sealed secret, secret, closed at), after :meth:`get_for_update` or
        :meth:`on_sale_for_update`."""
        ...

    def add_checkpoints(self, pool_id: PoolId, checkpoints: Sequence[Checkpoint]) -> None:
        """Store checkpoints of a pool being closed."""
        ...

    def checkpoint(self, pool_id: PoolId, position: int) -> Checkpoint | None:
        """The last checkpoint of the pool at or before ``position``."""
        ...


class PlayerProtections(Protocol):
    """A player's protection: deposit limits, time-outs and self-exclusions, reality checks.

    Writers lock the account first (as for the wallet)."""

    def settings(self, account_id: AccountId) -> ProtectionSettings:
        """The player's settings (the defaults when none were stored)."""
        ...

    def save_settings(self, settings: ProtectionSettings) -> None:
        """Store the player's settings."""
        ...

    def limits(self, account_id: AccountId) -> Sequence[DepositLimit]:
        """The player's deposit limits that are set or have a change waiting, by period."""
        ...

    def save_limit(self, limit: DepositLimit) -> None:
        """Store one period's limit (a limit with no amount and nothing waiting is removed)."""
        ...

    def add_exclusion(
        self,
        *,
        account_id: AccountId,
        kind: ExclusionKind,
        starts_at: dt.datetime,
        ends_at: dt.datetime,
    ) -> Exclusion:
        """Store a time-out or self-exclusion."""
        ...

    def exclusions(self, account_id: AccountId) -> Sequence[Exclusion]:
        """Every exclusion the player took, latest first."""
        ...

    def active_exclusion(self, account_id: AccountId, now: dt.datetime) -> Exclusion | None:
        """The exclusion in force at ``now`` that ends last, if any."""
        ...

    def last_reality_check(self, token_hash: str) -> dt.datetime | None:
        """When the player last continued after a reality check in this login session."""
        ...

    def record_reality_check(self, token_hash: str, at: dt.datetime) -> None:
        """Remember that the player continued after a reality check at ``at``."""
        ...


class SalesSwitch(Protocol):
    """Whether the game is on sale: one switch shared by every server process."""

    def state(self) -> SalesState:
        """The switch (on sale when never changed)."""
        ...

    def state_for_update(self) -> SalesState:
        """The switch, locked until the unit of work ends (operators change it one at a time)."""
        ...

    def save(self, state: SalesState) -> None:
        """Store a new position of the switch."""
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


class Operators(Protocol):
    """Operator accounts and their console sessions."""

    def add(
        self, *, name: str, password_hash: str, role: OperatorRole, created_at: dt.datetime
    ) -> OperatorAccount:
        """Store a new operator; raise ``OperatorNameTakenError`` if the name is taken."""
        ...

    def by_name(self, name: str) -> StoredOperator | None:
        """The operator with this name, with the password hash."""
        ...

    def get(self, operator_id: int) -> OperatorAccount | None:
        """The operator with this id."""
        ...

    def all(self) -> Sequence[OperatorAccount]:
        """Every operator, by name."""
        ...

    def add_session(self, session: OperatorSession) -> None:
        """Store a console login."""
        ...

    def session(self, token_hash: str, now: dt.datetime) -> OperatorSession | None:
        """The console session with this token hash if it is live at ``now``."""
        ...

    def remove_session(self, token_hash: str) -> OperatorSession | None:
        """End a console session; the session ended, if there was one."""
        ...

    def disable(self, operator_id: int, at: dt.datetime) -> int:
        """Mark the operator disabled at ``at`` and end every console session of theirs; how
        many sessions ended."""
        ...


class SalesFigures(Protocol):
    """What the game has sold and paid, for the operator's live monitoring."""

    def finished_by_outcome(self) -> Sequence[OutcomeFigures]:
        """Finished plays and their prizes (credited), per outcome. The plays in progress are
        left out: their prizes are not told before the reveal (decision 0151)."""
        ...

    def in_progress(self) -> int:
        """Plays bought and not yet finished."""
        ...


class AuditChecks(Protocol):
    """Results of verifying the audit chain."""

    def add(self, check: AuditCheck) -> None:
        """Store a result."""
        ...

    def last(self) -> AuditCheck | None:
        """The latest result."""
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


class UnitOfWork(Protocol):
    """One transaction over every aggregate. Rolls back on exit unless committed."""

    @property
    def accounts(self) -> Accounts:
        """Accounts and sessions."""
        ...

    @property
    def login_throttle(self) -> LoginThrottle:
        """Failed logins."""
        ...

    @property
    def confirmations(self) -> ConfirmationTokens:
        """The tokens of the links mailed to confirm accounts and reset passwords."""
        ...

    @property
    def mail_throttle(self) -> MailThrottle:
        """E-mails asked for, per address."""
        ...

    @property
    def wallets(self) -> Wallets:
        """The wallet ledger."""
        ...

    @property
    def plays(self) -> Plays:
        """Purchased plays."""
        ...

    @property
    def tries(self) -> TryPlays:
        """Free Try plays."""
        ...

    @property
    def audit(self) -> AuditLog:
        """The audit log."""
        ...

    @property
    def pools(self) -> Pools:
        """Prize pools."""
        ...

    @property
    def protection(self) -> PlayerProtections:
        """Players' deposit limits, exclusions and reality checks."""
        ...

    @property
    def sales(self) -> SalesSwitch:
        """The sales switch."""
        ...

    @property
    def payments(self) -> Payments:
        """Deposits and withdrawals through the payment provider."""
        ...

    @property
    def operators(self) -> Operators:
        """Operator accounts and console sessions."""
        ...

    @property
    def figures(self) -> SalesFigures:
        """What the game has sold and paid."""
        ...

    @property
    def audit_checks(self) -> AuditChecks:
        """Results of verifying the audit chain."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def commit(self) -> None:
        """Make every write of this unit of work durable, at once."""
        ...


UnitOfWorkFactory = Callable[[], UnitOfWork]
"""Opens a unit of work: ``with factory() as uow: ...; uow.commit()``."""
