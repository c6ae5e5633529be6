"""Accounts and their sessions, failed logins, the links mailed to confirm an account or reset
a password, and the mails asked for per address."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from colour_collector.service.models import (
    Account,
    AccountId,
    ConfirmationToken,
    LoginFailures,
    MailRequest,
    Session,
    StoredAccount,
    TokenPurpose,
)


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
        """:meth:`session`, with its account locked as :meth:`get_for_update` locks it: as it is
        once the lock is held, so a session ended by whoever held the lock before (a password
        reset) is not found."""
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

    def hold(self, email: str, client: str) -> None:
        """Count the attempts at ``email`` (an address, or an operator's name), and those from
        ``client``, one after another until this unit of work ends: an attempt made at the same
        time at either waits here, then sees this one's failure. No row is locked for it: an
        address may have no account, and the server may only read operators."""
        ...

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
    whether or not it has an account, with the client that asked, shared by every server
    process."""

    def add(self, *, email: str, client: str, at: dt.datetime) -> None:
        """Record one request from ``client`` for a mail to ``email``."""
        ...

    def requests(self, *, email: str, after: dt.datetime) -> tuple[MailRequest, ...]:
        """Requests for ``email`` later than ``after``, from every client, oldest first."""
        ...

    def forget_before(self, before: dt.datetime) -> int:
        """Forget requests older than ``before``; how many."""
        ...
