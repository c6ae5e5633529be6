"""Accounts, sessions, the login throttle, the wallet and the audit log's rules, on in-memory
fakes of the ports (no SQL): each rule with a clock the test controls."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from colour_collector.service import accounts, audit, wallet
from colour_collector.service.accounts import AccountPolicy, Passwords
from colour_collector.service.errors import (
    AuditChainBrokenError,
    InvalidCredentialsError,
    InvalidInputError,
    NotAuthenticatedError,
    NotFoundError,
    TestDepositsDisabledError,
    TooManyAttemptsError,
    UnderageError,
)
from colour_collector.service.models import AuditKind
from fakes import FakeDatabase
from support import register_and_confirm

T0 = dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC)
POLICY = AccountPolicy(
    passwords=Passwords(time_cost=1, memory_kib=8, parallelism=1),
    max_failures_per_email=3,
    max_failures_per_client=5,
    window=dt.timedelta(minutes=15),
    session_lifetime=dt.timedelta(hours=2),
)
PASSWORD = "correct horse battery"


def register(db: FakeDatabase, email: str = "Player@Example.com", **kwargs: object) -> int:
    values: dict[str, object] = {
        "email": email,
        "password": PASSWORD,
        "date_of_birth": dt.date(1990, 5, 17),
        "now": T0,
        **kwargs,
    }
    return register_and_confirm(db, POLICY, **values).id  # type: ignore[arg-type]


def login(
    db: FakeDatabase, password: str = PASSWORD, *, client: str = "c1", now: dt.datetime = T0
) -> accounts.LoggedIn:
    return accounts.login(
        db, POLICY, email="player@example.com", password=password, client=client, now=now
    )


def kinds(db: FakeDatabase) -> list[str]:
    return [entry.kind for entry in db.state.audit]


def test_registration_normalises_the_email_and_is_audited() -> None:
    db = FakeDatabase()
    account_id = register(db)
    stored = db.state.accounts[account_id]
    assert stored.account.email == "player@example.com"
    assert stored.password_hash != PASSWORD and POLICY.passwords.verify(
        stored.password_hash, PASSWORD
    )
    assert stored.email_confirmed_at == T0
    assert kinds(db) == ["register", "email_confirmed", "login"]


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("date_of_birth", dt.date(2008, 12, 4), UnderageError),  # 18 tomorrow
        ("date_of_birth", dt.date(2027, 1, 1), InvalidInputError),  # in the future
        ("password", "short", InvalidInputError),
        ("password", "x" * 257, InvalidInputError),
        ("email", "no-at-sign", InvalidInputError),
        ("email", "a@nodot", InvalidInputError),
    ],
)
def test_registration_refusals_write_nothing(field: str, value: object, error: type) -> None:
    db = FakeDatabase()
    with pytest.raises(error) as refused:
        register(db, **{field: value})
    assert refused.value.field == field
    assert db.commits == 0


def test_an_eighteenth_birthday_is_old_enough() -> None:
    assert register(FakeDatabase(), date_of_birth=dt.date(2008, 12, 3)) > 0


def test_login_opens_a_session_that_ends_at_its_lifetime() -> None:
    db = FakeDatabase()
    account_id = register(db)
    done = login(db)
    assert done.account.id == account_id
    assert done.expires_at == T0 + POLICY.session_lifetime
    assert done.token not in str(db.state.sessions)  # only its hash is stored
    assert accounts.current_account(db, done.token, now=T0).id == account_id
    just_before = done.expires_at - dt.timedelta(microseconds=1)
    assert accounts.current_account(db, done.token, now=just_before).id == account_id
    with pytest.raises(NotAuthenticatedError):
        accounts.current_account(db, done.token, now=done.expires_at)
    for token in (None, "", "forged"):
        with pytest.raises(NotAuthenticatedError):
            accounts.current_account(db, token, now=T0)
    assert kinds(db) == ["register", "email_confirmed", "login", "login"]


def test_failed_logins_are_throttled_per_email_until_the_window_passes() -> None:
    db = FakeDatabase()
    register(db)
    for minute in range(3):
        with pytest.raises(InvalidCredentialsError):
            login(db, "wrong password!", now=T0 + dt.timedelta(minutes=minute))
    with pytest.raises(TooManyAttemptsError) as throttled:
        login(db, now=T0 + dt.timedelta(minutes=3))  # the right password is not even checked
    assert throttled.value.retry_after_seconds == 12 * 60  # the oldest failure leaves at 15:00
    with pytest.raises(TooManyAttemptsError):
        login(db, now=T0 + dt.timedelta(minutes=14, seconds=59))
    done = login(db, now=T0 + dt.timedelta(minutes=15))  # the first failure left the window
    assert done.account.email == "player@example.com"
    assert db.state.failures == []  # a success forgives the e-mail's failures


def test_failed_logins_are_throttled_per_client_across_emails() -> None:
    db = FakeDatabase()
    register(db)
    for n in range(5):
        with pytest.raises(InvalidCredentialsError):
            accounts.login(
                db, POLICY, email=f"nobody{n}@example.com", password=PASSWORD, client="bot",
                now=T0,
            )  # fmt: skip
    with pytest.raises(TooManyAttemptsError):
        login(db, client="bot")
    assert login(db, client="someone else").token


def test_an_unknown_email_answers_as_a_wrong_password() -> None:
    db = FakeDatabase()
    register(db)
    with pytest.raises(InvalidCredentialsError) as unknown:
        accounts.login(db, POLICY, email="who@example.com", password=PASSWORD, client="c", now=T0)
    with pytest.raises(InvalidCredentialsError) as wrong:
        login(db, "wrong password!")
    assert str(unknown.value) == str(wrong.value)


def test_logout_ends_the_session_once() -> None:
    db = FakeDatabase()
    register(db)
    token = login(db).token
    assert accounts.logout(db, token) is True
    assert accounts.logout(db, token) is False
    assert accounts.logout(db, None) is False
    with pytest.raises(NotAuthenticatedError):
        accounts.current_account(db, token, now=T0)
    assert kinds(db) == ["register", "email_confirmed", "login", "login", "logout"]


def test_the_session_summary_counts_only_this_sessions_money() -> None:
    db = FakeDatabase()
    register(db)
    first = login(db).token
    wallet.test_deposit(db, first, 2000, enabled=True, now=T0)
    later = T0 + dt.timedelta(minutes=30)
    second = login(db, now=later).token
    with db() as uow:
        account_id = accounts.live_session(uow, second, later).account_id
        wallet.debit(uow, account_id, 500, wallet.MovementKind.STAKE, reference="p", now=later)
        wallet.credit(uow, account_id, 700, wallet.MovementKind.PRIZE, reference="p", now=later)
        uow.commit()
    summary = accounts.session_summary(db, second, now=later)
    assert (summary.staked_pence, summary.won_pence, summary.net_pence) == (500, 700, 200)
    assert summary.started_at == later
    assert accounts.session_summary(db, first, now=later).net_pence == 200  # both since T0


def test_test_deposits_are_audited_and_refused_when_off_or_too_large() -> None:
    db = FakeDatabase()
    register(db)
    token = login(db).token
    with pytest.raises(TestDepositsDisabledError):
        wallet.test_deposit(db, token, 100, enabled=False, now=T0)
    for bad in (0, -1, 100_001):
        with pytest.raises(InvalidInputError):
            wallet.test_deposit(db, token, bad, enabled=True, now=T0)
    with pytest.raises(NotAuthenticatedError):
        wallet.test_deposit(db, "nobody", 100, enabled=True, now=T0)
    done = wallet.test_deposit(db, token, 2500, enabled=True, now=T0)
    assert done.balance_pence == 2500
    assert kinds(db)[-1] == "deposit"
    statement = wallet.statement(db, token, now=T0)
    assert statement.balance_pence == 2500 and statement.movements == (done.movement,)
    assert wallet.movement(db, token, done.movement.id, now=T0) == done.movement


def test_another_players_movement_is_not_found() -> None:
    db = FakeDatabase()
    register(db)
    register(db, "other@example.com")
    mine = wallet.test_deposit(db, login(db).token, 100, enabled=True, now=T0).movement
    theirs = accounts.login(
        db, POLICY, email="other@example.com", password=PASSWORD, client="c", now=T0
    ).token
    with pytest.raises(NotFoundError):
        wallet.movement(db, theirs, mine.id, now=T0)
    with pytest.raises(InvalidInputError):
        wallet.statement(db, theirs, limit=0, now=T0)


def test_the_audit_chain_verifies_and_names_what_was_changed() -> None:
    db = FakeDatabase()
    register(db)
    for n in range(4):
        with db() as uow:
            audit.append(uow, AuditKind.DEPOSIT, None, {"n": n}, now=T0)
            uow.commit()
    report = audit.verify_chain(db, batch=2)
    assert report.entries == 7 and report.last_hash == db.state.head.hash

    db.state.audit[4] = replace(db.state.audit[4], payload='{"n":99}')
    with pytest.raises(AuditChainBrokenError) as broken:
        audit.verify_chain(db)
    assert broken.value.seq == 5 and "altered" in broken.value.reason


def test_the_audit_chain_notices_removed_and_added_entries() -> None:
    db = FakeDatabase()
    register(db)
    for n in range(3):
        with db() as uow:
            audit.append(uow, AuditKind.DEPOSIT, None, {"n": n}, now=T0)
            uow.commit()
    removed = db.state.audit.pop()  # the tail, with the head left naming it
    with pytest.raises(AuditChainBrokenError, match="removed or added"):
        audit.verify_chain(db)
    db.state.audit.append(removed)
    db.state.audit.append(replace(removed, seq=removed.seq + 1, payload="{}"))
    with pytest.raises(AuditChainBrokenError, match="after the chain head"):
        audit.verify_chain(db)


def test_registration_names_every_bad_field_at_once() -> None:
    db = FakeDatabase()
    with pytest.raises(UnderageError) as refused:
        register(db, "not an e-mail", password="short", date_of_birth=dt.date(2010, 1, 1))
    assert [field for field, _ in refused.value.problems] == ["date_of_birth", "email", "password"]
    with pytest.raises(InvalidInputError) as both:
        register(db, "not an e-mail", password="short")
    assert not isinstance(both.value, UnderageError)
    assert [field for field, _ in both.value.problems] == ["email", "password"]
    assert db.commits == 0


def test_a_login_with_an_address_no_account_can_have_counts_for_its_client() -> None:
    """Not an address (the HTTP layer refuses these first; the service does not rely on it):
    wrong credentials, counted against the client under the text's printable characters
    (PostgreSQL stores no NUL), never looked up."""
    db = FakeDatabase()
    for email in ("a\x00b", "not an address"):
        with pytest.raises(InvalidCredentialsError):
            accounts.login(db, POLICY, email=email, password=PASSWORD, client="c", now=T0)
    assert [(key, client) for key, client, _ in db.state.failures] == [
        ("ab", "c"),
        ("not an address", "c"),
    ]
