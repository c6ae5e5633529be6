"""Wallet: test deposits over HTTP, the ledger invariants, and concurrent debits on the real DB."""

from __future__ import annotations

import datetime as dt
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy import select

from colour_collector.server.app import create_app
from colour_collector.server.settings import DEFAULT_SECRET_KEY, Settings
from colour_collector.service import accounts, audit, wallet
from colour_collector.service.accounts import Passwords
from colour_collector.service.errors import (
    InsufficientFundsError,
    InvalidCredentialsError,
    InvalidInputError,
    NotAuthenticatedError,
    TooManyAttemptsError,
)
from colour_collector.service.models import AuditKind, MovementKind, Session
from colour_collector.store import Database, tables
from support import PASSWORD, SmtpServer, production_required, sign_up


def ledger_amounts(database: Database, account_id: int) -> list[int]:
    with database.engine.connect() as connection:
        rows = connection.execute(
            select(tables.ledger.c.amount_pence)
            .where(tables.ledger.c.account_id == account_id)
            .order_by(tables.ledger.c.id)
        ).scalars()
        return [int(amount) for amount in rows]


def test_test_deposit_and_wallet(player: Any, app: Any) -> None:
    assert player.get("/api/wallet").json() == {"balance_pence": 0, "movements": []}
    first = player.post("/api/wallet/test-deposit", json={"amount_pence": 2500})
    assert first.status_code == 201, first.text
    body = first.json()
    assert body["test_funds"] is True
    assert "TEST" in body["notice"] and "not real money" in body["notice"]
    assert body["balance_pence"] == 2500
    player.post("/api/wallet/test-deposit", json={"amount_pence": 500})
    shown = player.get("/api/wallet").json()
    assert shown["balance_pence"] == 3000
    assert [m["amount_pence"] for m in shown["movements"]] == [500, 2500]  # newest first
    assert all(m["kind"] == "deposit" for m in shown["movements"])
    one = player.get(f"/api/wallet/movements/{shown['movements'][0]['id']}")
    assert one.status_code == 200 and one.json()["amount_pence"] == 500
    assert player.get("/api/wallet?limit=1").json()["movements"][0]["amount_pence"] == 500


def test_deposit_limits(player: Any) -> None:
    for amount in (0, -5, 100_001, 10**12):
        response = player.post("/api/wallet/test-deposit", json={"amount_pence": amount})
        assert response.status_code == 422, (amount, response.text)
        assert response.json()["errors"][0]["field"] == "amount_pence"
    assert (
        player.post("/api/wallet/test-deposit", json={"amount_pence": 100_000}).status_code == 201
    )
    assert player.get("/api/wallet").json()["balance_pence"] == 100_000


def test_deposit_needs_login(client: Any) -> None:
    response = client.post("/api/wallet/test-deposit", json={"amount_pence": 100})
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_movements_of_another_player_are_not_found(player: Any, app: Any, new_client: Any) -> None:
    deposit = player.post("/api/wallet/test-deposit", json={"amount_pence": 100}).json()
    other = new_client(app)
    other.sign_up("other@example.com")
    response = other.get(f"/api/wallet/movements/{deposit['movement']['id']}")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_test_deposits_disabled_in_production(
    database_url: str, tmp_path: Path, new_client: Any
) -> None:
    with SmtpServer() as smtp:
        production = Settings(
            environment="production",
            secret_key="a-real-production-secret-of-enough-length-0123456789",
            database_url=database_url,
            data_dir=tmp_path / "data",
            web_dir=tmp_path / "no-web",
            **production_required(smtp.port),
        )
        assert production.test_deposits is False
        assert production.cookies_secure is True
        application = create_app(production)
        client = new_client(application, https=True)
        assert client.register("prod@example.com").status_code == 202
        token = smtp.token("prod@example.com")
    try:
        confirmed = client.post(
            "/api/register/confirm", json={"token": token, "password": PASSWORD}
        )
        account_id = confirmed.json()["id"]
        assert "secure" in confirmed.headers["set-cookie"].lower()
        assert "secure" in client.login("prod@example.com").headers["set-cookie"].lower()
        response = client.post("/api/wallet/test-deposit", json={"amount_pence": 100})
        assert response.status_code == 403, response.text
        assert response.json()["code"] == "test_deposits_disabled"
        assert ledger_amounts(application.state.database, account_id) == []
    finally:
        application.state.database.dispose()


def test_production_refuses_unsafe_settings(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="SECRET_KEY"):
        Settings(environment="production", secret_key=DEFAULT_SECRET_KEY, data_dir=tmp_path)
    with pytest.raises(ValidationError, match="SECRET_KEY"):
        Settings(environment="production", data_dir=tmp_path)
    with pytest.raises(ValidationError, match="TEST_DEPOSITS"):
        Settings(
            environment="production",
            secret_key="a-real-production-secret-of-enough-length-0123456789",
            test_deposits_enabled=True,
            data_dir=tmp_path,
        )
    secret = "a-real-production-secret-of-enough-length-0123456789"
    with pytest.raises(ValidationError, match="SMTP_HOST"):
        Settings(environment="production", secret_key=secret, data_dir=tmp_path)
    mail = production_required(25)
    with pytest.raises(ValidationError, match="PUBLIC_URL"):
        Settings(**{**mail, "public_url": "http://play.example.com"},
                 environment="production", secret_key=secret, data_dir=tmp_path)  # fmt: skip
    with pytest.raises(ValidationError, match="SMTP_STARTTLS"):
        Settings(**mail, smtp_user="mailer", environment="production", secret_key=secret,
                 data_dir=tmp_path)  # fmt: skip
    with pytest.raises(ValidationError, match="METRICS_TOKEN"):
        Settings(**{**mail, "metrics_token": None},
                 environment="production", secret_key=secret, data_dir=tmp_path)  # fmt: skip
    assert Settings(**mail, environment="production", secret_key=secret, data_dir=tmp_path)
    # Every problem at once, each its own error: not one a start.
    with pytest.raises(ValidationError) as several:
        Settings(environment="production", test_deposits_enabled=True, data_dir=tmp_path)
    said = [error["msg"] for error in several.value.errors()]
    assert [m.split(" ")[0] for m in said] == [
        "COLOUR_COLLECTOR_SECRET_KEY",
        "COLOUR_COLLECTOR_TEST_DEPOSITS_ENABLED",
        "COLOUR_COLLECTOR_SMTP_HOST",
        "COLOUR_COLLECTOR_PUBLIC_URL",
        "COLOUR_COLLECTOR_METRICS_TOKEN",
    ], said
    # Development may use the default secret.
    assert Settings(environment="development", data_dir=tmp_path).test_deposits is True


@pytest.mark.parametrize("value", ["0", "-5", " -5 "])
def test_a_duration_of_no_time_or_less_is_refused_by_name(tmp_path: Path, value: str) -> None:
    with pytest.raises(ValidationError, match="COLOUR_COLLECTOR_SESSION_LIFETIME must be positive"):
        Settings(session_lifetime=value, data_dir=tmp_path)
    assert Settings(session_lifetime="90", data_dir=tmp_path).session_lifetime.total_seconds() == 90


def test_password_hash_memory_must_cover_every_lane(tmp_path: Path) -> None:
    """Argon2 needs 8 KiB a lane: less is refused by the settings, not by a traceback at the
    first password hashed."""
    expected = (
        r"MEMORY_KIB must be at least 8 KiB per lane \(32 with"
        r" COLOUR_COLLECTOR_PASSWORD_HASH_PARALLELISM=4\)"
    )
    with pytest.raises(ValidationError, match=expected):
        Settings(password_hash_memory_kib=31, password_hash_parallelism=4, data_dir=tmp_path)
    enough = Settings(password_hash_memory_kib=32, password_hash_parallelism=4, data_dir=tmp_path)
    passwords = Passwords(
        time_cost=1,
        memory_kib=enough.password_hash_memory_kib,
        parallelism=enough.password_hash_parallelism,
    )
    assert passwords.verify(passwords.hash("a long enough password"), "a long enough password")


@pytest.fixture
def database(database_url: str) -> Any:
    db = Database(database_url)
    yield db
    db.dispose()


NOW = dt.datetime(2026, 12, 2, tzinfo=dt.UTC)


def new_account(database: Database, email: str = "w@example.com") -> int:
    account, _ = sign_up(database, email)
    return account.id


def credit(uow: Any, account_id: int, amount: int) -> None:
    assert uow.accounts.get_for_update(account_id) is not None
    wallet.credit(uow, account_id, amount, MovementKind.DEPOSIT, reference=None, now=NOW)


def test_debit_refuses_insufficient_funds_and_writes_nothing(database: Database) -> None:
    account_id = new_account(database)
    with database() as uow:
        credit(uow, account_id, 300)
        uow.commit()
    with database() as uow, pytest.raises(InsufficientFundsError) as refused:
        uow.accounts.get_for_update(account_id)
        wallet.debit(uow, account_id, 500, MovementKind.STAKE, reference=None, now=NOW)
    assert (refused.value.balance_pence, refused.value.wanted_pence) == (300, 500)
    with database() as uow:
        uow.accounts.get_for_update(account_id)
        after = wallet.debit(uow, account_id, 300, MovementKind.STAKE, reference="p", now=NOW)
        uow.commit()
    assert after == 0
    assert ledger_amounts(database, account_id) == [300, -300]
    for bad in (0, -1):
        with database() as uow, pytest.raises(InvalidInputError):
            wallet.debit(uow, account_id, bad, MovementKind.STAKE, reference=None, now=NOW)
        with database() as uow, pytest.raises(InvalidInputError):
            wallet.credit(uow, account_id, bad, MovementKind.PRIZE, reference=None, now=NOW)
    assert ledger_amounts(database, account_id) == [300, -300]


def test_a_live_session_locks_its_account(database: Database) -> None:
    account_id = new_account(database)
    hour = dt.timedelta(hours=1)
    with database() as uow:
        uow.accounts.add_session(Session("live", account_id, NOW, NOW + hour))
        uow.accounts.add_session(Session("dead", account_id, NOW, NOW))
        uow.commit()
    with database() as uow:
        found = uow.accounts.session_for_update("live", NOW)
        assert found is not None and found.account_id == account_id
        assert uow.accounts.session_for_update("dead", NOW) is None
        assert uow.accounts.session_for_update("none", NOW) is None
    with database() as uow, pytest.raises(NotAuthenticatedError):
        accounts.live_session(uow, "not a token", NOW, lock_account=True)


@pytest.mark.parametrize("ended", ["before the payment waits", "while the payment waits"])
def test_a_session_ended_while_its_account_was_locked_is_gone(
    database: Database, ended: str
) -> None:
    # A password reset (or a logout) locks the account and ends its sessions; a purchase or
    # withdrawal of one of them waiting for that lock must then find no session. On PostgreSQL
    # a statement that waited rechecks only the rows it locked: locking the account alone, it
    # went on with the session as it had found it before waiting. It locks the account, then
    # the session (FOR UPDATE OF accounts, sessions): locking the session first, it would hold
    # the row a reset ending it meanwhile must delete while waiting for the account the reset
    # holds, a deadlock.
    account_id = new_account(database)
    with database() as uow:
        uow.accounts.add_session(Session("live", account_id, NOW, NOW + dt.timedelta(hours=1)))
        uow.commit()
    locked = threading.Event()
    first = ended == "before the payment waits"

    def end_its_sessions() -> int:
        with database() as uow:
            assert uow.accounts.get_for_update(account_id) is not None
            removed = uow.accounts.remove_sessions(account_id) if first else 0
            locked.set()
            time.sleep(0.3)  # the payment's read below waits for the account meanwhile
            if not first:
                removed = uow.accounts.remove_sessions(account_id)
            uow.commit()
            return removed

    with ThreadPoolExecutor(1) as pool:
        ending = pool.submit(end_its_sessions)
        assert locked.wait(10)
        with database() as uow:
            assert uow.accounts.session_for_update("live", NOW) is None
            with pytest.raises(NotAuthenticatedError):
                accounts.live_session(uow, "live", NOW, lock_account=True)
        assert ending.result() >= 1


def test_a_logout_waits_for_a_payment_of_its_session_in_progress(database: Database) -> None:
    # A payment (or purchase) holding the account's lock is committed before the logout that
    # came meanwhile: the logout locks the account first, so nothing of the session is
    # committed after the logout has been answered.
    account_id = new_account(database)
    with database() as uow:
        uow.accounts.add_session(
            Session(accounts.hash_token("live"), account_id, NOW, NOW + dt.timedelta(hours=1))
        )
        uow.commit()
    finished: list[str] = []

    def log_out() -> None:
        assert accounts.logout(database, "live", now=NOW) is True
        finished.append("logout")

    with ThreadPoolExecutor(1) as pool:
        with database() as uow:
            accounts.live_session(uow, "live", NOW, lock_account=True)
            credit(uow, account_id, 500)
            logging_out = pool.submit(log_out)
            time.sleep(0.3)  # the logout waits for the account meanwhile
            finished.append("payment")
            uow.commit()
        logging_out.result()
    assert finished == ["payment", "logout"]
    with database() as uow:
        assert uow.accounts.session(accounts.hash_token("live"), NOW) is None


@pytest.mark.parametrize("shared", ["email", "client"])
def test_failed_logins_made_at_once_are_counted_one_after_another(
    database: Database, shared: str
) -> None:
    # Each attempt counts the recent failures at its e-mail and from its client and adds its
    # own, under advisory locks on both: sixteen wrong passwords sent at once, at one address
    # (from sixteen clients) or from one client (at sixteen addresses), have three checked (the
    # policy's limit) and thirteen refused unchecked. Without the locks, on PostgreSQL, attempts
    # counted without each other's uncommitted failures: more passwords were checked (7 of 16
    # from one client).
    new_account(database, "guessed@example.com")
    policy = accounts.AccountPolicy(
        passwords=Passwords(time_cost=1, memory_kib=8, parallelism=1),
        max_failures_per_email=3 if shared == "email" else 1000,
        max_failures_per_client=3 if shared == "client" else 1000,
    )
    workers = 16
    start = threading.Barrier(workers)

    def attempt(n: int) -> str:
        start.wait()
        try:
            accounts.login(
                database,
                policy,
                email="guessed@example.com" if shared == "email" else f"guess{n}@example.com",
                password=f"wrong {n}",
                client="203.0.113.9" if shared == "client" else f"client {n}",
                now=NOW,
            )
        except (InvalidCredentialsError, TooManyAttemptsError) as refused:
            return type(refused).__name__
        return "logged in"

    with ThreadPoolExecutor(workers) as pool:
        answers = list(pool.map(attempt, range(workers)))
    assert answers.count("InvalidCredentialsError") == 3, answers
    assert answers.count("TooManyAttemptsError") == workers - 3, answers


def test_uncommitted_unit_of_work_rolls_back(database: Database) -> None:
    account_id = new_account(database)
    before = audit.verify_chain(database).entries
    with database() as uow:
        credit(uow, account_id, 500)
        audit.append(uow, AuditKind.DEPOSIT, account_id, {"amount_pence": 500})
    with database():
        pass
    assert ledger_amounts(database, account_id) == []
    assert audit.verify_chain(database).entries == before


def test_parallel_debits_never_overdraw(database: Database) -> None:
    """20 threads try to spend £1 each from £10: exactly 10 succeed, none overdraws."""
    account_id = new_account(database)
    with database() as uow:
        credit(uow, account_id, 1000)
        uow.commit()
    before = audit.verify_chain(database).entries
    start = threading.Barrier(20)

    def spend(n: int) -> bool:
        start.wait()
        try:
            with database() as uow:
                uow.accounts.get_for_update(account_id)
                wallet.debit(uow, account_id, 100, MovementKind.STAKE, reference=f"p{n}", now=NOW)
                audit.append(uow, AuditKind.PURCHASE, account_id, {"n": n})
                uow.commit()
        except InsufficientFundsError:
            return False
        return True

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(spend, range(20)))
    assert results.count(True) == 10
    assert sum(ledger_amounts(database, account_id)) == 0
    assert audit.verify_chain(database).entries == before + 10  # one per purchase, no fork


def test_parallel_deposits_and_withdrawals_keep_ledger_balanced(database: Database) -> None:
    account_id = new_account(database)
    before = audit.verify_chain(database).entries
    start = threading.Barrier(20)

    def move(n: int) -> int:
        start.wait()
        with database() as uow:
            uow.accounts.get_for_update(account_id)
            try:
                if n % 2 == 0:
                    wallet.credit(
                        uow, account_id, 70, MovementKind.DEPOSIT, reference=None, now=NOW
                    )
                    change = 70
                else:
                    wallet.debit(uow, account_id, 50, MovementKind.STAKE, reference=None, now=NOW)
                    change = -50
            except InsufficientFundsError:
                return 0
            audit.append(uow, AuditKind.DEPOSIT, account_id, {"change": change})
            uow.commit()
            return change

    with ThreadPoolExecutor(max_workers=20) as pool:
        changes = list(pool.map(move, range(20)))
    amounts = ledger_amounts(database, account_id)
    assert sum(amounts) == sum(changes)
    assert sorted(amounts) == sorted(c for c in changes if c)
    running = 0
    for amount in amounts:  # ledger ids follow commit order: the balance never dipped below 0
        running += amount
        assert running >= 0
    assert audit.verify_chain(database).entries == before + len(amounts)


def test_a_retried_deposit_credits_once(player: Any, app: Any) -> None:
    key = {"Idempotency-Key": "deposit-1"}
    first = player.post("/api/wallet/test-deposit", json={"amount_pence": 2500}, headers=key)
    assert first.status_code == 201, first.text
    for _ in range(3):  # the answer was lost: the client sends it again
        again = player.post("/api/wallet/test-deposit", json={"amount_pence": 2500}, headers=key)
        assert again.status_code == 200, again.text
        assert again.json()["movement"] == first.json()["movement"]
        assert again.json()["balance_pence"] == 2500
    other = player.post("/api/wallet/test-deposit", json={"amount_pence": 999}, headers=key)
    assert other.status_code == 422 and other.json()["errors"][0]["field"] == "Idempotency-Key"
    assert player.get("/api/wallet").json()["balance_pence"] == 2500
    deposits = [e for e in audit_kinds(app) if e == "deposit"]
    assert len(deposits) == 1
    second = player.post(
        "/api/wallet/test-deposit", json={"amount_pence": 500}, headers={"Idempotency-Key": "d2"}
    )
    assert second.status_code == 201 and second.json()["balance_pence"] == 3000


def test_parallel_retries_of_one_deposit_credit_once(database: Database) -> None:
    account, token = sign_up(database, "retry@example.com")
    start = threading.Barrier(12)

    def deposit(_: int) -> int:
        start.wait()
        return wallet.test_deposit(
            database, token, 700, enabled=True, idempotency_key="same", now=NOW
        ).movement.id

    with ThreadPoolExecutor(12) as pool:
        ids = set(pool.map(deposit, range(12)))
    assert len(ids) == 1
    assert ledger_amounts(database, account.id) == [700]


def audit_kinds(app: Any) -> list[str]:
    with app.state.database() as uow:
        return [entry.kind for entry in uow.audit.entries()]
