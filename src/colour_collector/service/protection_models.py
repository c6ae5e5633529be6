"""Records of player protection and of the operator's side: deposit limits, exclusions, reality
checks, payments, the sales switch, operators and the console's figures. Small frozen values, as
in ``service.models``."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum, unique

from colour_collector.service.models import AccountId, Pence

COOLING_OFF = dt.timedelta(hours=24)
"""How long an increase or removal of a deposit limit waits before the player may confirm it."""
DEFAULT_REALITY_CHECK_MINUTES = 60
"""A reality check every hour of play unless the player chooses otherwise."""


@unique
class LimitPeriod(StrEnum):
    """The periods a deposit limit counts over: rolling windows ending now."""

    DAILY = "daily"
    """Any 24 hours."""
    WEEKLY = "weekly"
    """Any 7 days."""
    MONTHLY = "monthly"
    """Any 30 days."""

    @property
    def window(self) -> dt.timedelta:
        """How far back deposits count."""
        return _WINDOWS[self]


_WINDOWS = {
    LimitPeriod.DAILY: dt.timedelta(days=1),
    LimitPeriod.WEEKLY: dt.timedelta(days=7),
    LimitPeriod.MONTHLY: dt.timedelta(days=30),
}


@dataclass(frozen=True, slots=True)
class DepositLimit:
    """A player's deposit limit for one period, and any change waiting for the cooling-off."""

    account_id: AccountId
    """Whose limit."""
    period: LimitPeriod
    """Over which period deposits are counted."""
    amount_pence: Pence | None
    """The limit in force (None: no limit)."""
    requested_at: dt.datetime | None = None
    """When an increase or removal was asked for (None: no change waiting)."""
    requested_pence: Pence | None = None
    """The limit asked for (None with ``requested_at``: removal)."""

    @property
    def pending(self) -> bool:
        """Whether an increase or removal waits for the player's confirmation."""
        return self.requested_at is not None

    @property
    def confirmable_at(self) -> dt.datetime | None:
        """When the waiting change may be confirmed (24 hours after it was asked for)."""
        return None if self.requested_at is None else self.requested_at + COOLING_OFF


@dataclass(frozen=True, slots=True)
class ProtectionSettings:
    """A player's protection choices that are not limits or exclusions."""

    account_id: AccountId
    """Whose settings."""
    limits_answered_at: dt.datetime | None = None
    """When the player set deposit limits or declined to (None: not asked yet)."""
    reality_check_minutes: int = DEFAULT_REALITY_CHECK_MINUTES
    """Minutes of play between reality checks."""
    return_asked_at: dt.datetime | None = None
    """When the player last asked to play again after a self-exclusion had ended (None:
    never). It lifts only a self-exclusion that had ended by then (``Exclusion.returns_at``)."""


RETURN_COOLING_OFF = dt.timedelta(hours=24)
"""How long after asking to play again, once a self-exclusion has ended, plays and deposits
open."""


@unique
class ExclusionKind(StrEnum):
    """A break from gambling the player chose."""

    TIME_OUT = "time_out"
    """A short break: 24 hours to 6 weeks."""
    SELF_EXCLUSION = "self_exclusion"
    """A long break: 6 months to 5 years."""


@dataclass(frozen=True, slots=True)
class Exclusion:
    """A time-out or self-exclusion: no purchases or deposits from ``starts_at`` to ``ends_at``."""

    id: int
    """Database id."""
    account_id: AccountId
    """Whose exclusion."""
    kind: ExclusionKind
    """Time-out or self-exclusion."""
    starts_at: dt.datetime
    """When it began."""
    ends_at: dt.datetime
    """When its term ends (it cannot be lifted earlier)."""
    return_asked_at: dt.datetime | None = None
    """A self-exclusion's: when the player asked to play again, if they have since it ended."""

    def active(self, now: dt.datetime) -> bool:
        """Whether its term runs at ``now``: from the moment it is stored (a break starts at
        once: a request whose time was read a moment before it was taken, or on a server whose
        clock is behind, is refused as well) until it ends."""
        return now < self.ends_at

    def ended(self, now: dt.datetime) -> bool:
        """Whether its term is over at ``now``."""
        return not self.active(now)

    @property
    def returns_at(self) -> dt.datetime | None:
        """When plays and deposits open again: a time-out's end; for a self-exclusion, a day
        (:data:`RETURN_COOLING_OFF`) after the player asked to play again once it had ended,
        and None until they have (LCCP SR code 3.5.3: it stays in place without their positive
        action)."""
        if self.kind is ExclusionKind.TIME_OUT:
            return self.ends_at
        asked = self.return_asked_at
        if asked is None or asked < self.ends_at:
            return None
        return asked + RETURN_COOLING_OFF

    def in_force(self, now: dt.datetime) -> bool:
        """Whether plays and deposits are refused at ``now``: during its term and, for a
        self-exclusion, after it until :attr:`returns_at`."""
        if self.active(now):
            return True
        returns = self.returns_at
        return returns is None or now < returns

    def holds_until(self, now: dt.datetime) -> dt.datetime | None:
        """When, seen at ``now``, it stops refusing plays and deposits: a time-out's end, an
        ended self-exclusion's :attr:`returns_at`; None while it holds until the player asks
        to play again (a self-exclusion during its term, or after it until they ask)."""
        if self.kind is ExclusionKind.TIME_OUT:
            return self.ends_at
        return None if self.active(now) else self.returns_at


def longest_in_force(candidates: Iterable[Exclusion], now: dt.datetime) -> Exclusion | None:
    """Of ``candidates``, the break in force at ``now`` that lets go last (one that holds until
    the player asks before any other), if any: a time-out taken after a self-exclusion's term
    ends sooner than the self-exclusion, which must not hide behind it."""

    def last(exclusion: Exclusion) -> tuple[bool, dt.datetime, dt.datetime]:
        until = exclusion.holds_until(now)
        return (until is None, until or exclusion.ends_at, exclusion.ends_at)

    return max((e for e in candidates if e.in_force(now)), key=last, default=None)


@dataclass(frozen=True, slots=True)
class SalesState:
    """Whether the game is on sale, and the operator's last change."""

    on_sale: bool
    """Whether purchases are accepted."""
    changed_at: dt.datetime | None = None
    """When an operator last changed it (None: never)."""
    changed_by: str | None = None
    """The operator who did."""
    reason: str | None = None
    """What the operator said about it."""


@unique
class PaymentKind(StrEnum):
    """Money in or out through the payment provider."""

    DEPOSIT = "deposit"
    """Money taken from the player's card into the wallet."""
    WITHDRAWAL = "withdrawal"
    """Money paid from the wallet to the player."""


@dataclass(frozen=True, slots=True)
class Payment:
    """One payment through the provider, found again by its Idempotency-Key."""

    id: int
    """Database id."""
    account_id: AccountId
    """Whose payment."""
    kind: PaymentKind
    """Deposit or withdrawal."""
    amount_pence: Pence
    """How much (positive)."""
    idempotency_key: str
    """The request's Idempotency-Key."""
    provider_reference: str
    """The provider's reference for it."""
    movement_id: int
    """The ledger row it wrote."""
    created_at: dt.datetime
    """When it was made."""


@unique
class OperatorRole(StrEnum):
    """What an operator may do in the console. Each role may do what the ones before it may."""

    VIEWER = "viewer"
    """The game's state, the live figures, the pool, the audit chain's last verification."""
    SUPPORT = "support"
    """Also player look-up and the read-only tables (personal data)."""
    MANAGER = "manager"
    """Also the sales switch and verifying the audit chain."""

    def allows(self, needed: OperatorRole) -> bool:
        """Whether this role may do what ``needed`` may."""
        order = list(OperatorRole)
        return order.index(self) >= order.index(needed)


@dataclass(frozen=True, slots=True)
class Operator:
    """An operator account (created on the command line)."""

    id: int
    """Database id."""
    name: str
    """Login name."""
    role: OperatorRole
    """What the operator may do."""
    created_at: dt.datetime
    """When the account was created."""
    disabled_at: dt.datetime | None = None
    """When it was disabled (``operator disable``): it can no longer log in. None: active."""


@dataclass(frozen=True, slots=True)
class StoredOperator:
    """An operator with the password hash, for logging in."""

    operator: Operator
    """The public part."""
    password_hash: str
    """Argon2 hash of the password."""


@dataclass(frozen=True, slots=True)
class OperatorSession:
    """A console login. Only the SHA-256 of its token is stored."""

    token_hash: str
    """SHA-256 (hex) of the token in the operator's cookie."""
    operator_id: int
    """Whose session."""
    created_at: dt.datetime
    """When the operator logged in."""
    expires_at: dt.datetime
    """When it ends."""


@dataclass(frozen=True, slots=True)
class OutcomeFigures:
    """How many finished plays had one outcome, and what they paid."""

    tier_index: int | None
    """The prize tier (None: no win)."""
    plays: int
    """Finished plays with this outcome."""
    prize_pence: Pence
    """Their prizes added up (credited)."""


@dataclass(frozen=True, slots=True)
class AuditCheck:
    """The result of one verification of the audit chain."""

    checked_at: dt.datetime
    """When it ran."""
    operator: str | None
    """Who asked for it (None: the command line)."""
    entries: int
    """Entries checked."""
    last_hash: str
    """Hash of the last entry checked."""
    problem: str | None
    """The first break found (None: the chain is intact)."""
