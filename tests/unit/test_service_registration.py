"""Registration confirmed by e-mail, on the fakes: the same answer whether or not an address has
an account, the link, its expiry, resending, and login refused until confirmed."""

from __future__ import annotations

import copy
import datetime as dt

import pytest

from colour_collector.service import accounts, registration
from colour_collector.service.accounts import AccountPolicy, Passwords
from colour_collector.service.errors import (
    AlreadyConfirmedError,
    EmailNotConfirmedError,
    InvalidCredentialsError,
    InvalidInputError,
    InvalidTokenError,
    TooManyMailsError,
    UnderageError,
)
from colour_collector.service.registration import RegistrationPolicy
from fakes import FakeDatabase, FakeMailer
from support import link_token

T0 = dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC)
ACCOUNTS = AccountPolicy(passwords=Passwords(time_cost=1, memory_kib=8, parallelism=1))
PASSWORD = "correct horse battery"
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
    email: str = "Player@Example.com",
    *,
    password: str = PASSWORD,
    date_of_birth: dt.date = dt.date(1990, 5, 17),
    now: dt.datetime = T0,
) -> None:
    registration.register(
        db,
        ACCOUNTS,
        policy,
        email=email,
        password=password,
        date_of_birth=date_of_birth,
        client="c1",
        now=now,
    )


def confirm(
    db: FakeDatabase, token: str, now: dt.datetime = T0, password: str = PASSWORD
) -> accounts.LoggedIn:
    return registration.confirm(db, ACCOUNTS, token=token, password=password, client="c1", now=now)


def login(db: FakeDatabase, password: str = PASSWORD) -> accounts.LoggedIn:
    return accounts.login(db, ACCOUNTS, email=EMAIL, password=password, client="c1", now=T0)


def kinds(db: FakeDatabase) -> list[str]:
    return [entry.kind for entry in db.state.audit]


def test_a_new_address_gets_an_unconfirmed_account_and_a_link(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    assert register(db, policy) is None  # nothing to tell the caller: the mail says it
    (stored,) = db.state.accounts.values()
    assert stored.account.email == EMAIL and stored.email_confirmed_at is None
    (mail,) = mailer.to(EMAIL)
    assert mail.subject == "Confirm your Colour Collector account"
    assert "https://play.example.com/#/confirm/" in mail.text
    token = link_token(mail.text)
    (kept,) = db.state.confirmations.values()
    assert kept.token_hash == accounts.hash_token(token) and token not in str(db.state)
    assert kept.expires_at == T0 + dt.timedelta(hours=24)
    assert kinds(db) == ["register"]


def test_a_taken_address_changes_nothing_and_is_told_someone_tried(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    register(db, policy)
    confirm(db, link_token(mailer.to(EMAIL)[0].text))
    before = db.state.accounts.copy(), dict(db.state.confirmations), list(db.state.audit)
    register(db, policy, " PLAYER@example.com ", password="another password entirely")
    assert (db.state.accounts, db.state.confirmations, db.state.audit) == before
    notice = mailer.to(EMAIL)[-1]
    assert notice.subject == "Someone tried to register with your e-mail address"
    assert "log in at https://play.example.com/" in notice.text
    assert "#/confirm/" not in notice.text  # no link, no token
    assert login(db).account.email == EMAIL  # the first password still works


def test_both_answers_are_the_same_and_both_hash_the_password(
    policy: RegistrationPolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = FakeDatabase()
    hashed: list[str] = []
    real = Passwords.hash
    monkeypatch.setattr(Passwords, "hash", lambda self, pw: hashed.append(pw) or real(self, pw))
    fresh = register(db, policy, "new@example.com")
    taken = register(db, policy, "new@example.com")
    assert fresh is taken is None
    assert hashed == [PASSWORD, PASSWORD]


def test_confirming_logs_in_once_and_a_second_click_is_told_it_is_done(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    register(db, policy)
    token = link_token(mailer.to(EMAIL)[0].text)
    done = confirm(db, token, now=T0 + dt.timedelta(hours=1))
    assert done.account.email == EMAIL
    assert accounts.current_account(db, done.token, now=T0 + dt.timedelta(hours=1)).id
    (stored,) = db.state.accounts.values()
    assert stored.email_confirmed_at == T0 + dt.timedelta(hours=1)
    assert kinds(db) == ["register", "email_confirmed", "login"]
    commits = db.commits
    with pytest.raises(AlreadyConfirmedError):
        confirm(db, token, now=T0 + dt.timedelta(hours=2))
    assert db.commits == commits and len(db.state.sessions) == 1


def test_an_expired_or_unknown_link_confirms_nothing(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    register(db, policy)
    token = link_token(mailer.to(EMAIL)[0].text)
    commits = db.commits
    with pytest.raises(InvalidTokenError):
        confirm(db, token, now=T0 + dt.timedelta(hours=24))
    with pytest.raises(InvalidTokenError):
        confirm(db, "A" * 43)
    assert db.commits == commits
    (stored,) = db.state.accounts.values()
    assert stored.email_confirmed_at is None
    just_in_time = T0 + dt.timedelta(hours=24) - dt.timedelta(microseconds=1)
    assert confirm(db, token, now=just_in_time).account.email == EMAIL


def test_login_is_refused_until_confirmed_but_only_with_the_right_password(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    register(db, policy)
    with pytest.raises(InvalidCredentialsError):
        login(db, "wrong password here")
    with pytest.raises(EmailNotConfirmedError):
        login(db)
    assert db.state.sessions == {}
    assert [f[0] for f in db.state.failures] == []  # the right password is forgiven
    confirm(db, link_token(mailer.to(EMAIL)[0].text))
    assert login(db).account.email == EMAIL


def test_resend_mails_only_an_unconfirmed_account_and_answers_the_same(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    assert registration.resend(db, policy, email="nobody@example.com", client="c1", now=T0) is None
    assert mailer.sent == []
    register(db, policy)
    assert registration.resend(db, policy, email=EMAIL, client="c1", now=T0) is None
    first, second = (link_token(m.text) for m in mailer.to(EMAIL))
    assert first != second
    confirm(db, second)
    with pytest.raises(AlreadyConfirmedError):  # every link of the account is used
        confirm(db, first)
    sent = len(mailer.sent)
    assert registration.resend(db, policy, email=EMAIL, client="c1", now=T0) is None
    assert len(mailer.sent) == sent  # confirmed: nothing more


def test_mails_per_address_are_limited_whether_or_not_it_has_an_account(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    register(db, policy)  # one mail asked for EMAIL
    for address, asked in (("nobody@example.com", 0), (EMAIL, 1)):
        for _ in range(3 - asked):
            registration.resend(db, policy, email=address, client="c1", now=T0)
        commits = db.commits
        with pytest.raises(TooManyMailsError) as refused:
            registration.resend(
                db, policy, email=address, client="c1", now=T0 + dt.timedelta(minutes=10)
            )
        assert refused.value.retry_after_seconds == 50 * 60
        with pytest.raises(TooManyMailsError):
            register(db, policy, address, now=T0 + dt.timedelta(minutes=10))
        assert db.commits == commits
    assert len(mailer.to(EMAIL)) == 3 and mailer.to("nobody@example.com") == []
    later = T0 + dt.timedelta(hours=1, seconds=1)
    registration.resend(db, policy, email=EMAIL, client="c1", now=later)  # the window has passed
    assert len(mailer.to(EMAIL)) == 4


def shares(mailer: FakeMailer, *, per_email: int, per_client: int) -> RegistrationPolicy:
    """A policy with these limits on an address's mails, from every client and from one."""
    return RegistrationPolicy(
        mailer,
        "https://play.example.com",
        max_mails_per_email=per_email,
        max_mails_per_email_and_client=per_client,
    )


def test_one_client_cannot_spend_the_mails_of_an_address_for_the_others(
    mailer: FakeMailer,
) -> None:
    """Past its own limit a client is refused while another (the address's owner) may still
    ask; every client together stop at the address's limit. Retry-After is when the oldest
    request that keeps each limit reached ages out."""
    policy = shares(mailer, per_email=5, per_client=2)
    db = FakeDatabase()
    register(db, policy)  # client "c1", at T0
    registration.resend(db, policy, email=EMAIL, client="c1", now=T0 + dt.timedelta(minutes=1))
    commits = db.commits
    with pytest.raises(TooManyMailsError) as refused:
        registration.resend(db, policy, email=EMAIL, client="c1", now=T0 + dt.timedelta(minutes=10))
    assert refused.value.retry_after_seconds == 50 * 60
    assert db.commits == commits
    for minutes in (10, 20, 25):  # the owner, then another client twice: five in all
        client = "owner" if minutes == 10 else "c3"
        at = T0 + dt.timedelta(minutes=minutes)
        registration.resend(db, policy, email=EMAIL, client=client, now=at)
    assert len(mailer.to(EMAIL)) == 5
    with pytest.raises(TooManyMailsError) as refused:
        registration.resend(db, policy, email=EMAIL, client="c4", now=T0 + dt.timedelta(minutes=30))
    assert refused.value.retry_after_seconds == 30 * 60  # the request at T0 ages out first
    assert len(mailer.to(EMAIL)) == 5
    assert [request[2] for request in db.state.mail_requests] == ["c1", "c1", "owner", "c3", "c3"]


def test_with_both_limits_reached_retry_after_waits_for_both(mailer: FakeMailer) -> None:
    """A review's case: the address's limit frees up before this client's does; the client
    told to wait the shorter time would only be refused again."""
    policy = shares(mailer, per_email=5, per_client=2)
    db = FakeDatabase()
    for client, minutes in (("a", 0), ("b", 1), ("b2", 2), ("me", 30), ("me", 40)):
        at = T0 + dt.timedelta(minutes=minutes)
        registration.resend(db, policy, email=EMAIL, client=client, now=at)
    with pytest.raises(TooManyMailsError) as refused:
        registration.resend(db, policy, email=EMAIL, client="me", now=T0 + dt.timedelta(minutes=45))
    assert refused.value.retry_after_seconds == 45 * 60  # until "me"'s request at 30 min ages out
    registration.resend(db, policy, email=EMAIL, client="me", now=T0 + dt.timedelta(minutes=90))


def test_every_address_of_one_ipv6_network_is_one_client(mailer: FakeMailer) -> None:
    policy = shares(mailer, per_email=20, per_client=5)
    db = FakeDatabase()
    for host in range(1, 6):
        registration.resend(db, policy, email=EMAIL, client=f"2001:db8:1:2::{host:x}", now=T0)
    with pytest.raises(TooManyMailsError):
        registration.resend(db, policy, email=EMAIL, client="2001:db8:1:2::99", now=T0)
    registration.resend(db, policy, email=EMAIL, client="198.51.100.20", now=T0)  # the owner


def test_registering_again_before_confirming_takes_the_new_password(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    register(db, policy)
    register(db, policy, password="a newer password", date_of_birth=dt.date(1980, 1, 2))
    (stored,) = db.state.accounts.values()
    assert stored.account.date_of_birth == dt.date(1980, 1, 2)
    old, new = (link_token(m.text) for m in mailer.to(EMAIL))
    confirm(db, old, password="a newer password")  # either link, with the latest password
    assert login(db, "a newer password").account.email == EMAIL
    with pytest.raises(AlreadyConfirmedError):
        confirm(db, new, password="a newer password")


def test_the_link_confirms_only_with_the_latest_registrations_password(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    """Someone who registers a stranger's address, before or after its owner, cannot have the
    owner open the link and confirm an account whose password they know."""
    db = FakeDatabase()
    register(db, policy)  # the owner
    register(db, policy, password="the intruder's password", date_of_birth=dt.date(1970, 1, 1))
    for token in (link_token(m.text) for m in mailer.to(EMAIL)):
        before, commits = copy.deepcopy(db.state), db.commits
        with pytest.raises(InvalidCredentialsError):
            confirm(db, token)  # the owner's own password
        assert db.commits == commits and db.state == before
    with pytest.raises(EmailNotConfirmedError):  # not confirmed: the intruder cannot log in
        login(db, "the intruder's password")
    register(db, policy)  # the owner registers again: theirs is the latest password
    confirm(db, link_token(mailer.to(EMAIL)[-1].text))
    assert login(db).account.email == EMAIL
    with pytest.raises(InvalidCredentialsError):
        login(db, "the intruder's password")


def test_a_registration_made_while_the_password_is_checked_is_not_confirmed(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    """The password is checked outside the transaction (Argon2 is slow); the account is
    confirmed only if its password is still the one checked."""
    db = FakeDatabase()
    register(db, policy)

    class RegisteredMeanwhile(Passwords):
        def verify(self, password_hash: str | None, password: str) -> bool:
            matches = super().verify(password_hash, password)
            register(db, policy, password="the intruder's password")
            return matches

    slow = AccountPolicy(passwords=RegisteredMeanwhile(time_cost=1, memory_kib=8, parallelism=1))
    token = link_token(mailer.to(EMAIL)[0].text)
    with pytest.raises(InvalidCredentialsError):
        registration.confirm(db, slow, token=token, password=PASSWORD, client="c1", now=T0)
    (stored,) = db.state.accounts.values()
    assert stored.email_confirmed_at is None and db.state.sessions == {}


@pytest.mark.parametrize(
    ("values", "error", "fields"),
    [
        ({"date_of_birth": dt.date(2008, 12, 4)}, UnderageError, ["date_of_birth"]),
        ({"email": "no-at-sign", "password": "short"}, InvalidInputError, ["email", "password"]),
    ],
)
def test_bad_fields_are_refused_before_anything_is_written_or_mailed(
    mailer: FakeMailer,
    policy: RegistrationPolicy,
    values: dict[str, object],
    error: type[Exception],
    fields: list[str],
) -> None:
    db = FakeDatabase()
    with pytest.raises(error) as refused:
        register(db, policy, **values)  # type: ignore[arg-type]
    assert isinstance(refused.value, InvalidInputError)
    assert [field for field, _ in refused.value.problems] == fields
    assert db.commits == 0 and mailer.sent == []


def test_a_mail_server_down_answers_the_same_and_keeps_the_account(
    mailer: FakeMailer, policy: RegistrationPolicy
) -> None:
    db = FakeDatabase()
    mailer.fail = True
    assert register(db, policy) is None
    assert len(db.state.accounts) == 1 and mailer.sent == []
    mailer.fail = False
    registration.resend(db, policy, email=EMAIL, client="c1", now=T0)
    confirm(db, link_token(mailer.to(EMAIL)[0].text))
