"""Records the use cases read and return: small frozen values, no ORM objects."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum, unique
from typing import TypeAlias

Pence: TypeAlias = int
"""An amount of money in integer pence (100 pence = £1)."""

AccountId: TypeAlias = int
"""The database id of an account."""

LARGEST_ID = 2**31 - 1
"""The largest id a table holds (its integer columns are 32-bit on PostgreSQL): a larger one
names nothing and is refused as bad input, before any query."""


@unique
class MovementKind(StrEnum):
    """Why money moved in or out of a wallet."""

    DEPOSIT = "deposit"
    """Test funds credited by ``POST /api/wallet/test-deposit`` (test environments only)."""
    STAKE = "stake"
    """The £5 price of a play, debited at purchase."""
    PRIZE = "prize"
    """A prize credited when a play is finished."""
    REFUND = "refund"
    """Money given back by an operator."""
    ADJUSTMENT = "adjustment"
    """A manual correction by an operator."""
    WITHDRAWAL = "withdrawal"
    """Money paid out to the player through the payment provider."""


@unique
class AuditKind(StrEnum):
    """What an audit log entry records."""

    REGISTER = "register"
    """An account was created (unconfirmed), or an unconfirmed one registered again."""
    EMAIL_CONFIRMED = "email_confirmed"
    """A player confirmed their account by the link mailed to its address."""
    PASSWORD_RESET = "password_reset"
    """A player set a new password by the link mailed to the account's address (every other
    session of the account ended; an unconfirmed address became confirmed)."""
    LOGIN = "login"
    """A player logged in."""
    LOGOUT = "logout"
    """A player logged out."""
    DEPOSIT = "deposit"
    """Money was credited to a wallet."""
    PURCHASE = "purchase"
    """A play was bought."""
    REVEAL = "reveal"
    """A player revealed part of a play."""
    FINISH = "finish"
    """A player finished a play."""
    AUTO_FINISH = "auto_finish"
    """The operator finished an abandoned play."""
    WITHDRAWAL = "withdrawal"
    """Money was paid out of a wallet."""
    DEPOSIT_LIMITS_SET = "deposit_limits_set"
    """A player set deposit limits (decreases at once, increases pending)."""
    DEPOSIT_LIMITS_DECLINED = "deposit_limits_declined"
    """A player chose not to set a deposit limit when asked."""
    DEPOSIT_LIMIT_CONFIRMED = "deposit_limit_confirmed"
    """A player confirmed a pending increase or removal after the cooling-off."""
    TIME_OUT = "time_out"
    """A player took a time-out."""
    SELF_EXCLUSION = "self_exclusion"
    """A player excluded themselves."""
    SELF_EXCLUSION_RETURN = "self_exclusion_return"
    """A player asked to play again after their self-exclusion ended."""
    REALITY_CHECK_SET = "reality_check_set"
    """A player chose their reality check interval."""
    REALITY_CHECK = "reality_check"
    """A player saw a reality check and chose to continue."""
    OPERATOR_ADDED = "operator_added"
    """An operator account was created (command line)."""
    OPERATOR_LOGIN = "operator_login"
    """An operator logged in to the console."""
    OPERATOR_LOGOUT = "operator_logout"
    """An operator logged out of the console."""
    OPERATOR_DISABLED = "operator_disabled"
    """An operator account was disabled (command line): it can no longer log in."""
    SALES_STOPPED = "sales_stopped"
    """An operator stopped sales of the game."""
    SALES_STARTED = "sales_started"
    """An operator started (or restarted) sales of the game."""
    PLAYER_LOOKUP = "player_lookup"
    """An operator looked at a player's account."""
    TABLE_VIEWED = "table_viewed"
    """An operator opened a page of the console's tables (a list, a search or a row)."""
    AUDIT_VERIFIED = "audit_verified"
    """An operator had the audit chain verified."""
    POOL_LOADED = "pool_loaded"
    """The operator loaded a prize pool for sale (or loaded it again)."""
    POOL_CLOSED = "pool_closed"
    """The operator closed a prize pool: no more sales; its secret published with it, unless a
    play of it was still in progress."""
    POOL_SECRET_PUBLISHED = "pool_secret_published"
    """The secret of a pool closed while plays of it were in progress, published once they
    were finished."""


@dataclass(frozen=True, slots=True)
class Account:
    """A registered player."""

    id: AccountId
    """Database id."""
    email: str
    """Normalised (lower-case) e-mail address."""
    date_of_birth: dt.date
    """Date of birth given at registration."""
    created_at: dt.datetime
    """When the account was created (UTC)."""


@dataclass(frozen=True, slots=True)
class StoredAccount:
    """An account together with its password hash, for logging in."""

    account: Account
    """The public part."""
    password_hash: str
    """Argon2 hash of the password."""
    email_confirmed_at: dt.datetime | None = None
    """When the player confirmed the address by the mailed link (None: not yet; such an
    account cannot log in)."""


@dataclass(frozen=True, slots=True)
class Session:
    """A login session. Only the SHA-256 of its token is stored (``token_hash``)."""

    token_hash: str
    """SHA-256 (hex) of the opaque token held in the player's cookie."""
    account_id: AccountId
    """Whose session."""
    created_at: dt.datetime
    """When the player logged in (UTC)."""
    expires_at: dt.datetime
    """When it ends (UTC)."""


@unique
class TokenPurpose(StrEnum):
    """What a link mailed to an account's address does."""

    CONFIRM = "confirm"
    """Confirms the account (registration)."""
    RESET = "reset"
    """Sets a new password (a forgotten one)."""


@dataclass(frozen=True, slots=True)
class ConfirmationToken:
    """A link mailed to an account's address, to confirm the account or to reset its password.
    Only the SHA-256 of its token is stored."""

    token_hash: str
    """SHA-256 (hex) of the token in the link."""
    account_id: AccountId
    """The account it acts on."""
    created_at: dt.datetime
    """When it was mailed (UTC)."""
    expires_at: dt.datetime
    """When it stops working (UTC)."""
    used_at: dt.datetime | None = None
    """When it was used up: the account confirmed, or the password reset (by this link or
    another one of the account's with the same purpose)."""
    purpose: TokenPurpose = TokenPurpose.CONFIRM
    """What the link does; a link works only for its own purpose."""


@dataclass(frozen=True, slots=True)
class MailRequest:
    """One mail asked for an address, as the mail throttle counts it."""

    at: dt.datetime
    """When it was asked for."""
    client: str
    """The client that asked, as the limit counts it (``clients.counted_client``: its address,
    an IPv6 client's /64 network); "" for requests counted before clients were."""


@dataclass(frozen=True, slots=True)
class LoginFailures:
    """Recent failed logins, oldest first, as the throttle counts them."""

    by_email: tuple[dt.datetime, ...]
    """Failures for the e-mail tried."""
    by_client: tuple[dt.datetime, ...]
    """Failures from the client's address."""


@dataclass(frozen=True, slots=True)
class Movement:
    """One row of the wallet ledger."""

    id: int
    """Database id."""
    account_id: AccountId
    """Whose wallet."""
    amount_pence: Pence
    """Signed amount: positive credits, negative debits."""
    kind: MovementKind
    """Why the money moved."""
    reference: str | None
    """What it refers to (a play id, a deposit note), if anything."""
    created_at: dt.datetime
    """When it was written (UTC)."""


@dataclass(frozen=True, slots=True)
class NewAuditEntry:
    """An audit log entry to append: what is known of it before it is chained after the head."""

    created_at: dt.datetime
    """When it is appended (UTC)."""
    kind: str
    """What happened (an :class:`AuditKind` value)."""
    account_id: AccountId | None
    """Whose action, if any."""
    payload: str
    """Canonical JSON text of the details."""
    hashed: str
    """The middle of its canonical hashed text (``service.audit.hashed_fields``)."""


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One entry of the hash-chained audit log."""

    seq: int
    """Position in the chain, from 1, without gaps."""
    created_at: dt.datetime
    """When it was appended (UTC, microseconds)."""
    kind: str
    """What happened (an :class:`AuditKind` value)."""
    account_id: AccountId | None
    """Whose action, if any."""
    payload: str
    """Canonical JSON text of the details."""
    prev_hash: str
    """Hash of the previous entry (64 zeros for the first)."""
    hash: str
    """SHA-256 over the canonical serialisation of the fields above."""


@dataclass(frozen=True, slots=True)
class ChainHead:
    """The last entry of the audit chain, as recorded in the chain-head row."""

    seq: int
    """Sequence number of the last entry (0 when empty)."""
    hash: str
    """Its hash (64 zeros when empty)."""


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """A login session so far: what a reality check and the session bar show."""

    started_at: dt.datetime
    """When the player logged in (UTC)."""
    expires_at: dt.datetime
    """When the session ends unless renewed (UTC)."""
    staked_pence: Pence
    """Stakes paid since login (positive)."""
    won_pence: Pence
    """Prizes credited since login."""

    @property
    def net_pence(self) -> Pence:
        """Prizes minus stakes since login."""
        return self.won_pence - self.staked_pence


@dataclass(frozen=True, slots=True)
class AuditCheckpoint:
    """The audit chain's head at a moment, signed (``service.audit_checkpoints``)."""

    seq: int
    """The head's ``seq``."""
    hash: str
    """The head's hash."""
    taken_at: dt.datetime
    """When it was taken (UTC)."""
    signature: str
    """HMAC-SHA256 (hex) of ``service.audit_checkpoints.signed_text`` under the checkpoint key."""
