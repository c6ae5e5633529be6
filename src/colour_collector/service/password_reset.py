"""A forgotten password, reset by a link mailed to the account's address.

Asking for a link (:func:`forgot`) answers the same whether or not the address has an account,
so it cannot be used to find out who plays: every request is counted by the per-address mail
throttle that registrations use (``service.registration``), and refused past its limit for
every address alike; only an address with an account is mailed. A confirmed account's gets a
link that works once, for ``RegistrationPolicy.reset_link_lifetime`` (an hour). An account not
confirmed yet gets no link but a notice to register again: its password and date of birth are
the latest registration's, possibly someone else's who typed the address, and registering again
replaces both (``service.registration``), where a reset would have confirmed the account with
the other person's date of birth. The mail is handed over
after the commit, as registration's are, and after the answer when the caller says how
(``deliver``: the route's background tasks), so the time the answer takes does not tell whether
a mail was sent either.

Setting the new password (:func:`reset`) checks it with registration's rules and hashes it
outside any transaction (a link that does not work is refused before the slow hash). Then, in
one unit of work: the password is replaced, every reset link of the account is used up, every
session of the account ends (one opened with a stolen password must not survive the reset), the
address's failed logins are forgiven, and the player is logged in. A link of an account not
confirmed (mailed before such accounts were told to register again) is refused.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Callable

from colour_collector.service import audit
from colour_collector.service.accounts import (
    AccountPolicy,
    LoggedIn,
    check_password,
    hash_token,
    normalise_email,
    start_session,
)
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import InvalidTokenError
from colour_collector.service.models import (
    Account,
    AccountId,
    AuditKind,
    ConfirmationToken,
    TokenPurpose,
)
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory
from colour_collector.service.registration import (
    Mail,
    RegistrationPolicy,
    count_mail,
    send_mail,
)

Deliver = Callable[[Callable[[], None]], None]
"""Runs a job once the caller is done: the route hands the job to the answer's background tasks
(run after the answer is sent); by default it runs at once."""

LINK_REFUSED = (
    "this password reset link is unknown, has expired or was used already; ask for a new one"
)
"""What a link that does not work is told (the same whatever the reason)."""


def _at_once(job: Callable[[], None]) -> None:
    job()


def forgot(
    factory: UnitOfWorkFactory,
    policy: RegistrationPolicy,
    *,
    email: str,
    client: str,
    now: dt.datetime | None = None,
    deliver: Deliver = _at_once,
) -> None:
    """Mail a link to reset the password if ``email`` has a confirmed account, a notice to
    register again if it has one not confirmed yet, and nothing otherwise, with the same answer
    and the same work up to the mail.

    Raises :class:`InvalidInputError` for what is not an e-mail address and
    :class:`TooManyMailsError` past the address's limit from ``client`` or from every client
    (counted with registration's mails), both before anything is written.
    """
    at = now or utcnow()
    normalised = normalise_email(email)
    token = secrets.token_urlsafe(32)  # on every path, used only if there is an account
    with factory() as uow:
        count_mail(uow, policy, normalised, client, at)
        stored = uow.accounts.by_email(normalised)
        if stored is None:
            mail = None
        elif stored.email_confirmed_at is None:
            mail = _register_again(normalised)
        else:
            mail = _new_link(uow, policy, stored.account.id, normalised, token=token, at=at)
        uow.commit()

    def send() -> None:
        if mail is not None:
            send_mail(policy.mailer, mail)

    deliver(send)


def reset(
    factory: UnitOfWorkFactory,
    accounts: AccountPolicy,
    *,
    token: str,
    password: str,
    client: str,
    now: dt.datetime | None = None,
) -> LoggedIn:
    """Set the password of the account of a mailed reset link, end its other sessions and log
    its player in.

    Raises :class:`InvalidInputError` naming ``password`` for one registration would refuse,
    and :class:`InvalidTokenError` for a link unknown, expired, used already, mailed for
    something else (to confirm an account) or of an account not confirmed (mailed before such
    accounts were told to register again); neither writes anything.
    """
    at = now or utcnow()
    check_password(password)
    token_hash = hash_token(token)
    with factory() as uow:  # a look first: a link that does not work costs no password hash
        found = _working(uow.confirmations.get(token_hash, TokenPurpose.RESET), at)
        _confirmed(uow, uow.accounts.get(found.account_id))
    password_hash = accounts.passwords.hash(password)  # slow: before the transaction
    with factory() as uow:
        found = _working(uow.confirmations.get(token_hash, TokenPurpose.RESET), at)
        account = _confirmed(uow, uow.accounts.get_for_update(found.account_id))
        # Again, under the account's lock: a reset running alongside may have used it.
        _working(uow.confirmations.get(token_hash, TokenPurpose.RESET), at)
        uow.accounts.set_password(account.id, password_hash=password_hash)
        uow.confirmations.use_all(account.id, at, TokenPurpose.RESET)
        ended = uow.accounts.remove_sessions(account.id)
        uow.login_throttle.clear(account.email)
        logged_in = start_session(uow, accounts, account, now=at)
        audit.append(uow, AuditKind.PASSWORD_RESET, account.id, {"sessions_ended": ended}, now=at)
        audit.append(uow, AuditKind.LOGIN, account.id, {"client": client}, now=at)
        uow.commit()
    return logged_in


def _working(found: ConfirmationToken | None, at: dt.datetime) -> ConfirmationToken:
    if found is None or found.used_at is not None or found.expires_at <= at:
        raise InvalidTokenError(LINK_REFUSED)
    return found


def _confirmed(uow: UnitOfWork, account: Account | None) -> Account:
    """``account``, if it is confirmed. None (tokens reference accounts: a broken database) or
    an account not confirmed, whose link was mailed before such accounts were told to register
    again (``forgot``), is refused as a link that does not work."""
    stored = None if account is None else uow.accounts.by_email(account.email)
    if account is None or stored is None or stored.email_confirmed_at is None:
        raise InvalidTokenError(LINK_REFUSED)
    return account


def _new_link(
    uow: UnitOfWork,
    policy: RegistrationPolicy,
    account_id: AccountId,
    email: str,
    *,
    token: str,
    at: dt.datetime,
) -> Mail:
    lifetime = policy.reset_link_lifetime
    uow.confirmations.add(
        ConfirmationToken(
            hash_token(token), account_id, at, at + lifetime, purpose=TokenPurpose.RESET
        )
    )
    return Mail(
        to=email,
        subject="Reset your Colour Collector password",
        text=(
            "Hello,\n\n"
            "Someone asked to reset the password of the Colour Collector account of this"
            " e-mail address. To choose a new password, open this link:\n\n"
            f"{policy.reset_link(token)}\n\n"
            f"The link works once, for {_duration(lifetime)}. Setting a new password logs out"
            " every device logged in to the account.\n\n"
            "If you did not ask for this, ignore this e-mail: your password stays as it is.\n"
        ),
    )


def _register_again(email: str) -> Mail:
    return Mail(
        to=email,
        subject="Your Colour Collector registration was not confirmed",
        text=(
            "Hello,\n\n"
            "Someone asked to reset the password of the Colour Collector account of this"
            " e-mail address, but the account was never confirmed, so its password cannot be"
            " reset.\n\n"
            "To play, register again with this address: choose your password and give your date"
            " of birth, then open the link we mail you to confirm the address. Registering"
            " again replaces whatever was given before.\n\n"
            "If you did not ask for this, ignore this e-mail: nothing has changed.\n"
        ),
    )


def _duration(lifetime: dt.timedelta) -> str:
    minutes = round(lifetime.total_seconds() / 60)
    if minutes % 60:
        return f"{minutes} minutes" if minutes != 1 else "1 minute"
    hours = minutes // 60
    return f"{hours} hours" if hours != 1 else "1 hour"
