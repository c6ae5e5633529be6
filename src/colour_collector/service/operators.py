"""Operator accounts and the console login, apart from players' accounts.

Operators are created on the command line (``colour-collector operator add``), never over HTTP.
Each has a role (``OperatorRole``: viewer, support, manager); every console action checks it.
Console sessions are opaque random tokens in their own cookie, stored as SHA-256 like players'
sessions; failed logins are throttled by the same throttle as players' (under the key
``operator:<name>``). Creating an operator, logging in and out are audited, as is every action
an operator takes in the console.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
from dataclasses import dataclass, field, replace

from colour_collector.service import audit
from colour_collector.service.accounts import (
    Passwords,
    hash_token,
    throttle_key,
    throttled,
)
from colour_collector.service.clients import counted_client
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    InvalidInputError,
    OperatorCredentialsError,
    OperatorForbiddenError,
    OperatorNotAuthenticatedError,
    OperatorNotFoundError,
    TooManyAttemptsError,
)
from colour_collector.service.models import AuditKind
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory
from colour_collector.service.protection_models import Operator, OperatorRole, OperatorSession

NAME = re.compile(r"[a-z][a-z0-9._-]{2,63}")
"""An operator name: 3 to 64 lower-case letters, digits, dots, dashes, underscores, starting with
a letter."""
MIN_PASSWORD_LENGTH = 12
"""Shortest operator password."""
MAX_PASSWORD_LENGTH = 256
"""Longest operator password."""
THROTTLE_PREFIX = "operator:"
"""Failed console logins are counted under this prefix and the operator's name."""


@dataclass(frozen=True, slots=True)
class OperatorPolicy:
    """How operator passwords are hashed, failed logins throttled and sessions timed."""

    passwords: Passwords = field(default_factory=Passwords)
    """The password hasher."""
    max_failures: int = 5
    """Failed logins allowed for one name within the window."""
    max_client_failures: int = 20
    """Failed logins allowed from one client address within the window (players' and
    operators' together, as one address sprays names as it sprays e-mails)."""
    window: dt.timedelta = dt.timedelta(minutes=15)
    """How far back failures count."""
    session_lifetime: dt.timedelta = dt.timedelta(hours=8)
    """How long a console login lasts."""


@dataclass(frozen=True, slots=True)
class OperatorLoggedIn:
    """A fresh console session."""

    operator: Operator
    """Who logged in."""
    token: str
    """The opaque token for the cookie (never stored in clear)."""
    expires_at: dt.datetime
    """When the session ends."""


def check_name(name: str) -> str:
    """An operator name as stored (lower case); :class:`InvalidInputError` if unacceptable."""
    cleaned = name.strip().lower()
    if not NAME.fullmatch(cleaned):
        raise InvalidInputError(
            f"an operator name is 3 to 64 lower-case letters, digits, '.', '-' or '_', starting"
            f" with a letter; got {name!r}",
            field="name",
        )
    return cleaned


def add(
    factory: UnitOfWorkFactory,
    passwords: Passwords,
    *,
    name: str,
    password: str,
    role: OperatorRole,
    now: dt.datetime | None = None,
) -> Operator:
    """Create an operator account (the command line's ``operator add``). Audited."""
    cleaned = check_name(name)
    if not MIN_PASSWORD_LENGTH <= len(password) <= MAX_PASSWORD_LENGTH:
        raise InvalidInputError(
            f"an operator password is {MIN_PASSWORD_LENGTH} to {MAX_PASSWORD_LENGTH} characters",
            field="password",
        )
    at = now or utcnow()
    password_hash = passwords.hash(password)
    with factory() as uow:
        made = uow.operators.add(
            name=cleaned, password_hash=password_hash, role=role, created_at=at
        )
        audit.append(
            uow,
            AuditKind.OPERATOR_ADDED,
            None,
            {"operator": cleaned, "operator_id": made.id, "role": role.value},
            now=at,
        )
        uow.commit()
    return made


def disable(factory: UnitOfWorkFactory, name: str, *, now: dt.datetime | None = None) -> Operator:
    """Disable an operator account (the command line's ``operator disable``): it can no longer
    log in, and its console sessions end now. The account stays, named in the audit log.
    Audited; disabling it again changes nothing."""
    cleaned = check_name(name)
    at = now or utcnow()
    with factory() as uow:
        stored = uow.operators.by_name(cleaned)
        if stored is None:
            raise OperatorNotFoundError(f"there is no operator named {cleaned!r}")
        if stored.operator.disabled_at is not None:
            return stored.operator
        ended = uow.operators.disable(stored.operator.id, at)
        audit.append(
            uow,
            AuditKind.OPERATOR_DISABLED,
            None,
            {"operator": cleaned, "operator_id": stored.operator.id, "sessions_ended": ended},
            now=at,
        )
        uow.commit()
    return replace(stored.operator, disabled_at=at)


def login(
    factory: UnitOfWorkFactory,
    policy: OperatorPolicy,
    *,
    name: str,
    password: str,
    client: str,
    now: dt.datetime | None = None,
) -> OperatorLoggedIn:
    """Check an operator's password and open a console session (throttled like players': per
    name, and per client address)."""
    at = now or utcnow()
    cleaned = name.strip().lower()
    key = THROTTLE_PREFIX + throttle_key(cleaned)[:64]
    counted = counted_client(client)  # the audit keeps the address itself
    with factory() as uow:
        # Attempts at one name, or from one client, made at once are counted one after another,
        # each seeing the failures added before it: otherwise (on PostgreSQL) each counted
        # without the others' uncommitted ones and all had their password checked.
        uow.login_throttle.hold(key, counted)
        failures = uow.login_throttle.failures(email=key, client=counted, after=at - policy.window)
        wait = throttled(
            failures, policy.max_failures, policy.max_client_failures, policy.window, at
        )
        if wait is not None:
            raise TooManyAttemptsError(
                "too many failed console logins; try again later", retry_after_seconds=wait
            )
        uow.login_throttle.add_failure(email=key, client=counted, at=at)
        # A name no operator can have is not looked up (a NUL in it is an error on PostgreSQL);
        # it is checked and counted like a wrong one.
        stored = uow.operators.by_name(cleaned) if NAME.fullmatch(cleaned) else None
        uow.commit()
    matches = policy.passwords.verify(None if stored is None else stored.password_hash, password)
    if stored is None or not matches:
        raise OperatorCredentialsError("wrong operator name or password")
    if stored.operator.disabled_at is not None:  # said only to whoever knows the password
        raise OperatorForbiddenError(f"operator {stored.operator.name!r} is disabled")
    token = secrets.token_urlsafe(32)
    expires = at + policy.session_lifetime
    with factory() as uow:
        uow.login_throttle.clear(key)
        uow.operators.add_session(
            OperatorSession(hash_token(token), stored.operator.id, at, expires)
        )
        audit.append(
            uow,
            AuditKind.OPERATOR_LOGIN,
            None,
            {"operator": stored.operator.name, "client": client},
            now=at,
        )
        uow.commit()
    return OperatorLoggedIn(stored.operator, token, expires)


def logout(
    factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> bool:
    """End the console session of ``token`` if there is one (audited); whether one ended."""
    if not token:
        return False
    at = now or utcnow()
    with factory() as uow:
        ended = uow.operators.remove_session(hash_token(token))
        if ended is None:
            return False
        found = uow.operators.get(ended.operator_id)
        audit.append(
            uow,
            AuditKind.OPERATOR_LOGOUT,
            None,
            {"operator": None if found is None else found.name},
            now=at,
        )
        uow.commit()
    return True


def operator_in(
    uow: UnitOfWork, token: str | None, needed: OperatorRole, at: dt.datetime
) -> Operator:
    """The operator of the live console session ``token`` inside ``uow``, if their role allows
    what ``needed`` may do; :class:`OperatorNotAuthenticatedError` or
    :class:`OperatorForbiddenError` otherwise."""
    if not token:
        raise OperatorNotAuthenticatedError("log in to the operator console first")
    session = uow.operators.session(hash_token(token), at)
    found = None if session is None else uow.operators.get(session.operator_id)
    if found is None or found.disabled_at is not None:
        raise OperatorNotAuthenticatedError("console session expired or unknown; log in again")
    if not found.role.allows(needed):
        raise OperatorForbiddenError(
            f"operator {found.name!r} has the role {found.role.value!r}; this needs"
            f" {needed.value!r} or above"
        )
    return found


MAX_PAGE_LENGTH = 300
"""The longest page address an audit entry of the tables keeps."""


def view_tables(
    factory: UnitOfWorkFactory, token: str | None, page: str, *, now: dt.datetime | None = None
) -> Operator:
    """Let an operator (support or above) open ``page`` of the console's tables, and audit it:
    the tables show personal data, as the audited player look-up does, so each page they open
    (its address, with a search) is an audit entry naming them."""
    at = now or utcnow()
    with factory() as uow:
        found = operator_in(uow, token, OperatorRole.SUPPORT, at)
        audit.append(
            uow,
            AuditKind.TABLE_VIEWED,
            None,
            {"operator": found.name, "page": page[:MAX_PAGE_LENGTH]},
            now=at,
        )
        uow.commit()
    return found


def current(
    factory: UnitOfWorkFactory,
    token: str | None,
    needed: OperatorRole = OperatorRole.VIEWER,
    *,
    now: dt.datetime | None = None,
) -> Operator:
    """The logged-in operator (see :func:`operator_in`)."""
    with factory() as uow:
        return operator_in(uow, token, needed, now or utcnow())
