"""Accounts, their login sessions and the login throttle's failed attempts."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from colour_collector.service.errors import EmailTakenError
from colour_collector.service.models import (
    Account,
    AccountId,
    LoginFailures,
    Session,
    StoredAccount,
)
from colour_collector.store.tables import accounts, login_failures, sessions

# Statements are built once, values bound when they run: SQLAlchemy then reuses their compiled
# form instead of building and hashing a new statement each time.
_ACCOUNT = select(accounts).where(accounts.c.id == bindparam("account_id"))
_ACCOUNT_FOR_UPDATE = _ACCOUNT.with_for_update()
_BY_EMAIL = select(accounts).where(accounts.c.email == bindparam("email"))
_ADD_ACCOUNT = insert(accounts).returning(accounts.c.id)
_ADD_SESSION = insert(sessions)
_LIVE_SESSION = select(sessions).where(
    sessions.c.token_hash == bindparam("token_hash"), sessions.c.expires_at > bindparam("now")
)
# The account row is locked with the session read (FOR UPDATE is not rendered on SQLite, whose
# transactions all hold the write lock from BEGIN IMMEDIATE). On PostgreSQL a statement that
# waited for a lock rechecks only the rows it locks, and goes on with any other row as it found
# it before waiting: so the session's row is locked too, and one that a password reset or a
# logout holding the account's lock ended meanwhile is then found deleted (or expired) and not
# returned. The account is locked first (the order of OF), as the reset and the logout lock it
# before they touch its sessions, so the two orders cannot deadlock.
_LIVE_SESSION_LOCKING_ACCOUNT = (
    select(sessions)
    .join(accounts, accounts.c.id == sessions.c.account_id)
    .where(
        sessions.c.token_hash == bindparam("token_hash"), sessions.c.expires_at > bindparam("now")
    )
    .with_for_update(of=[accounts, sessions])
)


def _account(row: Any) -> Account:
    return Account(
        id=row.id, email=row.email, date_of_birth=row.date_of_birth, created_at=row.created_at
    )


def _session(row: Any) -> Session:
    return Session(row.token_hash, row.account_id, row.created_at, row.expires_at)


class SqlAccounts:
    """Implements ``service.ports.Accounts``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(
        self, *, email: str, password_hash: str, date_of_birth: dt.date, created_at: dt.datetime
    ) -> Account:
        try:
            new_id = self.connection.execute(
                _ADD_ACCOUNT,
                {
                    "email": email,
                    "password_hash": password_hash,
                    "date_of_birth": date_of_birth,
                    "created_at": created_at,
                },
            ).scalar_one()
        except IntegrityError:
            raise EmailTakenError(f"an account with e-mail {email!r} already exists") from None
        return Account(id=new_id, email=email, date_of_birth=date_of_birth, created_at=created_at)

    def get(self, account_id: AccountId) -> Account | None:
        row = self.connection.execute(_ACCOUNT, {"account_id": account_id}).first()
        return None if row is None else _account(row)

    def get_for_update(self, account_id: AccountId) -> Account | None:
        row = self.connection.execute(_ACCOUNT_FOR_UPDATE, {"account_id": account_id}).first()
        return None if row is None else _account(row)

    def by_email(self, email: str) -> StoredAccount | None:
        row = self.connection.execute(_BY_EMAIL, {"email": email}).first()
        if row is None:
            return None
        return StoredAccount(
            account=_account(row),
            password_hash=row.password_hash,
            email_confirmed_at=row.email_confirmed_at,
        )

    def renew_registration(
        self, account_id: AccountId, *, password_hash: str, date_of_birth: dt.date
    ) -> None:
        self.connection.execute(
            update(accounts)
            .where(accounts.c.id == account_id)
            .values(password_hash=password_hash, date_of_birth=date_of_birth)
        )

    def confirm_email(self, account_id: AccountId, at: dt.datetime) -> None:
        self.connection.execute(
            update(accounts).where(accounts.c.id == account_id).values(email_confirmed_at=at)
        )

    def set_password(self, account_id: AccountId, *, password_hash: str) -> None:
        self.connection.execute(
            update(accounts).where(accounts.c.id == account_id).values(password_hash=password_hash)
        )

    def add_session(self, session: Session) -> None:
        self.connection.execute(
            _ADD_SESSION,
            {
                "token_hash": session.token_hash,
                "account_id": session.account_id,
                "created_at": session.created_at,
                "expires_at": session.expires_at,
            },
        )

    def session(self, token_hash: str, now: dt.datetime) -> Session | None:
        row = self.connection.execute(_LIVE_SESSION, {"token_hash": token_hash, "now": now}).first()
        return None if row is None else _session(row)

    def session_for_update(self, token_hash: str, now: dt.datetime) -> Session | None:
        row = self.connection.execute(
            _LIVE_SESSION_LOCKING_ACCOUNT, {"token_hash": token_hash, "now": now}
        ).first()
        return None if row is None else _session(row)

    def remove_session(self, token_hash: str) -> Session | None:
        row = self.connection.execute(
            delete(sessions).where(sessions.c.token_hash == token_hash).returning(*sessions.c)
        ).first()
        return None if row is None else _session(row)

    def remove_expired_sessions(self, now: dt.datetime) -> int:
        done = self.connection.execute(delete(sessions).where(sessions.c.expires_at <= now))
        return done.rowcount

    def remove_sessions(self, account_id: AccountId) -> int:
        done = self.connection.execute(delete(sessions).where(sessions.c.account_id == account_id))
        return done.rowcount

    def renew_session(self, token_hash: str, expires_at: dt.datetime) -> None:
        self.connection.execute(
            update(sessions)
            .where(sessions.c.token_hash == token_hash)
            .values(expires_at=expires_at)
        )


class SqlLoginThrottle:
    """Implements ``service.ports.LoginThrottle``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def hold(self, email: str, client: str) -> None:
        # SQLite: every transaction already holds the write lock from its start (BEGIN
        # IMMEDIATE). PostgreSQL: transaction-level advisory locks on the keys' hashes, which
        # need no privilege on any table; always the client's first, so that two attempts never
        # each hold the lock the other waits for.
        if self.connection.dialect.name == "postgresql":
            self.connection.execute(
                select(
                    func.pg_advisory_xact_lock(func.hashtextextended("login-client:" + client, 0)),
                    func.pg_advisory_xact_lock(func.hashtextextended("login:" + email, 0)),
                )
            )

    def add_failure(self, *, email: str, client: str, at: dt.datetime) -> None:
        self.connection.execute(
            insert(login_failures).values(email=email, client=client[:255], created_at=at)
        )

    def failures(self, *, email: str, client: str, after: dt.datetime) -> LoginFailures:
        def times(column: Any, value: str) -> tuple[dt.datetime, ...]:
            return tuple(
                self.connection.execute(
                    select(login_failures.c.created_at)
                    .where(column == value, login_failures.c.created_at > after)
                    .order_by(login_failures.c.created_at)
                ).scalars()
            )

        return LoginFailures(
            by_email=times(login_failures.c.email, email),
            by_client=times(login_failures.c.client, client[:255]),
        )

    def clear(self, email: str) -> None:
        self.connection.execute(delete(login_failures).where(login_failures.c.email == email))

    def forget_before(self, before: dt.datetime) -> int:
        done = self.connection.execute(
            delete(login_failures).where(login_failures.c.created_at < before)
        )
        return done.rowcount
