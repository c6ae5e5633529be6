"""Registration confirmed by e-mail: register, confirm the mailed link, ask for it again.

Registration answers the same whether or not the address has an account, so it cannot be used to
find out who plays: a new address gets an unconfirmed account and a link to confirm it; an
address with a confirmed account gets a mail saying someone tried to register with it (and how
to log in); an address whose account is not confirmed yet takes the new password and date of
birth and gets a new link. Both paths hash the password (Argon2id is most of the time taken) and
send one mail, after the commit (decision record 0007). Mails asked for one address are counted
whether or not it has an account, and refused past a limit with the same answer for every
address; a forgotten password's mails (``service.password_reset``) count with them.

A link holds a random token; only its SHA-256 is stored, with an expiry and its purpose (a link
to reset a password never confirms an account, nor the reverse). Confirming takes the link and
the password of the latest registration (so a registration someone else made with the address
cannot be confirmed by its owner opening the link), marks every confirmation link of the
account used, confirms the address and logs the player in.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import secrets
from dataclasses import dataclass

from colour_collector.service import audit
from colour_collector.service.accounts import (
    AccountPolicy,
    LoggedIn,
    check_registration,
    hash_token,
    normalise_email,
    start_session,
)
from colour_collector.service.clients import counted_client
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    AlreadyConfirmedError,
    EmailTakenError,
    InvalidCredentialsError,
    InvalidTokenError,
    TooManyMailsError,
)
from colour_collector.service.models import (
    AccountId,
    AuditKind,
    ConfirmationToken,
    StoredAccount,
    TokenPurpose,
)
from colour_collector.service.ports import Mailer, UnitOfWork, UnitOfWorkFactory

log = logging.getLogger(__name__)

CONFIRM_ROUTE = "/#/confirm/"
"""Where a confirmation link points, after the public address: the client's confirm screen."""
RESET_ROUTE = "/#/reset/"
"""Where a password reset link points, after the public address: the client's reset screen."""


@dataclass(frozen=True, slots=True)
class RegistrationPolicy:
    """How the mails to accounts' addresses (registrations, password resets) are sent and
    throttled, and their links timed."""

    mailer: Mailer
    """Sends the mails."""
    public_url: str
    """The address players open the game at (``https://play.example.com``), for the links."""
    link_lifetime: dt.timedelta = dt.timedelta(hours=24)
    """How long a confirmation link works."""
    max_mails_per_email: int = 20
    """Mails (registrations, resends and password resets) one address may be asked for within
    ``mail_window``, by every client together: what its mailbox can be sent."""
    max_mails_per_email_and_client: int = 5
    """Of those, what one client may ask for: one client alone cannot spend the address's
    mails and keep its owner from asking for a link."""
    mail_window: dt.timedelta = dt.timedelta(hours=1)
    """How far back mails asked for count."""
    reset_link_lifetime: dt.timedelta = dt.timedelta(hours=1)
    """How long a password reset link works."""

    def link(self, token: str) -> str:
        """The confirmation link for ``token``."""
        return self.public_url.rstrip("/") + CONFIRM_ROUTE + token

    def reset_link(self, token: str) -> str:
        """The password reset link for ``token``."""
        return self.public_url.rstrip("/") + RESET_ROUTE + token


@dataclass(frozen=True, slots=True)
class Mail:
    """A mail to send once the unit of work that asked for it has committed."""

    to: str
    """The normalised address."""
    subject: str
    """Its subject line."""
    text: str
    """Its plain-text body."""


def register(
    factory: UnitOfWorkFactory,
    accounts: AccountPolicy,
    policy: RegistrationPolicy,
    *,
    email: str,
    password: str,
    date_of_birth: dt.date,
    client: str,
    now: dt.datetime | None = None,
) -> None:
    """Register ``email`` (asked by ``client``, for the mail throttle), answering the same
    whether or not it has an account.

    Raises :class:`InvalidInputError` naming every bad field (:class:`UnderageError` first) and
    :class:`TooManyMailsError` past the address's limit from ``client`` or from every client,
    both before anything is written.
    """
    at = now or utcnow()
    normalised = check_registration(email, password, date_of_birth, at.date())
    password_hash = accounts.passwords.hash(password)  # slow, on every path: before the transaction
    try:
        mail = _register(
            factory,
            policy,
            email=normalised,
            password_hash=password_hash,
            date_of_birth=date_of_birth,
            client=client,
            at=at,
        )
    except EmailTakenError:  # registered meanwhile by a concurrent request: now it is taken
        mail = _register(
            factory,
            policy,
            email=normalised,
            password_hash=password_hash,
            date_of_birth=date_of_birth,
            client=client,
            at=at,
        )
    send_mail(policy.mailer, mail)


def _register(
    factory: UnitOfWorkFactory,
    policy: RegistrationPolicy,
    *,
    email: str,
    password_hash: str,
    date_of_birth: dt.date,
    client: str,
    at: dt.datetime,
) -> Mail:
    with factory() as uow:
        count_mail(uow, policy, email, client, at)
        stored = uow.accounts.by_email(email)
        if stored is None:
            account = uow.accounts.add(
                email=email, password_hash=password_hash, date_of_birth=date_of_birth, created_at=at
            )
            mail = _new_link(uow, policy, account.id, email, at)
            audit.append(uow, AuditKind.REGISTER, account.id, {"email": email}, now=at)
        elif stored.email_confirmed_at is None:
            account_id = stored.account.id
            uow.accounts.renew_registration(
                account_id, password_hash=password_hash, date_of_birth=date_of_birth
            )
            mail = _new_link(uow, policy, account_id, email, at)
            audit.append(
                uow, AuditKind.REGISTER, account_id, {"email": email, "again": True}, now=at
            )
        else:
            mail = _someone_tried(policy, email)
        uow.commit()
    return mail


def confirm(
    factory: UnitOfWorkFactory,
    accounts: AccountPolicy,
    *,
    token: str,
    password: str,
    client: str,
    now: dt.datetime | None = None,
) -> LoggedIn:
    """Confirm the account of a mailed link, given the password it was registered with, and log
    its player in.

    The link proves the mailbox; the password proves that the registration being confirmed is
    the mailbox owner's. Without it, anyone could register (or register again) a stranger's
    address with a password of their own and wait for its owner to open the link: the owner
    would confirm an account whose password someone else knows.

    Raises :class:`InvalidTokenError` for an unknown or expired link,
    :class:`AlreadyConfirmedError` for a link of an account confirmed already (a second click:
    it does not log in again) and :class:`InvalidCredentialsError` for a password that is not
    the account's (its latest registration's); none of them writes anything.
    """
    at = now or utcnow()
    token_hash = hash_token(token)
    with factory() as uow:
        found = _live_link(uow, token_hash, at)
        if found.used_at is not None:
            raise AlreadyConfirmedError("this account is confirmed already: log in")
        stored = _stored(uow, found.account_id)
    # Argon2 is slow: outside any transaction, as a login checks it; the hash checked is
    # compared again under the lock, in case the address was registered again meanwhile.
    if not accounts.passwords.verify(stored.password_hash, password):
        raise InvalidCredentialsError(_NOT_THE_PASSWORD)
    with factory() as uow:
        account = uow.accounts.get_for_update(found.account_id)
        found = _live_link(uow, token_hash, at)  # again, locked
        if account is None:  # tokens reference accounts: a broken database
            raise InvalidTokenError("this confirmation link is unknown")
        if found.used_at is not None:
            raise AlreadyConfirmedError("this account is confirmed already: log in")
        if _stored(uow, account.id).password_hash != stored.password_hash:
            raise InvalidCredentialsError(_NOT_THE_PASSWORD)
        uow.confirmations.use_all(account.id, at, TokenPurpose.CONFIRM)
        uow.accounts.confirm_email(account.id, at)
        logged_in = start_session(uow, accounts, account, now=at)
        audit.append(uow, AuditKind.EMAIL_CONFIRMED, account.id, {}, now=at)
        audit.append(uow, AuditKind.LOGIN, account.id, {"client": client}, now=at)
        uow.commit()
    return logged_in


_NOT_THE_PASSWORD = (
    "this is not the password the address was registered with (the latest registration's, if"
    " it was registered more than once)"
)


def _live_link(uow: UnitOfWork, token_hash: str, at: dt.datetime) -> ConfirmationToken:
    """The confirmation link of ``token_hash``, used or not; :class:`InvalidTokenError` if it
    is unknown, or expired unused."""
    found = uow.confirmations.get(token_hash, TokenPurpose.CONFIRM)
    if found is None or (found.used_at is None and found.expires_at <= at):
        raise InvalidTokenError(
            "this confirmation link is unknown or has expired; ask for a new one"
        )
    return found


def _stored(uow: UnitOfWork, account_id: AccountId) -> StoredAccount:
    """The account of a link, with its password hash."""
    account = uow.accounts.get(account_id)
    stored = None if account is None else uow.accounts.by_email(account.email)
    if stored is None:  # tokens reference accounts: a broken database
        raise InvalidTokenError("this confirmation link is unknown")
    return stored


def resend(
    factory: UnitOfWorkFactory,
    policy: RegistrationPolicy,
    *,
    email: str,
    client: str,
    now: dt.datetime | None = None,
) -> None:
    """Mail a new confirmation link if ``email`` has an account not confirmed yet; nothing
    otherwise, with the same answer. :class:`TooManyMailsError` past the address's limit from
    ``client`` or from every client."""
    at = now or utcnow()
    normalised = normalise_email(email)
    mail = None
    with factory() as uow:
        count_mail(uow, policy, normalised, client, at)
        stored = uow.accounts.by_email(normalised)
        if stored is not None and stored.email_confirmed_at is None:
            mail = _new_link(uow, policy, stored.account.id, normalised, at)
        uow.commit()
    if mail is not None:
        send_mail(policy.mailer, mail)


def count_mail(
    uow: UnitOfWork, policy: RegistrationPolicy, email: str, client: str, at: dt.datetime
) -> None:
    """Count a mail asked for ``email`` by ``client`` inside ``uow``, whether or not the
    address has an account; :class:`TooManyMailsError` (nothing counted) past the limit of the
    address from this client or from every client."""
    client = counted_client(client)
    recent = uow.mail_throttle.requests(email=email, after=at - policy.mail_window)
    mine = [r for r in recent if r.client == client]
    waits = [
        # Asking again is useful once the oldest of those that keep a limit reached has aged
        # out; with both reached, once both have.
        math.ceil((counted[len(counted) - limit].at + policy.mail_window - at).total_seconds())
        for counted, limit in (
            (recent, policy.max_mails_per_email),
            (mine, policy.max_mails_per_email_and_client),
        )
        if len(counted) >= limit
    ]
    if waits:
        raise TooManyMailsError(
            "too many e-mails asked for this address recently; try again later",
            retry_after_seconds=max(1, *waits),
        )
    uow.mail_throttle.add(email=email, client=client, at=at)
    uow.mail_throttle.forget_before(at - policy.mail_window * 4)


def _new_link(
    uow: UnitOfWork, policy: RegistrationPolicy, account_id: AccountId, email: str, at: dt.datetime
) -> Mail:
    token = secrets.token_urlsafe(32)
    expires = at + policy.link_lifetime
    uow.confirmations.add(
        ConfirmationToken(hash_token(token), account_id, at, expires, purpose=TokenPurpose.CONFIRM)
    )
    hours = round(policy.link_lifetime.total_seconds() / 3600)
    return Mail(
        to=email,
        subject="Confirm your Colour Collector account",
        text=(
            "Hello,\n\n"
            "To finish registering for Colour Collector, open this link and enter the password"
            " you chose when you registered:\n\n"
            f"{policy.link(token)}\n\n"
            f"The link works once, for {hours} hours. If it has expired, ask for a new one from"
            " the log-in page.\n\n"
            "If you did not register, ignore this e-mail: without the link and that password no"
            " account is opened.\n"
        ),
    )


def _someone_tried(policy: RegistrationPolicy, email: str) -> Mail:
    home = policy.public_url.rstrip("/") + "/"
    return Mail(
        to=email,
        subject="Someone tried to register with your e-mail address",
        text=(
            "Hello,\n\n"
            "Someone tried to register for Colour Collector with this e-mail address, which"
            " already has an account. No account was changed.\n\n"
            f"If it was you, log in at {home} with the password you chose when you first"
            " registered.\n\n"
            "If it was not you, you can ignore this e-mail.\n"
        ),
    )


def send_mail(mailer: Mailer, mail: Mail) -> None:
    """Hand ``mail`` to ``mailer``, after the commit of the unit of work that asked for it."""
    # After the commit, outside any transaction: a mail cannot be rolled back. A failure is
    # logged, not shown: the answer must not depend on the address, and the player can ask for
    # the link again (resend, or forgot password).
    try:
        mailer.send(mail.to, mail.subject, mail.text)
    except OSError:
        log.exception("could not send the mail %r", mail.subject)
