"""In-memory fakes of the service's ports (``colour_collector.service.ports``), for testing the
use cases' rules in milliseconds, without SQL.

``FakeDatabase()`` is a unit-of-work factory. A unit of work works on a copy of the committed
state; ``commit()`` makes its copy the committed state, and leaving without it throws the copy
away, as a rolled-back transaction. There are no locks: the fakes serve one thread (the
adapters' locking is tested on both real databases in ``tests/integration``).
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Self

from colour_collector.service.audit import GENESIS_HASH, entry_hash
from colour_collector.service.errors import (
    DuplicatePlayError,
    DuplicatePoolError,
    EmailTakenError,
    OperatorNameTakenError,
    PaymentDeclinedError,
    PlayChangedError,
)
from colour_collector.service.models import (
    Account,
    AccountId,
    AuditEntry,
    ChainHead,
    ConfirmationToken,
    LoginFailures,
    MailRequest,
    Movement,
    MovementKind,
    NewAuditEntry,
    Pence,
    Session,
    StoredAccount,
    TokenPurpose,
)
from colour_collector.service.play_models import PlayStatus, StoredPlay, TryPlay
from colour_collector.service.pool_models import (
    Checkpoint,
    PoolId,
    SoldPlay,
    SoldRecord,
    StoredPool,
)
from colour_collector.service.ports import UnitOfWorkFactory
from colour_collector.service.protection_models import (
    AuditCheck,
    DepositLimit,
    Exclusion,
    ExclusionKind,
    LimitPeriod,
    Operator,
    OperatorRole,
    OperatorSession,
    OutcomeFigures,
    Payment,
    PaymentKind,
    ProtectionSettings,
    SalesState,
    StoredOperator,
)


@dataclass
class State:
    """Everything a database would hold."""

    accounts: dict[AccountId, StoredAccount] = field(default_factory=dict)
    sessions: dict[str, Session] = field(default_factory=dict)
    failures: list[tuple[str, str, dt.datetime]] = field(default_factory=list)
    confirmations: dict[str, ConfirmationToken] = field(default_factory=dict)
    mail_requests: list[tuple[str, dt.datetime, str]] = field(default_factory=list)
    movements: list[Movement] = field(default_factory=list)
    movement_keys: dict[tuple[AccountId, str], int] = field(default_factory=dict)
    plays: dict[str, StoredPlay] = field(default_factory=dict)
    tries: dict[str, tuple[TryPlay, str]] = field(default_factory=dict)
    audit: list[AuditEntry] = field(default_factory=list)
    head: ChainHead = field(default_factory=lambda: ChainHead(0, GENESIS_HASH))
    settings: dict[AccountId, ProtectionSettings] = field(default_factory=dict)
    limits: dict[tuple[AccountId, LimitPeriod], DepositLimit] = field(default_factory=dict)
    exclusions: list[Exclusion] = field(default_factory=list)
    reality_checks: dict[str, dt.datetime] = field(default_factory=dict)
    sales: SalesState = field(default_factory=lambda: SalesState(on_sale=True))
    payments: list[Payment] = field(default_factory=list)
    operators: dict[int, StoredOperator] = field(default_factory=dict)
    operator_sessions: dict[str, OperatorSession] = field(default_factory=dict)
    audit_checks: list[AuditCheck] = field(default_factory=list)
    pools: dict[PoolId, StoredPool] = field(default_factory=dict)
    checkpoints: dict[PoolId, list[Checkpoint]] = field(default_factory=dict)
    next_id: int = 1

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1


class FakeAccounts:
    def __init__(self, state: State) -> None:
        self.state = state

    def add(
        self, *, email: str, password_hash: str, date_of_birth: dt.date, created_at: dt.datetime
    ) -> Account:
        if any(a.account.email == email for a in self.state.accounts.values()):
            raise EmailTakenError(f"an account with e-mail {email!r} already exists")
        account = Account(self.state.new_id(), email, date_of_birth, created_at)
        self.state.accounts[account.id] = StoredAccount(account, password_hash)
        return account

    def get(self, account_id: AccountId) -> Account | None:
        found = self.state.accounts.get(account_id)
        return None if found is None else found.account

    get_for_update = get

    def by_email(self, email: str) -> StoredAccount | None:
        return next((a for a in self.state.accounts.values() if a.account.email == email), None)

    def renew_registration(
        self, account_id: AccountId, *, password_hash: str, date_of_birth: dt.date
    ) -> None:
        stored = self.state.accounts[account_id]
        self.state.accounts[account_id] = replace(
            stored,
            account=replace(stored.account, date_of_birth=date_of_birth),
            password_hash=password_hash,
        )

    def confirm_email(self, account_id: AccountId, at: dt.datetime) -> None:
        stored = self.state.accounts[account_id]
        self.state.accounts[account_id] = replace(stored, email_confirmed_at=at)

    def set_password(self, account_id: AccountId, *, password_hash: str) -> None:
        stored = self.state.accounts[account_id]
        self.state.accounts[account_id] = replace(stored, password_hash=password_hash)

    def add_session(self, session: Session) -> None:
        self.state.sessions[session.token_hash] = session

    def session(self, token_hash: str, now: dt.datetime) -> Session | None:
        found = self.state.sessions.get(token_hash)
        return found if found is not None and found.expires_at > now else None

    session_for_update = session

    def remove_session(self, token_hash: str) -> Session | None:
        self.state.reality_checks.pop(token_hash, None)  # as ON DELETE CASCADE
        return self.state.sessions.pop(token_hash, None)

    def remove_expired_sessions(self, now: dt.datetime) -> int:
        expired = [key for key, s in self.state.sessions.items() if s.expires_at <= now]
        for key in expired:
            del self.state.sessions[key]
            self.state.reality_checks.pop(key, None)  # as ON DELETE CASCADE
        return len(expired)

    def remove_sessions(self, account_id: AccountId) -> int:
        ended = [key for key, s in self.state.sessions.items() if s.account_id == account_id]
        for key in ended:
            del self.state.sessions[key]
            self.state.reality_checks.pop(key, None)  # as ON DELETE CASCADE
        return len(ended)

    def renew_session(self, token_hash: str, expires_at: dt.datetime) -> None:
        found = self.state.sessions.get(token_hash)
        if found is not None:
            self.state.sessions[token_hash] = replace(found, expires_at=expires_at)


class FakeLoginThrottle:
    def __init__(self, state: State) -> None:
        self.state = state

    def hold(self, email: str, client: str) -> None:
        pass  # one unit of work at a time

    def add_failure(self, *, email: str, client: str, at: dt.datetime) -> None:
        self.state.failures.append((email, client, at))

    def failures(self, *, email: str, client: str, after: dt.datetime) -> LoginFailures:
        recent = sorted((f for f in self.state.failures if f[2] > after), key=lambda f: f[2])
        return LoginFailures(
            by_email=tuple(at for e, _, at in recent if e == email),
            by_client=tuple(at for _, c, at in recent if c == client),
        )

    def clear(self, email: str) -> None:
        self.state.failures = [f for f in self.state.failures if f[0] != email]

    def forget_before(self, before: dt.datetime) -> int:
        kept = [f for f in self.state.failures if f[2] >= before]
        gone = len(self.state.failures) - len(kept)
        self.state.failures = kept
        return gone


class FakeConfirmationTokens:
    def __init__(self, state: State) -> None:
        self.state = state

    def add(self, token: ConfirmationToken) -> None:
        assert token.token_hash not in self.state.confirmations, "the store refuses a duplicate"
        self.state.confirmations[token.token_hash] = token

    def get(self, token_hash: str, purpose: TokenPurpose) -> ConfirmationToken | None:
        found = self.state.confirmations.get(token_hash)
        return found if found is not None and found.purpose is purpose else None

    def use_all(self, account_id: AccountId, at: dt.datetime, purpose: TokenPurpose) -> int:
        unused = [
            t
            for t in self.state.confirmations.values()
            if t.account_id == account_id and t.purpose is purpose and t.used_at is None
        ]
        for token in unused:
            self.state.confirmations[token.token_hash] = replace(token, used_at=at)
        return len(unused)


class FakeMailThrottle:
    def __init__(self, state: State) -> None:
        self.state = state

    def add(self, *, email: str, client: str, at: dt.datetime) -> None:
        self.state.mail_requests.append((email, at, client))

    def requests(self, *, email: str, after: dt.datetime) -> tuple[MailRequest, ...]:
        return tuple(
            MailRequest(at=at, client=client)
            for e, at, client in sorted(self.state.mail_requests, key=lambda r: r[1])
            if e == email and at > after
        )

    def forget_before(self, before: dt.datetime) -> int:
        kept = [r for r in self.state.mail_requests if r[1] >= before]
        gone = len(self.state.mail_requests) - len(kept)
        self.state.mail_requests = kept
        return gone


@dataclass(frozen=True, slots=True)
class SentMail:
    """A mail the fake mailer was given."""

    to: str
    subject: str
    text: str


class FakeMailer:
    """Keeps every mail it is given, in order; ``fail`` makes it refuse them (as a server down)."""

    def __init__(self) -> None:
        self.sent: list[SentMail] = []
        self.fail = False

    def send(self, to: str, subject: str, text: str) -> None:
        if self.fail:
            raise ConnectionRefusedError("the fake mail server is down")
        self.sent.append(SentMail(to, subject, text))

    def to(self, email: str) -> list[SentMail]:
        """The mails sent to ``email``, oldest first."""
        return [m for m in self.sent if m.to == email]


class FakeWallets:
    def __init__(self, state: State) -> None:
        self.state = state

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
        if idempotency_key is not None and self.by_idempotency_key(account_id, idempotency_key):
            raise AssertionError("the store refuses a second movement with one key")
        movement = Movement(
            self.state.new_id(), account_id, amount_pence, kind, reference, created_at
        )
        self.state.movements.append(movement)
        if idempotency_key is not None:
            self.state.movement_keys[(account_id, idempotency_key)] = movement.id
        return movement

    def by_idempotency_key(self, account_id: AccountId, key: str) -> Movement | None:
        found = self.state.movement_keys.get((account_id, key))
        return None if found is None else self.get(found)

    def after(self, movement_id: int, limit: int) -> Sequence[Movement]:
        return sorted((m for m in self.state.movements if m.id > movement_id), key=lambda m: m.id)[
            :limit
        ]

    def balance(self, account_id: AccountId) -> Pence:
        return sum(m.amount_pence for m in self.state.movements if m.account_id == account_id)

    def recent(self, account_id: AccountId, limit: int) -> Sequence[Movement]:
        mine = [m for m in self.state.movements if m.account_id == account_id]
        return mine[::-1][:limit]

    def get(self, movement_id: int) -> Movement | None:
        return next((m for m in self.state.movements if m.id == movement_id), None)

    def totals_since(
        self, account_id: AccountId, since: dt.datetime
    ) -> Mapping[MovementKind, Pence]:
        totals: dict[MovementKind, Pence] = {}
        for m in self.state.movements:
            if m.account_id == account_id and m.created_at >= since:
                totals[m.kind] = totals.get(m.kind, 0) + m.amount_pence
        return totals

    def movements_since(
        self, account_id: AccountId, kind: MovementKind, since: dt.datetime
    ) -> Sequence[Movement]:
        found = [
            m
            for m in self.state.movements
            if m.account_id == account_id and m.kind is kind and m.created_at > since
        ]
        return sorted(found, key=lambda m: (m.created_at, m.id))


class FakePlays:
    def __init__(self, state: State) -> None:
        self.state = state

    def add(self, play: StoredPlay) -> StoredPlay:
        clash = (
            play.play_number in self.state.plays
            or (
                play.idempotency_key is not None
                and self.by_idempotency_key(play.account_id, play.idempotency_key) is not None
            )
            or (
                play.pool_id is not None
                and any(
                    (p.pool_id, p.pool_position) == (play.pool_id, play.pool_position)
                    for p in self.state.plays.values()
                )
            )
        )
        if clash:
            raise DuplicatePlayError(f"play {play.play_number!r} clashes with a stored play")
        stored = replace(play, id=self.state.new_id())
        self.state.plays[play.play_number] = stored
        return stored

    def get(self, play_number: str) -> StoredPlay | None:
        return self.state.plays.get(play_number)

    get_for_update = get

    def session_play_for_update(
        self, token_hash: str, play_number: str, now: dt.datetime
    ) -> StoredPlay | None:
        session = FakeAccounts(self.state).session(token_hash, now)
        play = self.state.plays.get(play_number)
        if session is None or play is None or play.account_id != session.account_id:
            return None
        return play

    def by_idempotency_key(self, account_id: AccountId, key: str) -> StoredPlay | None:
        return next(
            (
                p
                for p in self.state.plays.values()
                if p.account_id == account_id and p.idempotency_key == key
            ),
            None,
        )

    def _mine(self, account_id: AccountId) -> list[StoredPlay]:
        return sorted(
            (p for p in self.state.plays.values() if p.account_id == account_id),
            key=lambda p: -p.id,
        )

    def unfinished(self, account_id: AccountId) -> StoredPlay | None:
        return next((p for p in self._mine(account_id) if p.status is PlayStatus.IN_PROGRESS), None)

    def page(self, account_id: AccountId, offset: int, limit: int) -> Sequence[StoredPlay]:
        return self._mine(account_id)[offset : offset + limit]

    def count(self, account_id: AccountId) -> int:
        return len(self._mine(account_id))

    def due(self, now: dt.datetime, limit: int) -> Sequence[str]:
        due = sorted(
            (
                p
                for p in self.state.plays.values()
                if p.status is PlayStatus.IN_PROGRESS and p.finish_by <= now
            ),
            key=lambda p: p.finish_by,
        )
        return [p.play_number for p in due[:limit]]

    def after(self, play_id: int, limit: int) -> Sequence[StoredPlay]:
        return sorted((p for p in self.state.plays.values() if p.id > play_id), key=lambda p: p.id)[
            :limit
        ]

    def unfinished_plays(self) -> Mapping[tuple[PoolId, int | None], int]:
        found: dict[tuple[PoolId, int | None], int] = {}
        for p in self.state.plays.values():
            if p.status is PlayStatus.IN_PROGRESS and p.pool_id is not None:
                found[p.pool_id, p.tier_index] = found.get((p.pool_id, p.tier_index), 0) + 1
        return found

    def unfinished_in_pool(self, pool_id: PoolId) -> tuple[int, dt.datetime | None]:
        mine = [
            p.finish_by
            for p in self.state.plays.values()
            if p.pool_id == pool_id and p.status is PlayStatus.IN_PROGRESS
        ]
        return len(mine), max(mine, default=None)

    def count_in_pool(self, pool_id: PoolId) -> int:
        return sum(p.pool_id == pool_id for p in self.state.plays.values())

    def sold_from(self, pool_id: PoolId, after: int, limit: int) -> Sequence[SoldPlay]:
        sold = (
            SoldPlay(p.pool_position, p.play_number, p.tier_index, p.prize_pence)
            for p in self.state.plays.values()
            if p.pool_id == pool_id and p.pool_position is not None and p.pool_position > after
        )
        return sorted(sold, key=lambda p: p.position)[:limit]

    def records_from(self, pool_id: PoolId, after: int, limit: int) -> Sequence[SoldRecord]:
        sold = (
            SoldRecord(p.pool_position, p.play_number, p.tier_index, p.prize_pence, p.record)
            for p in self.state.plays.values()
            if p.pool_id == pool_id and p.pool_position is not None and p.pool_position > after
        )
        return sorted(sold, key=lambda p: p.position)[:limit]

    def save(self, play: StoredPlay, *, was: StoredPlay) -> None:
        stored = self.state.plays.get(was.play_number)
        if stored is None or stored.revealed != was.revealed:
            raise PlayChangedError(f"the play moved on from step {was.revealed}; reload it")
        self.state.plays[was.play_number] = replace(
            stored,
            record=play.record,
            revealed=play.revealed,
            status=play.status,
            balance_after_pence=play.balance_after_pence,
            finished_at=play.finished_at,
        )


class FakeTryPlays:
    def __init__(self, state: State) -> None:
        self.state = state

    def add(self, token_hash: str, play: TryPlay, client: str) -> TryPlay:
        stored = replace(play, id=self.state.new_id())
        self.state.tries[token_hash] = (stored, client)
        return stored

    def get(self, token_hash: str) -> TryPlay | None:
        found = self.state.tries.get(token_hash)
        return None if found is None else found[0]

    get_for_update = get

    def save(self, play: TryPlay, *, was: TryPlay) -> None:
        for key, (stored, client) in self.state.tries.items():
            if stored.id == was.id:
                if stored.revealed != was.revealed:
                    raise PlayChangedError("the Try play moved on; reload it")
                self.state.tries[key] = (play, client)
                return
        raise PlayChangedError("no such Try play")

    def started_after(self, client: str, after: dt.datetime) -> int:
        return sum(1 for p, c in self.state.tries.values() if c == client and p.created_at > after)

    def start_times(self, client: str, after: dt.datetime) -> tuple[dt.datetime, ...]:
        return tuple(
            sorted(
                p.created_at
                for p, c in self.state.tries.values()
                if c == client and p.created_at > after
            )
        )

    def remove_before(self, before: dt.datetime) -> int:
        old = [k for k, (p, _) in self.state.tries.items() if p.created_at < before]
        for key in old:
            del self.state.tries[key]
        return len(old)


class FakeAuditLog:
    def __init__(self, state: State) -> None:
        self.state = state

    def head(self) -> ChainHead:
        return self.state.head

    def append(self, new: NewAuditEntry) -> AuditEntry:
        seq, prev = self.state.head.seq + 1, self.state.head.hash
        digest = entry_hash(
            seq=seq,
            created_at=new.created_at,
            kind=new.kind,
            account_id=new.account_id,
            payload=new.payload,
            prev_hash=prev,
        )
        entry = AuditEntry(seq, new.created_at, new.kind, new.account_id, new.payload, prev, digest)
        self.state.audit.append(entry)
        self.state.head = ChainHead(entry.seq, entry.hash)
        return entry

    def entries(self, after_seq: int = 0, limit: int = 1000) -> Sequence[AuditEntry]:
        return sorted((e for e in self.state.audit if e.seq > after_seq), key=lambda e: e.seq)[
            :limit
        ]

    def entries_of(self, kind: str, after_seq: int = 0, limit: int = 1000) -> Sequence[AuditEntry]:
        found = (e for e in self.state.audit if e.seq > after_seq and e.kind == kind)
        return sorted(found, key=lambda e: e.seq)[:limit]

    def last_seq(self) -> int:
        return max((e.seq for e in self.state.audit), default=0)


class FakePools:
    def __init__(self, state: State) -> None:
        self.state = state

    def add(self, pool: StoredPool) -> StoredPool:
        if self.by_commitment(pool.commitment) is not None:
            raise DuplicatePoolError(f"a pool with commitment {pool.commitment!r} is loaded")
        stored = replace(pool, id=len(self.state.pools) + 1)
        self.state.pools[stored.id] = stored
        return stored

    def get(self, pool_id: PoolId) -> StoredPool | None:
        return self.state.pools.get(pool_id)

    get_for_update = get

    def by_commitment(self, commitment: str) -> StoredPool | None:
        return next((p for p in self.state.pools.values() if p.commitment == commitment), None)

    def _waiting(self) -> list[StoredPool]:
        return sorted(
            (p for p in self.state.pools.values() if p.closed_at is None and not p.sold_out),
            key=lambda p: p.id,
        )

    def on_sale(self) -> StoredPool | None:
        return next(iter(self._waiting()), None)

    on_sale_for_update = on_sale

    def unsold(self) -> Sequence[StoredPool]:
        return list(self._waiting())

    def newest(self, limit: int) -> Sequence[StoredPool]:
        return sorted(self.state.pools.values(), key=lambda p: -p.id)[:limit]

    def save(self, pool: StoredPool) -> None:
        stored = self.state.pools[pool.id]
        self.state.pools[pool.id] = replace(
            stored,
            remaining=pool.remaining,
            dealt=pool.dealt,
            started_at=pool.started_at,
            sold_out_at=pool.sold_out_at,
            sealed_secret=pool.sealed_secret,
            secret=pool.secret,
            closed_at=pool.closed_at,
        )

    def add_checkpoints(self, pool_id: PoolId, checkpoints: Sequence[Checkpoint]) -> None:
        self.state.checkpoints.setdefault(pool_id, []).extend(checkpoints)

    def checkpoint(self, pool_id: PoolId, position: int) -> Checkpoint | None:
        marks = [m for m in self.state.checkpoints.get(pool_id, []) if m[0] <= position]
        return max(marks, key=lambda m: m[0], default=None)


class FakePlayerProtections:
    def __init__(self, state: State) -> None:
        self.state = state

    def settings(self, account_id: AccountId) -> ProtectionSettings:
        return self.state.settings.get(account_id, ProtectionSettings(account_id))

    def save_settings(self, settings: ProtectionSettings) -> None:
        self.state.settings[settings.account_id] = settings

    def limits(self, account_id: AccountId) -> Sequence[DepositLimit]:
        return [
            self.state.limits[(account_id, p)]
            for p in LimitPeriod
            if (account_id, p) in self.state.limits
        ]

    def save_limit(self, limit: DepositLimit) -> None:
        key = (limit.account_id, limit.period)
        if limit.amount_pence is None and limit.requested_at is None:
            self.state.limits.pop(key, None)
        else:
            self.state.limits[key] = limit

    def add_exclusion(
        self,
        *,
        account_id: AccountId,
        kind: ExclusionKind,
        starts_at: dt.datetime,
        ends_at: dt.datetime,
    ) -> Exclusion:
        made = Exclusion(self.state.new_id(), account_id, kind, starts_at, ends_at)
        self.state.exclusions.append(made)
        return made

    def exclusions(self, account_id: AccountId) -> Sequence[Exclusion]:
        mine = [e for e in self.state.exclusions if e.account_id == account_id]
        return sorted(mine, key=lambda e: (e.starts_at, e.id), reverse=True)

    def exclusions_to_check(self, account_id: AccountId, now: dt.datetime) -> Sequence[Exclusion]:
        mine = self.exclusions(account_id)
        asked = self.settings(account_id).return_asked_at
        running = max((e for e in mine if e.active(now)), key=lambda e: e.ends_at, default=None)
        last_self = max(
            (e for e in mine if e.kind is ExclusionKind.SELF_EXCLUSION),
            key=lambda e: e.ends_at,
            default=None,
        )
        return [
            replace(e, return_asked_at=asked) if e.kind is ExclusionKind.SELF_EXCLUSION else e
            for e in (running, last_self)
            if e is not None
        ]

    def last_reality_check(self, token_hash: str) -> dt.datetime | None:
        return self.state.reality_checks.get(token_hash)

    def record_reality_check(self, token_hash: str, at: dt.datetime) -> None:
        self.state.reality_checks[token_hash] = at


class FakeSalesSwitch:
    def __init__(self, state: State) -> None:
        self.stored = state

    def state(self) -> SalesState:
        return self.stored.sales

    state_for_sale = state
    state_for_update = state

    def save(self, state: SalesState) -> None:
        self.stored.sales = state


class FakePayments:
    def __init__(self, state: State) -> None:
        self.state = state

    def add(self, payment: Payment) -> Payment:
        stored = replace(payment, id=self.state.new_id())
        self.state.payments.append(stored)
        return stored

    def by_idempotency_key(
        self, account_id: AccountId, kind: PaymentKind, key: str
    ) -> Payment | None:
        return next(
            (
                p
                for p in self.state.payments
                if p.account_id == account_id and p.kind is kind and p.idempotency_key == key
            ),
            None,
        )


class FakeOperators:
    def __init__(self, state: State) -> None:
        self.state = state

    def add(
        self, *, name: str, password_hash: str, role: OperatorRole, created_at: dt.datetime
    ) -> Operator:
        if any(o.operator.name == name for o in self.state.operators.values()):
            raise OperatorNameTakenError(f"an operator named {name!r} already exists")
        made = Operator(self.state.new_id(), name, role, created_at)
        self.state.operators[made.id] = StoredOperator(made, password_hash)
        return made

    def by_name(self, name: str) -> StoredOperator | None:
        return next((o for o in self.state.operators.values() if o.operator.name == name), None)

    def get(self, operator_id: int) -> Operator | None:
        found = self.state.operators.get(operator_id)
        return None if found is None else found.operator

    def all(self) -> Sequence[Operator]:
        return sorted((o.operator for o in self.state.operators.values()), key=lambda o: o.name)

    def add_session(self, session: OperatorSession) -> None:
        self.state.operator_sessions[session.token_hash] = session

    def session(self, token_hash: str, now: dt.datetime) -> OperatorSession | None:
        found = self.state.operator_sessions.get(token_hash)
        return found if found is not None and found.expires_at > now else None

    def remove_session(self, token_hash: str) -> OperatorSession | None:
        return self.state.operator_sessions.pop(token_hash, None)

    def disable(self, operator_id: int, at: dt.datetime) -> int:
        stored = self.state.operators[operator_id]
        self.state.operators[operator_id] = replace(
            stored, operator=replace(stored.operator, disabled_at=at)
        )
        mine = [h for h, s in self.state.operator_sessions.items() if s.operator_id == operator_id]
        for token_hash in mine:
            del self.state.operator_sessions[token_hash]
        return len(mine)


class FakeSalesFigures:
    def __init__(self, state: State) -> None:
        self.state = state

    def finished_by_outcome(self) -> Sequence[OutcomeFigures]:
        found: dict[int | None, tuple[int, int]] = {}
        for play in self.state.plays.values():
            if play.status is PlayStatus.IN_PROGRESS:
                continue
            count, prize = found.get(play.tier_index, (0, 0))
            found[play.tier_index] = (count + 1, prize + play.prize_pence)
        return [OutcomeFigures(tier, n, prize) for tier, (n, prize) in found.items()]

    def in_progress(self) -> int:
        return sum(1 for p in self.state.plays.values() if p.status is PlayStatus.IN_PROGRESS)


class FakeAuditChecks:
    def __init__(self, state: State) -> None:
        self.state = state

    def add(self, check: AuditCheck) -> None:
        self.state.audit_checks.append(check)

    def last(self) -> AuditCheck | None:
        return self.state.audit_checks[-1] if self.state.audit_checks else None


class FakePaymentProvider:
    """A payment provider that records what it was asked and declines when told to."""

    def __init__(self, *, decline: bool = False) -> None:
        self.decline = decline
        self.calls: list[tuple[str, AccountId, Pence, str]] = []

    def take_deposit(self, *, account_id: AccountId, amount_pence: Pence, key: str) -> str:
        return self._pay("deposit", account_id, amount_pence, key)

    def send_withdrawal(self, *, account_id: AccountId, amount_pence: Pence, key: str) -> str:
        return self._pay("withdrawal", account_id, amount_pence, key)

    def _pay(self, kind: str, account_id: AccountId, amount: Pence, key: str) -> str:
        if self.decline:
            raise PaymentDeclinedError(f"the card was declined for {amount} pence")
        self.calls.append((kind, account_id, amount, key))
        return f"fake-{len(self.calls)}"


class FakeUnitOfWork:
    """A unit of work on a copy of the database's committed state."""

    def __init__(self, database: FakeDatabase) -> None:
        self._database = database

    def __enter__(self) -> Self:
        self._database.open_units += 1
        self.state = copy.deepcopy(self._database.state)
        self.accounts = FakeAccounts(self.state)
        self.login_throttle = FakeLoginThrottle(self.state)
        self.confirmations = FakeConfirmationTokens(self.state)
        self.mail_throttle = FakeMailThrottle(self.state)
        self.wallets = FakeWallets(self.state)
        self.plays = FakePlays(self.state)
        self.tries = FakeTryPlays(self.state)
        self.audit = FakeAuditLog(self.state)
        self.protection = FakePlayerProtections(self.state)
        self.sales = FakeSalesSwitch(self.state)
        self.payments = FakePayments(self.state)
        self.operators = FakeOperators(self.state)
        self.figures = FakeSalesFigures(self.state)
        self.audit_checks = FakeAuditChecks(self.state)
        self.pools = FakePools(self.state)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._database.open_units -= 1

    def commit(self) -> None:
        self._database.state = copy.deepcopy(self.state)
        self._database.commits += 1


class FakeDatabase:
    """A unit-of-work factory over an in-memory state."""

    def __init__(self) -> None:
        self.state = State()
        self.commits = 0
        """Units of work committed so far."""
        self.open_units = 0
        """Units of work open now (entered, not yet left)."""

    def __call__(self) -> FakeUnitOfWork:
        return FakeUnitOfWork(self)


def _implements_the_ports(database: FakeDatabase) -> UnitOfWorkFactory:
    """Never called: mypy (which checks this file, ``pyproject.toml``) fails here when a fake
    no longer matches its port, instead of a test failing when it calls the missing method."""
    return database
