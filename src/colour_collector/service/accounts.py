"""Accounts and sessions: the checks of a registration, log in (throttled), log out, who is
logged in. Registering and confirming an account by e-mail: ``service.registration``; a
forgotten password: ``service.password_reset``.

Sessions are opaque random tokens; only their SHA-256 is stored, so a copy of the database does
not let anyone log in. A login attempt is counted as a failure *before* its password is checked
(and forgiven when it succeeds), so the throttle holds however many attempts arrive at once, and
the slow password hash runs outside any transaction.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import secrets
from dataclasses import dataclass, field

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from email_validator import EmailNotValidError, validate_email

from colour_collector.service import audit
from colour_collector.service.clients import counted_client
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    EmailNotConfirmedError,
    InvalidCredentialsError,
    InvalidInputError,
    NotAuthenticatedError,
    TooManyAttemptsError,
    UnderageError,
)
from colour_collector.service.models import (
    Account,
    AuditKind,
    LoginFailures,
    MovementKind,
    Session,
    SessionSummary,
)
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory

MINIMUM_AGE = 18
"""Players must be at least this old."""
MAX_EMAIL_LENGTH = 254
"""Longest e-mail address accepted (RFC 5321's path limit)."""
EARLIEST_DATE_OF_BIRTH = dt.date(1900, 1, 1)
"""The earliest date of birth accepted: anything before is a typing slip."""
MIN_PASSWORD_LENGTH = 10
"""Shortest password accepted."""
MAX_PASSWORD_LENGTH = 256
"""Longest password accepted (hashing cost grows with length)."""
SESSION_GONE = "session expired or unknown; log in again"
"""What a request with a dead session is told."""


class Passwords:
    """Argon2id password hashing at a configurable cost (tests use a cheap one)."""

    def __init__(self, *, time_cost: int = 3, memory_kib: int = 65536, parallelism: int = 4):
        self._hasher = PasswordHasher(
            time_cost=time_cost, memory_cost=memory_kib, parallelism=parallelism
        )
        # Verified against when the e-mail is unknown, so both answers take the same time.
        self._dummy = self._hasher.hash("not a real password, used to even out timing")

    def hash(self, password: str) -> str:
        """A new salted hash of ``password``."""
        return self._hasher.hash(password)

    def verify(self, password_hash: str | None, password: str) -> bool:
        """Whether ``password`` matches ``password_hash`` (None: no account; always False)."""
        try:
            matches = self._hasher.verify(password_hash or self._dummy, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False
        return matches and password_hash is not None


@dataclass(frozen=True, slots=True)
class AccountPolicy:
    """How passwords are hashed, failed logins throttled and sessions timed."""

    passwords: Passwords = field(default_factory=Passwords)
    """The password hasher."""
    max_failures_per_email: int = 5
    """Failures allowed for one e-mail within the window."""
    max_failures_per_client: int = 20
    """Failures allowed from one client address within the window."""
    window: dt.timedelta = dt.timedelta(minutes=15)
    """How far back failures count."""
    session_lifetime: dt.timedelta = dt.timedelta(hours=12)
    """How long a session lasts after login."""
    idle_timeout: dt.timedelta | None = None
    """How long a session lasts without activity (None: until ``session_lifetime``); see
    ``service.inactivity``."""

    def session_end(self, started: dt.datetime, active: dt.datetime) -> dt.datetime:
        """When a session started at ``started`` and last active at ``active`` ends."""
        end = started + self.session_lifetime
        return end if self.idle_timeout is None else min(end, active + self.idle_timeout)

    def extendable(self, started: dt.datetime, end: dt.datetime) -> bool:
        """Whether activity can move on the end ``end`` of a session started at ``started``:
        False once that end is its hard one (``session_lifetime`` after login)."""
        return end < started + self.session_lifetime


@dataclass(frozen=True, slots=True)
class LoggedIn:
    """A fresh session."""

    account: Account
    """Who logged in."""
    token: str
    """The opaque session token for the cookie (never stored in clear)."""
    expires_at: dt.datetime
    """When the session ends."""


def normalise_email(email: str) -> str:
    """The address as stored and compared: checked and normalised by ``email-validator`` (its
    syntax, no control or bidirectional-override characters, a domain with a dot, the domain in
    Unicode), trimmed and lower-cased; :class:`InvalidInputError` saying what is wrong otherwise.
    """
    try:
        checked = validate_email(email.strip(), check_deliverability=False)
    except EmailNotValidError as error:
        raise InvalidInputError(
            f"not an e-mail address: {email[:80]!r}: {error}", field="email"
        ) from None
    normalised = checked.normalized.lower()
    if len(normalised) > MAX_EMAIL_LENGTH:
        raise InvalidInputError(
            f"an e-mail address has at most {MAX_EMAIL_LENGTH} characters", field="email"
        )
    return normalised


def throttle_key(text: str) -> str:
    """What failed logins with ``text`` (an e-mail address or an operator's name that no
    account can have) are counted under: its printable characters (PostgreSQL stores no NUL),
    at most 254."""
    return "".join(c for c in text if c.isprintable())[:254]


def hash_token(token: str) -> str:
    """What is stored for a session token: SHA-256 hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def age_on(date_of_birth: dt.date, today: dt.date) -> int:
    """Completed years between ``date_of_birth`` and ``today``."""
    years = today.year - date_of_birth.year
    if (today.month, today.day) < (date_of_birth.month, date_of_birth.day):
        years -= 1
    return years


def check_password(password: str) -> None:
    """Refuse a password the rules do not accept (registration's, and a reset's):
    :class:`InvalidInputError` naming ``password``."""
    if not MIN_PASSWORD_LENGTH <= len(password) <= MAX_PASSWORD_LENGTH:
        raise InvalidInputError(
            f"password must be {MIN_PASSWORD_LENGTH} to {MAX_PASSWORD_LENGTH} characters long",
            field="password",
        )


def check_registration(email: str, password: str, date_of_birth: dt.date, today: dt.date) -> str:
    """The normalised e-mail of a registration whose every field is acceptable; otherwise an
    :class:`InvalidInputError` naming every field found wrong (an under-18 player is told that
    first, with its own error, :class:`UnderageError`)."""
    found: list[InvalidInputError] = []
    normalised = ""
    try:
        normalised = normalise_email(email)
    except InvalidInputError as bad:
        found.append(bad)
    if date_of_birth < EARLIEST_DATE_OF_BIRTH:
        found.append(
            InvalidInputError(
                f"date of birth {date_of_birth.isoformat()!r} is before"
                f" {EARLIEST_DATE_OF_BIRTH.isoformat()}: please check it",
                field="date_of_birth",
            )
        )
    elif date_of_birth > today:
        found.append(
            InvalidInputError(
                f"date of birth {date_of_birth.isoformat()!r} is in the future",
                field="date_of_birth",
            )
        )
    elif age_on(date_of_birth, today) < MINIMUM_AGE:
        found.append(
            UnderageError(
                f"you must be {MINIMUM_AGE} or over to play; date of birth"
                f" {date_of_birth.isoformat()!r} is under {MINIMUM_AGE}",
                field="date_of_birth",
            )
        )
    try:
        check_password(password)
    except InvalidInputError as bad:
        found.append(bad)
    if found:
        found.sort(key=lambda bad: not isinstance(bad, UnderageError))
        first = found[0]
        raise type(first)(str(first), field=first.field, also=tuple(found[1:]))
    return normalised


def throttled(
    failures: LoginFailures,
    most_per_key: int,
    most_per_client: int,
    window: dt.timedelta,
    now: dt.datetime,
) -> int | None:
    """For a login with ``failures`` in ``window`` before ``now``: None when it may be tried,
    or the whole seconds until it may (its ``Retry-After``), when its e-mail or name has
    ``most_per_key`` failures or its client ``most_per_client``."""
    waits = [
        max(1, math.ceil((recent[0] + window - now).total_seconds()))
        for recent, most in (
            (failures.by_email, most_per_key),
            (failures.by_client, most_per_client),
        )
        if len(recent) >= most
    ]
    return max(waits) if waits else None


def login(
    factory: UnitOfWorkFactory,
    policy: AccountPolicy,
    *,
    email: str,
    password: str,
    client: str,
    now: dt.datetime | None = None,
) -> LoggedIn:
    """Check the password and open a session.

    Raises :class:`TooManyAttemptsError` without checking the password when the e-mail or the
    client has too many recent failures, :class:`InvalidCredentialsError` on a wrong e-mail or
    password (the attempt stays counted), :class:`EmailNotConfirmedError` when the password is
    right but the account is not confirmed yet (only then: it tells nothing to someone without
    the password; the attempt is forgiven).
    """
    at = now or utcnow()
    try:
        normalised: str | None = normalise_email(email)
    except InvalidInputError:
        normalised = None  # no account has it; the attempt still counts for its client
    key = normalised or throttle_key(email.strip().lower())
    counted = counted_client(client)  # the audit keeps the address itself
    with factory() as uow:
        # Attempts at one address, or from one client, made at once are counted one after
        # another, each seeing the failures added before it: otherwise (on PostgreSQL) each
        # counted without the others' uncommitted ones and all had their password checked.
        uow.login_throttle.hold(key, counted)
        failures = uow.login_throttle.failures(email=key, client=counted, after=at - policy.window)
        wait = throttled(
            failures,
            policy.max_failures_per_email,
            policy.max_failures_per_client,
            policy.window,
            at,
        )
        if wait is not None:
            raise TooManyAttemptsError(
                "too many failed logins; try again later", retry_after_seconds=wait
            )
        uow.login_throttle.add_failure(email=key, client=counted, at=at)
        uow.login_throttle.forget_before(at - policy.window * 4)
        stored = None if normalised is None else uow.accounts.by_email(normalised)
        uow.commit()
    matches = policy.passwords.verify(None if stored is None else stored.password_hash, password)
    if stored is None or not matches:
        raise InvalidCredentialsError("wrong e-mail or password")
    if stored.email_confirmed_at is None:
        with factory() as uow:
            uow.login_throttle.clear(key)
            uow.commit()
        raise EmailNotConfirmedError(
            "this account is not confirmed yet: open the link we e-mailed to it, or ask for a"
            " new one (POST /api/register/resend)"
        )
    with factory() as uow:
        uow.login_throttle.clear(key)
        logged_in = start_session(uow, policy, stored.account, now=at)
        audit.append(uow, AuditKind.LOGIN, stored.account.id, {"client": client}, now=at)
        uow.commit()
    return logged_in


def start_session(
    uow: UnitOfWork, policy: AccountPolicy, account: Account, *, now: dt.datetime
) -> LoggedIn:
    """Open a session for ``account`` inside ``uow``, sweeping expired ones on the way; the
    caller audits the login (the audit entry is the last write) and commits."""
    token = secrets.token_urlsafe(32)
    expires = policy.session_end(now, now)
    uow.accounts.remove_expired_sessions(now)
    uow.accounts.add_session(Session(hash_token(token), account.id, now, expires))
    return LoggedIn(account=account, token=token, expires_at=expires)


def logout(
    factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> bool:
    """End the session of ``token`` if it exists; whether one was ended."""
    if not token:
        return False
    token_hash = hash_token(token)
    with factory() as uow:
        # The account is locked first, as a password reset does: a purchase or payment of this
        # session holding it is committed before the logout, and one waiting for it then finds
        # no session (``session_for_update``) instead of going through after the logout.
        uow.accounts.session_for_update(token_hash, now or utcnow())
        ended = uow.accounts.remove_session(token_hash)
        if ended is None:
            return False
        audit.append(uow, AuditKind.LOGOUT, ended.account_id, {})
        uow.commit()
    return True


def live_session(
    uow: UnitOfWork, token: str | None, now: dt.datetime, *, lock_account: bool = False
) -> Session:
    """The live session of ``token`` inside ``uow`` (its account locked if ``lock_account``);
    :class:`NotAuthenticatedError` when there is none."""
    if not token:
        raise NotAuthenticatedError("log in first")
    token_hash = hash_token(token)
    found = (
        uow.accounts.session_for_update(token_hash, now)
        if lock_account
        else uow.accounts.session(token_hash, now)
    )
    if found is None:
        raise NotAuthenticatedError(SESSION_GONE)
    return found


def current_account(
    factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> Account:
    """The account of a live session; :class:`NotAuthenticatedError` otherwise."""
    with factory() as uow:
        session = live_session(uow, token, now or utcnow())
        account = uow.accounts.get(session.account_id)
    if account is None:  # sessions reference accounts: only a broken database gets here
        raise NotAuthenticatedError(SESSION_GONE)
    return account


def session_summary(
    factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> SessionSummary:
    """The live session of ``token``: when it started and the money staked and won since."""
    with factory() as uow:
        session = live_session(uow, token, now or utcnow())
        totals = uow.wallets.totals_since(session.account_id, session.created_at)
    return SessionSummary(
        started_at=session.created_at,
        expires_at=session.expires_at,
        staked_pence=-totals.get(MovementKind.STAKE, 0),
        won_pence=totals.get(MovementKind.PRIZE, 0),
    )
