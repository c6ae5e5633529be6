"""A forgotten password reset by a mailed link, on the fakes: the same answer and work whether or
not an address has an account, the mail throttle shared with registration, a notice to register
again (no link) for an account not confirmed, and a reset that sets the password, ends every
session, uses its links up and logs in; links that do not work and weak passwords change
nothing."""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable

import pytest

from colour_collector.service import accounts, password_reset, registration
from colour_collector.service.accounts import Passwords
from colour_collector.service.errors import (
    InvalidCredentialsError,
    InvalidInputError,
    InvalidTokenError,
    NotAuthenticatedError,
    TooManyMailsError,
)
from colour_collector.service.models import ConfirmationToken, TokenPurpose
from colour_collector.service.registration import RegistrationPolicy
from fakes import FakeDatabase, FakeMailer
from support import PASSWORD, POLICY, link_token, reset_token

T0 = dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC)
NEW_PASSWORD = "a brand new password"
EMAIL = "player@example.com"


@pytest.fixture
def mailer() -> FakeMailer:
    return FakeMailer()


@pytest.fixture
def policy(mailer: FakeMailer) -> RegistrationPolicy:
    return RegistrationPolicy(mailer, "https://play.example.com", max_mails_per_email=3)


def register(
    db: FakeDatabase,
    policy: RegistrationPolicy,
    *,
    email: str = EMAIL,
    password: str = PASSWORD,
    date_of_birth: dt.date = dt.date(1990, 5, 17),
    now: dt.datetime = T0,
) -> None:
    registration.register(
        db,
        POLICY,
        policy,
        email=email,
        password=password,
        date_of_birth=date_of_birth,
        client="c1",
        now=now,
    )


def sign_up(db: FakeDatabase, policy: RegistrationPolicy, mailer: FakeMailer) -> str:
    """A confirmed account, logged in; its session token."""
    register(db, policy)
    token = link_token(mailer.to(EMAIL)[-1].text)
    return registration.confirm(
        db, POLICY, token=token, password=PASSWORD, client="c1", now=T0
    ).token


def forgot(
    db: FakeDatabase,
    policy: RegistrationPolicy,
    email: str = EMAIL,
    *,
    now: dt.datetime = T0,
    deliver: Callable[[Callable[[], None]], None] | None = None,
) -> None:
    if deliver is None:
        password_reset.forgot(db, policy, email=email, client="c1", now=now)
    else:
        password_reset.forgot(db, policy, email=email, client="c1", now=now, deliver=deliver)


def reset(
    db: FakeDatabase,
    token: str,
    password: str = NEW_PASSWORD,
    *,
    now: dt.datetime = T0 + dt.timedelta(minutes=10),
) -> accounts.LoggedIn:
    return password_reset.reset(db, POLICY, token=token, password=password, client="c2", now=now)


def login(db: FakeDatabase, password: str, now: dt.datetime = T0) -> accounts.LoggedIn:
    return accounts.login(db, POLICY, email=EMAIL, password=password, client="c1", now=now)


def kinds(db: FakeDatabase) -> list[str]:
    return [entry.kind for entry in db.state.audit]


def test_a_link_is_mailed_only_to_an_address_with_an_account(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    sign_up(db, policy, mailer)
    audited = kinds(db)
    assert forgot(db, policy, "nobody@example.com") is None
    assert mailer.to("nobody@example.com") == []
    assert forgot(db, policy, " Player@Example.COM ") is None  # normalised as at registration
    mail = mailer.to(EMAIL)[-1]
    assert mail.subject == "Reset your Colour Collector password"
    assert "https://play.example.com/#/reset/" in mail.text
    assert "works once, for 1 hour" in mail.text
    token = reset_token(mail.text)
    (stored,) = [t for t in db.state.confirmations.values() if t.purpose is TokenPurpose.RESET]
    assert stored.token_hash == accounts.hash_token(token) and token not in str(db.state)
    assert stored.expires_at == T0 + dt.timedelta(hours=1) and stored.used_at is None
    assert kinds(db) == audited  # asking writes nothing to the audit log


def test_the_answer_and_the_work_are_the_same_with_or_without_an_account(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    sign_up(db, policy, mailer)
    pending = "pending@example.com"  # an account not confirmed: told to register again
    register(db, policy, email=pending)
    sent = len(mailer.sent)
    jobs: list[Callable[[], None]] = []
    addresses = [EMAIL, pending, "nobody@example.com"]
    for email in addresses:
        commits = db.commits
        assert forgot(db, policy, email, deliver=jobs.append) is None
        assert db.commits == commits + 1  # one unit of work on every path
    assert [request[0] for request in db.state.mail_requests][-3:] == addresses
    assert len(jobs) == 3  # a job to run after the answer on every path...
    assert len(mailer.sent) == sent  # ...and nothing mailed before it runs
    for job in jobs:
        job()
    assert [m.to for m in mailer.sent[sent:]] == [EMAIL, pending]


def test_a_malformed_address_is_refused_naming_it(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    with pytest.raises(InvalidInputError) as refused:
        forgot(db, policy, "no-at-sign")
    assert refused.value.field == "email"
    assert db.commits == 0 and mailer.sent == []


def test_mails_count_against_the_registration_throttle_for_every_address(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    register(db, policy)  # one mail asked for EMAIL
    for address, asked in ((EMAIL, 1), ("nobody@example.com", 0)):
        for _ in range(3 - asked):
            forgot(db, policy, address)
        commits = db.commits
        with pytest.raises(TooManyMailsError) as refused:
            forgot(db, policy, address, now=T0 + dt.timedelta(minutes=10))
        assert refused.value.retry_after_seconds == 50 * 60
        with pytest.raises(TooManyMailsError):  # and registration's count has them
            registration.resend(
                db, policy, email=address, client="c1", now=T0 + dt.timedelta(minutes=10)
            )
        assert db.commits == commits
    assert len(mailer.to(EMAIL)) == 3 and mailer.to("nobody@example.com") == []
    forgot(db, policy, now=T0 + dt.timedelta(hours=1, seconds=1))  # the window has passed
    assert len(mailer.to(EMAIL)) == 4


def test_a_reset_sets_the_password_ends_every_session_uses_the_links_and_logs_in(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    first_session = sign_up(db, policy, mailer)
    second_session = login(db, PASSWORD).token
    with pytest.raises(InvalidCredentialsError):  # a failed login, forgiven by the reset
        login(db, "not the password at all")
    forgot(db, policy)
    forgot(db, policy)
    older, newer = (reset_token(m.text) for m in mailer.to(EMAIL)[-2:])
    before = kinds(db)
    at = T0 + dt.timedelta(minutes=30)
    done = reset(db, newer, now=at)
    assert done.account.email == EMAIL
    assert accounts.current_account(db, done.token, now=at).email == EMAIL
    for stolen in (first_session, second_session):
        with pytest.raises(NotAuthenticatedError):
            accounts.current_account(db, stolen, now=at)
    assert len(db.state.sessions) == 1
    assert kinds(db) == [*before, "password_reset", "login"]
    assert db.state.audit[-2].payload == '{"sessions_ended":2}'
    resets = [t for t in db.state.confirmations.values() if t.purpose is TokenPurpose.RESET]
    assert [t.used_at for t in resets] == [at, at]
    assert db.state.failures == []
    with pytest.raises(InvalidCredentialsError):
        login(db, PASSWORD, now=at)
    assert login(db, NEW_PASSWORD, now=at).account.email == EMAIL
    with pytest.raises(InvalidTokenError):  # every reset link of the account is used up
        reset(db, older, "yet another password", now=at)


def test_an_address_not_confirmed_is_told_to_register_again_which_replaces_its_birth_date(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    register(db, policy)  # perhaps by someone else: not confirmed, it cannot log in
    before, commits = copy.deepcopy(db.state.confirmations), db.commits
    assert forgot(db, policy) is None
    assert db.commits == commits + 1  # the throttle's count, as on every path
    notice = mailer.to(EMAIL)[-1]
    assert notice.subject == "Your Colour Collector registration was not confirmed"
    assert "register again" in notice.text and "/#/" not in notice.text  # no link of any kind
    assert db.state.confirmations == before and kinds(db) == ["register"]
    # The mailbox's owner registers again, with their own password and date of birth.
    register(db, policy, password=NEW_PASSWORD, date_of_birth=dt.date(2001, 2, 3))
    link = link_token(mailer.to(EMAIL)[-1].text)
    registration.confirm(db, POLICY, token=link, password=NEW_PASSWORD, client="c1", now=T0)
    (stored,) = db.state.accounts.values()
    assert stored.account.date_of_birth == dt.date(2001, 2, 3)
    assert login(db, NEW_PASSWORD).account.email == EMAIL


def _earlier_link(db: FakeDatabase, purpose: TokenPurpose, token: str = "B" * 43) -> str:
    """A link of ``purpose`` for the one account, as an earlier version mailed it (a reset link
    to an account not confirmed, or a confirmation link not used): ``token``."""
    (stored,) = db.state.accounts.values()
    with db() as uow:
        uow.confirmations.add(
            ConfirmationToken(
                accounts.hash_token(token),
                stored.account.id,
                T0,
                T0 + dt.timedelta(hours=1),
                purpose=purpose,
            )
        )
        uow.commit()
    return token


@pytest.mark.parametrize("which", ["expired", "used", "unknown", "confirmation"])
def test_a_link_that_does_not_work_changes_nothing(
    mailer: FakeMailer,
    policy: RegistrationPolicy,
    monkeypatch: pytest.MonkeyPatch,
    which: str,
) -> None:
    db = FakeDatabase()
    sign_up(db, policy, mailer)
    confirmation = _earlier_link(db, TokenPurpose.CONFIRM)
    forgot(db, policy)
    token = reset_token(mailer.to(EMAIL)[-1].text)
    now = T0 + dt.timedelta(minutes=10)
    if which == "used":
        reset(db, token, now=now)
    elif which == "expired":
        now = T0 + dt.timedelta(hours=1)
    elif which == "unknown":
        token = "A" * 43
    else:
        token = confirmation  # a link to confirm the account is no link to reset its password
    before, commits = copy.deepcopy(db.state), db.commits
    hashed: list[str] = []
    monkeypatch.setattr(Passwords, "hash", lambda _self, password: hashed.append(password))
    with pytest.raises(InvalidTokenError):
        reset(db, token, "some other password", now=now)
    assert db.commits == commits and db.state == before
    assert hashed == []  # refused before the slow hash


def test_a_link_works_until_the_last_moment_of_its_hour(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    sign_up(db, policy, mailer)
    forgot(db, policy)
    token = reset_token(mailer.to(EMAIL)[-1].text)
    just_in_time = T0 + dt.timedelta(hours=1) - dt.timedelta(microseconds=1)
    assert reset(db, token, now=just_in_time).account.email == EMAIL


@pytest.mark.parametrize("given_to", ["reset", "confirm"])
def test_a_reset_link_of_an_account_not_confirmed_neither_resets_nor_confirms(
    mailer: FakeMailer,
    policy: RegistrationPolicy,
    given_to: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = FakeDatabase()
    register(db, policy)
    token = _earlier_link(db, TokenPurpose.RESET)
    before, commits = copy.deepcopy(db.state), db.commits
    hashed: list[str] = []
    monkeypatch.setattr(Passwords, "hash", lambda _self, password: hashed.append(password))
    with pytest.raises(InvalidTokenError):
        if given_to == "reset":
            reset(db, token)
        else:  # a reset link is no link to confirm an account either
            registration.confirm(db, POLICY, token=token, password=PASSWORD, client="c1", now=T0)
    assert db.commits == commits and db.state == before
    assert hashed == []  # refused before the slow hash


@pytest.mark.parametrize("password", ["short", "", "x" * 9, "x" * 257])
def test_a_password_registration_refuses_is_refused_and_changes_nothing(
    mailer: FakeMailer, policy: RegistrationPolicy, password: str
) -> None:
    db = FakeDatabase()
    sign_up(db, policy, mailer)
    forgot(db, policy)
    token = reset_token(mailer.to(EMAIL)[-1].text)
    before, commits = copy.deepcopy(db.state), db.commits
    with pytest.raises(InvalidInputError) as refused:
        reset(db, token, password)
    assert [field for field, _ in refused.value.problems] == ["password"]
    assert db.commits == commits and db.state == before
    assert reset(db, token).account.email == EMAIL  # the link still works


def test_a_mail_server_down_answers_the_same_and_a_later_link_works(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    sign_up(db, policy, mailer)
    mailer.fail = True
    assert forgot(db, policy) is None  # logged, not raised: the answer must not differ
    mailer.fail = False
    forgot(db, policy)
    assert reset(db, reset_token(mailer.to(EMAIL)[-1].text)).account.email == EMAIL
