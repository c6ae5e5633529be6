"""Accounts and sessions: register, log in (with throttling of failures), log out, who am I.

Sessions are opaque random tokens; only their SHA-256 is stored, so a copy of the database
does not let anyone log in. Failed logins are recorded in the database (so every server
process sees them) and, past a limit per e-mail or per client within a window, further
attempts are refused with :class:`TooManyAttemptsError` before the password is even checked.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import secrets
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from colour_collector.service import audit
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    InvalidCredentialsError,
    InvalidInputError,
    NotAuthenticatedError,
    NotFoundError,
    TooManyAttemptsError,
    UnderageError,
)
from colour_collector.service.models import (
    Account,
    AccountId,
    AuditKind,
    MovementKind,
    SessionSummary,
)
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory

MINIMUM_AGE = 18
"""Players must be at least this old."""

MIN_PASSWORD_LENGTH = 10
"""Shortest password accepted."""

MAX_PASSWORD_LENGTH = 256
"""Longest password accepted (hashing cost grows with length)."""

_hasher = PasswordHasher()
_DUMMY_HASH = _hasher.hash("not a real password, used to even out timing")


@dataclass(frozen=True, slots=True)
class LoginPolicy:
    """How failed logins are throttled and how long sessions last."""

    max_failures_per_email: int = 5
    """Failures allowed for one e-mail within the window."""
    max_failures_per_client: int = 20
    """Failures allowed from one client address within the window."""
    window: dt.timedelta = dt.timedelta(minutes=15)
    """How far back failures count."""
    session_lifetime: dt.timedelta = dt.timedelta(hours=12)
    """How long a session lasts after login."""


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
    """Trimmed, lower-case e-mail; :class:`InvalidInputError` if it does not look like one."""
    cleaned = email.strip().lower()
    local, at, domain = cleaned.partition("@")
    if (
        not at
        or not local
        or "." not in domain
        or domain.startswith(".")
        or domain.endswith(".")
        or "@" in domain
        or any(c.isspace() for c in cleaned)
        or len(cleaned) > 254
    ):
        raise InvalidInputError(f"not an e-mail address: {email!r}", field="email")
    return cleaned


def hash_token(token: str) -> str:
    """What is stored for a session token: SHA-256 hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def age_on(date_of_birth: dt.date, today: dt.date) -> int:
    """Completed years between ``date_of_birth`` and ``today``."""
    years = today.year - date_of_birth.year
    if (today.month, today.day) < (date_of_birth.month, date_of_birth.day):
        years -= 1
    return years


def register(
    uow_factory: UnitOfWorkFactory,
    *,
    email: str,
    password: str,
    date_of_birth: dt.date,
    now: dt.datetime | None = None,
) -> Account:
    """Create an account; refuses under-18s, weak passwords and taken e-mails."""
    at = now or utcnow()
    normalised = normalise_email(email)
    if date_of_birth > at.date():
        raise InvalidInputError(
            f"date of birth {date_of_birth.isoformat()!r} is in the future", field="date_of_birth"
        )
    if age_on(date_of_birth, at.date()) < MINIMUM_AGE:
        raise UnderageError(
            f"you must be {MINIMUM_AGE} or over to play; date of birth"
            f" {date_of_birth.isoformat()!r} is under {MINIMUM_AGE}",
            field="date_of_birth",
        )
    if not MIN_PASSWORD_LENGTH <= len(password) <= MAX_PASSWORD_LENGTH:
        raise InvalidInputError(
            f"password must be {MIN_PASSWORD_LENGTH} to {MAX_PASSWORD_LENGTH} characters long",
            field="password",
        )
    password_hash = _hasher.hash(password)
    with uow_factory() as uow:
        account = uow.accounts.add(
            email=normalised,
            password_hash=password_hash,
            date_of_birth=date_of_birth,
            created_at=at,
        )
        audit.append(uow, AuditKind.REGISTER, account.id, {"email": normalised}, now=at)
        uow.commit()
    return account


def _retry_after(failures: list[dt.datetime], window: dt.timedelta, now: dt.datetime) -> int:
    return max(1, math.ceil((failures[0] + window - now).total_seconds()))


def login(
    uow_factory: UnitOfWorkFactory,
    *,
    email: str,
    password: str,
    client: str,
    policy: LoginPolicy,
    now: dt.datetime | None = None,
) -> LoggedIn:
    """Check the password and open a session, or record the failure.

    Raises :class:`TooManyAttemptsError` without checking the password when the e-mail or the
    client has too many recent failures, :class:`InvalidCredentialsError` on a wrong e-mail or
    password (the failure is committed).
    """
    at = now or utcnow()
    try:
        normalised = normalise_email(email)
    except InvalidInputError:
        normalised = email.strip().lower()[:254]
    since = at - policy.window
    with uow_factory() as uow:
        by_email = list(uow.login_attempts.failures_by_email(normalised, since))
        by_client = list(uow.login_attempts.failures_by_client(client, since))
        waits = []
        if len(by_email) >= policy.max_failures_per_email:
            waits.append(_retry_after(by_email, policy.window, at))
        if len(by_client) >= policy.max_failures_per_client:
            waits.append(_retry_after(by_client, policy.window, at))
        if waits:
            raise TooManyAttemptsError(
                "too many failed logins; try again later", retry_after_seconds=max(waits)
            )
        stored = uow.accounts.find_by_email(normalised)
        matches = _password_matches(stored.password_hash if stored else None, password)
        if stored is None or not matches:
            uow.login_attempts.add_failure(email=normalised, client=client, at=at)
            uow.login_attempts.delete_before(at - policy.window * 4)
            uow.commit()
            raise InvalidCredentialsError("wrong e-mail or password")
        token = secrets.token_urlsafe(32)
        expires = at + policy.session_lifetime
        uow.login_attempts.clear_email(normalised)
        uow.sessions.delete_expired(at)
        uow.sessions.add(
            token_hash=hash_token(token),
            account_id=stored.account.id,
            created_at=at,
            expires_at=expires,
        )
        audit.append(uow, AuditKind.LOGIN, stored.account.id, {"client": client}, now=at)
        uow.commit()
    return LoggedIn(account=stored.account, token=token, expires_at=expires)


def _password_matches(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def logout(uow_factory: UnitOfWorkFactory, token: str | None) -> bool:
    """End the session of ``token`` if it exists; return whether one was ended."""
    if not token:
        return False
    with uow_factory() as uow:
        account_id = uow.sessions.delete(hash_token(token))
        if account_id is None:
            return False
        audit.append(uow, AuditKind.LOGOUT, account_id, {})
        uow.commit()
    return True


def current_account(
    uow_factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> Account:
    """The account of a live session; :class:`NotAuthenticatedError` otherwise."""
    if not token:
        raise NotAuthenticatedError("log in first")
    with uow_factory(write=False) as uow:
        return account_in(uow, token, now or utcnow())


def _session_hash(token: str | None) -> str:
    """The stored hash of a session token; :class:`NotAuthenticatedError` without one."""
    if not token:
        raise NotAuthenticatedError("log in first")
    return hash_token(token)


_SESSION_GONE = "session expired or unknown; log in again"


def account_in(uow: UnitOfWork, token: str | None, now: dt.datetime) -> Account:
    """:func:`current_account` inside the caller's unit of work."""
    account = uow.sessions.account_for(_session_hash(token), now)
    if account is None:
        raise NotAuthenticatedError(_SESSION_GONE)
    return account


def session_summary(
    uow_factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> SessionSummary:
    """The live session of ``token``: when it started and the money staked and won since."""
    at = now or utcnow()
    with uow_factory(write=False) as uow:
        found = uow.sessions.live(_session_hash(token), at)
        if found is None:
            raise NotAuthenticatedError(_SESSION_GONE)
        account_id, started, expires = found
        totals = uow.ledger.totals_since(account_id, started)
    return SessionSummary(
        started_at=started,
        expires_at=expires,
        staked_pence=-totals.get(MovementKind.STAKE, 0),
        won_pence=totals.get(MovementKind.PRIZE, 0),
    )


@dataclass(frozen=True, slots=True)
class SessionToken:
    """A request's session token, looked up in the unit of work of the action it asks for.

    An action given one instead of an :data:`AccountId` saves a transaction of its own for the
    look-up; it answers :class:`NotAuthenticatedError` (and changes nothing) for a dead session.
    """

    token: str


Caller = AccountId | SessionToken
"""Who asks: an account already known, or a session token still to be looked up."""


def locked_caller_id(uow: UnitOfWork, caller: Caller, now: dt.datetime) -> AccountId:
    """:func:`caller_id`, with the account locked for update (a session token: one statement).

    Raises :class:`NotFoundError` for an :data:`AccountId` that names no account.
    """
    if isinstance(caller, SessionToken):
        found = uow.sessions.lock_account_for(_session_hash(caller.token), now)
        if found is None:
            raise NotAuthenticatedError(_SESSION_GONE)
        return found
    if not uow.accounts.lock(caller):
        raise NotFoundError(f"no account with id {caller!r}")
    return caller


def caller_id(uow: UnitOfWork, caller: Caller, now: dt.datetime) -> AccountId:
    """The account of ``caller``, looked up inside ``uow`` when it is a session token."""
    if isinstance(caller, SessionToken):
        return account_in(uow, caller.token, now).id
    return caller
