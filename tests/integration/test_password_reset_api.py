"""A forgotten password over HTTP, on SQLite and PostgreSQL: the mailed link (read from the
outbox) sets the password and logs in as confirming does, every other session ends, the answer
to asking does not tell whether an address has an account, the mail throttle is registration's,
links work once, for an hour of the server's clock, and only for their purpose; bad input is a
problem naming the field, never a 5xx, and writes nothing."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy import func, select

from colour_collector.server.app import create_app
from colour_collector.server.runtime import registration_policy
from colour_collector.server.schemas import RESET_LINK_SENT
from colour_collector.server.settings import Settings
from colour_collector.service import audit
from colour_collector.service.accounts import hash_token
from colour_collector.service.models import ConfirmationToken, TokenPurpose
from colour_collector.store import tables
from support import (
    FEW_MAILS,
    PASSWORD,
    RESET_LINK,
    ServerClock,
    make_settings,
    outbox_mails,
    outbox_token,
)

EMAIL = "player@example.com"
NEW_PASSWORD = "a brand new password"
TOKEN_SHAPE = "A" * 43
"""A token of the right shape that no link holds."""
VARYING_HEADERS = {"date", "x-request-id"}
"""Headers that differ between any two answers (the time, the request's own id)."""


@pytest.fixture
def settings(database_url: str, tmp_path: Path, server_clock: ServerClock) -> Settings:
    return make_settings(database_url, tmp_path, clock_file=server_clock.path)


def count(app: Any, table: Any) -> int:
    with app.state.database.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(table)).scalar_one())


def outbox(app: Any) -> Any:
    return app.state.runtime.settings.mail_outbox


def ask(client: Any, email: str = EMAIL) -> Any:
    return client.post("/api/password/forgot", json={"email": email})


def reset(client: Any, token: str, password: str = NEW_PASSWORD) -> Any:
    return client.post("/api/password/reset", json={"token": token, "password": password})


def reset_token(app: Any, email: str = EMAIL) -> str:
    return outbox_token(outbox(app), email, RESET_LINK)


def session_cookie(answer: Any) -> str:
    """The ``Set-Cookie`` of ``cc_session`` in ``answer``, its value left out."""
    (found,) = [c for c in answer.headers.get_list("set-cookie") if c.startswith("cc_session=")]
    return found.split(";", 1)[1]


def audit_kinds(app: Any) -> list[str]:
    with app.state.database.engine.connect() as connection:
        return list(
            connection.execute(select(tables.audit_log.c.kind).order_by(tables.audit_log.c.seq))
            .scalars()
            .all()
        )


def test_the_mailed_link_sets_the_password_logs_in_and_ends_every_other_session(
    app: Any, new_client: Any
) -> None:
    phone = new_client(app)
    assert phone.register(EMAIL).status_code == 202
    confirmed = phone.confirm(EMAIL)
    assert confirmed.status_code == 200
    laptop = new_client(app)
    assert laptop.login(EMAIL).status_code == 200
    browser = new_client(app)

    asked = ask(browser, "Player@Example.COM")
    assert asked.status_code == 202, asked.text
    assert asked.json() == {"notice": RESET_LINK_SENT}
    assert "set-cookie" not in asked.headers
    mail = outbox_mails(outbox(app), EMAIL)[-1]
    assert mail["Subject"] == "Reset your Colour Collector password"
    token = reset_token(app)
    assert f"http://127.0.0.1:8000/#/reset/{token}" in mail.get_body().get_content()
    with app.state.database.engine.connect() as connection:
        stored = connection.execute(
            select(tables.confirmation_tokens).where(
                tables.confirmation_tokens.c.purpose == "reset"
            )
        ).one()
    assert stored.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert stored.expires_at - stored.created_at == dt.timedelta(hours=1)

    csrf_before = browser.cookies["cc_csrf"]
    done = reset(browser, token)
    assert done.status_code == confirmed.status_code == 200, done.text
    assert done.headers["content-type"] == confirmed.headers["content-type"]
    assert done.json() == confirmed.json()  # the account, as confirming answered it
    assert session_cookie(done) == session_cookie(confirmed)  # HttpOnly, Max-Age, Path, ...
    assert "HttpOnly" in session_cookie(done)
    assert browser.cookies["cc_csrf"] != csrf_before  # a CSRF token for the new session
    assert browser.get("/api/me").json()["email"] == EMAIL
    for stolen in (phone, laptop):
        gone = stolen.get("/api/me")
        assert gone.status_code == 401 and gone.json()["code"] == "not_authenticated"
    assert count(app, tables.sessions) == 1
    assert audit_kinds(app)[-2:] == ["password_reset", "login"]

    again = reset(browser, token, "yet another new password")
    assert again.status_code == 400 and again.json()["code"] == "invalid_token"
    old = new_client(app).login(EMAIL, PASSWORD)
    assert old.status_code == 401 and old.json()["code"] == "invalid_credentials"
    assert new_client(app).login(EMAIL, NEW_PASSWORD).status_code == 200
    assert audit.verify_chain(app.state.database).entries == len(audit_kinds(app))


def test_the_answer_is_byte_identical_with_or_without_an_account(app: Any, new_client: Any) -> None:
    new_client(app).sign_up("known@example.com")
    new_client(app).register("pending@example.com")
    addresses = ("known@example.com", "pending@example.com", "nobody@example.com")
    before = {email: len(outbox_mails(outbox(app), email)) for email in addresses}
    answers = [ask(new_client(app), email) for email in addresses]
    assert {a.status_code for a in answers} == {202}
    assert len({a.content for a in answers}) == 1

    def headers(answer: Any) -> list[tuple[str, str]]:
        return [(k, v) for k, v in answer.headers.items() if k not in VARYING_HEADERS]

    assert len({tuple(headers(a)) for a in answers}) == 1
    after = {email: len(outbox_mails(outbox(app), email)) for email in addresses}
    assert after == {
        "known@example.com": before["known@example.com"] + 1,
        "pending@example.com": before["pending@example.com"] + 1,
        "nobody@example.com": 0,
    }
    assert count(app, tables.mail_requests) == 2 + 3  # two registrations, three requests


def test_mails_are_throttled_with_registrations_for_every_address(
    database_url: str, tmp_path: Path, new_client: Any
) -> None:
    app = create_app(make_settings(database_url, tmp_path, **FEW_MAILS))
    try:
        client = new_client(app)
        client.register("someone@example.com")  # the first of the two
        for email, allowed in (("someone@example.com", 1), ("nobody@example.com", 2)):
            for _ in range(allowed):
                assert ask(client, email).status_code == 202
            refused = ask(client, email)
            assert refused.status_code == 429, refused.text
            assert refused.json()["code"] == "too_many_emails"
            assert int(refused.headers["retry-after"]) > 3000
        assert client.register("someone@example.com").status_code == 429
        assert len(outbox_mails(outbox(app), "someone@example.com")) == 2
        assert outbox_mails(outbox(app), "nobody@example.com") == []
    finally:
        app.state.database.dispose()


def test_one_client_cannot_spend_the_mails_of_an_address_for_its_owner(
    database_url: str, tmp_path: Path, new_client: Any
) -> None:
    """The lockout a review found: five requests from one client spent an address's mails for
    the hour, and its owner could not ask for a reset. Now each client has its own share of the
    address's mails, and every client together the address's limit."""
    settings = make_settings(
        database_url,
        tmp_path,
        registration_mails_per_email=4,
        registration_mails_per_email_and_client=2,
    )
    app = create_app(settings)
    try:
        new_client(app).sign_up("owner@example.com")
        sent = len(outbox_mails(outbox(app), "owner@example.com"))
        stranger = new_client(app, address="203.0.113.9")
        assert ask(stranger, "owner@example.com").status_code == 202
        assert ask(stranger, "owner@example.com").status_code == 202
        refused = ask(stranger, "owner@example.com")
        assert refused.status_code == 429 and refused.json()["code"] == "too_many_emails"
        assert int(refused.headers["retry-after"]) > 3000
        owner = new_client(app, address="198.51.100.20")
        assert ask(owner, "owner@example.com").status_code == 202  # four in all now
        mails = outbox_mails(outbox(app), "owner@example.com")
        assert len(mails) == sent + 3
        assert "#/reset/" in mails[-1].get_body().get_content()
        refused = ask(new_client(app, address="192.0.2.44"), "owner@example.com")
        assert refused.status_code == 429  # the address's own limit, whoever asks
        with app.state.database.engine.connect() as connection:
            clients = connection.execute(
                select(tables.mail_requests.c.client).order_by(tables.mail_requests.c.id)
            ).scalars()
            assert list(clients) == ["testclient", "203.0.113.9", "203.0.113.9", "198.51.100.20"]
    finally:
        app.state.database.dispose()


def test_an_account_not_confirmed_is_told_to_register_again_and_keeps_its_link(
    app: Any, client: Any
) -> None:
    client.register(EMAIL)
    confirmation = outbox_token(outbox(app), EMAIL)
    tokens = count(app, tables.confirmation_tokens)
    asked = ask(client)
    assert asked.status_code == 202 and asked.json() == {"notice": RESET_LINK_SENT}
    notice = outbox_mails(outbox(app), EMAIL)[-1]
    assert notice["Subject"] == "Your Colour Collector registration was not confirmed"
    assert "/#/reset/" not in notice.get_content() and "register again" in notice.get_content()
    assert count(app, tables.confirmation_tokens) == tokens  # no reset link was made
    assert audit_kinds(app) == ["register"]
    # Nothing changed: the address is confirmed as before, with the registration's password.
    confirmed = client.post(
        "/api/register/confirm", json={"token": confirmation, "password": PASSWORD}
    )
    assert confirmed.status_code == 200, confirmed.text


def test_a_reset_link_of_an_account_not_confirmed_is_refused_and_writes_nothing(
    app: Any, client: Any
) -> None:
    """Such links were mailed until 8 December 2026 (the reset then confirmed the account)."""
    client.register(EMAIL)
    token = "C" * 43
    database = app.state.database
    with database() as uow:
        stored = uow.accounts.by_email(EMAIL)
        assert stored is not None and stored.email_confirmed_at is None
        now = dt.datetime.now(dt.UTC)
        uow.confirmations.add(
            ConfirmationToken(
                hash_token(token),
                stored.account.id,
                now,
                now + dt.timedelta(hours=1),
                purpose=TokenPurpose.RESET,
            )
        )
        uow.commit()
    entries, sessions = count(app, tables.audit_log), count(app, tables.sessions)
    answer = reset(client, token)
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_token", answer.text
    assert "cc_session" not in answer.headers.get("set-cookie", "")
    assert count(app, tables.audit_log) == entries and count(app, tables.sessions) == sessions
    with database.engine.connect() as connection:
        assert connection.execute(select(tables.accounts.c.email_confirmed_at)).scalar() is None
        assert connection.execute(select(func.count()).where(
            tables.confirmation_tokens.c.used_at.is_not(None)
        )).scalar_one() == 0  # fmt: skip
    assert client.login(EMAIL, NEW_PASSWORD).status_code == 401  # the password is as it was


def test_a_link_works_only_for_its_own_purpose(app: Any, client: Any, new_client: Any) -> None:
    client.register(EMAIL)  # not confirmed: its confirmation link is unused
    confirmation = outbox_token(outbox(app), EMAIL)
    other = new_client(app)
    other.sign_up("other@example.com")
    ask(other, "other@example.com")
    token = reset_token(app, "other@example.com")
    entries, sessions = count(app, tables.audit_log), count(app, tables.sessions)
    for answer in (
        reset(client, confirmation),
        client.post("/api/register/confirm", json={"token": token, "password": PASSWORD}),
    ):
        assert answer.status_code == 400, answer.text
        assert answer.json()["code"] == "invalid_token"
        assert "cc_session" not in answer.headers.get("set-cookie", "")
    assert count(app, tables.audit_log) == entries and count(app, tables.sessions) == sessions
    with app.state.database.engine.connect() as connection:
        confirmed_at = select(tables.accounts.c.email_confirmed_at).where(
            tables.accounts.c.email == EMAIL
        )
        assert connection.execute(confirmed_at).scalar() is None
        assert connection.execute(select(func.count()).where(
            tables.confirmation_tokens.c.used_at.is_not(None),
            tables.confirmation_tokens.c.purpose == "reset",
        )).scalar_one() == 0  # fmt: skip
    assert reset(other, token).status_code == 200  # the reset link still works, for a reset


def test_a_link_works_for_an_hour_of_the_servers_clock(
    app: Any, client: Any, server_clock: ServerClock
) -> None:
    client.sign_up(EMAIL)
    ask(client)
    server_clock.forward(minutes=59, seconds=30)
    assert reset(client, reset_token(app)).status_code == 200
    ask(client)
    token = reset_token(app)
    server_clock.forward(hours=1)
    entries, sessions = count(app, tables.audit_log), count(app, tables.sessions)
    late = reset(client, token, "too late a password")
    assert late.status_code == 400 and late.json()["code"] == "invalid_token"
    assert "expired" in late.json()["detail"]
    assert (count(app, tables.audit_log), count(app, tables.sessions)) == (entries, sessions)
    assert client.login(EMAIL, "too late a password").status_code == 401
    assert client.login(EMAIL, NEW_PASSWORD).status_code == 200


def test_a_password_registration_refuses_is_refused_and_the_link_still_works(
    app: Any, client: Any
) -> None:
    client.sign_up(EMAIL)
    ask(client)
    token = reset_token(app)
    entries = count(app, tables.audit_log)
    for weak, said in (("short", "at least 10"), ("p" * 5000, "at most 256")):
        refused = reset(client, token, weak)
        assert refused.status_code == 422, refused.text
        assert refused.json()["code"] == "invalid_request"
        assert [e["field"] for e in refused.json()["errors"]] == ["password"]
        assert said in refused.json()["detail"]
    assert count(app, tables.audit_log) == entries
    assert client.get("/api/me").status_code == 200  # the session was not ended
    assert reset(client, token).status_code == 200


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, ["token", "password"]),
        ({"token": TOKEN_SHAPE}, ["password"]),
        ({"password": NEW_PASSWORD}, ["token"]),
        ({"token": 43, "password": NEW_PASSWORD}, ["token"]),
        ({"token": None, "password": NEW_PASSWORD}, ["token"]),
        ({"token": [TOKEN_SHAPE], "password": NEW_PASSWORD}, ["token"]),
        ({"token": "A" * 20_000, "password": NEW_PASSWORD}, ["token"]),
        ({"token": "A" * 42 + "=", "password": NEW_PASSWORD}, ["token"]),
        ({"token": TOKEN_SHAPE, "password": 12345678901}, ["password"]),
        ({"token": TOKEN_SHAPE, "password": None}, ["password"]),
        ({"token": TOKEN_SHAPE, "password": "nul \x00 inside a password"}, ["password"]),
        ({"token": TOKEN_SHAPE, "password": NEW_PASSWORD, "email": EMAIL}, ["email"]),
    ],
)
def test_a_bad_reset_body_names_the_field(
    app: Any, client: Any, body: dict[str, Any], fields: list[str]
) -> None:
    answer = client.post("/api/password/reset", json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "invalid_request"
    assert [e["field"] for e in answer.json()["errors"]] == fields
    assert count(app, tables.audit_log) == count(app, tables.sessions) == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "email"),
        ({"email": None}, "email"),
        ({"email": 5}, "email"),
        ({"email": [EMAIL]}, "email"),
        ({"email": "not-an-address"}, "email"),
        ({"email": "x" * 300 + "@example.com"}, "email"),
        ({"email": "a" * 20_000}, "email"),
        ({"email": "rtl\u202eevil@example.com"}, "email"),
        ({"email": EMAIL, "token": TOKEN_SHAPE}, "token"),
    ],
)
def test_a_bad_forgot_body_names_the_field(
    app: Any, client: Any, body: dict[str, Any], field: str
) -> None:
    answer = client.post("/api/password/forgot", json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "invalid_request"
    assert [e["field"] for e in answer.json()["errors"]] == [field]
    assert count(app, tables.mail_requests) == 0


def test_an_unknown_token_and_malformed_json_are_problems(app: Any, client: Any) -> None:
    unknown = reset(client, TOKEN_SHAPE)
    assert unknown.status_code == 400 and unknown.json()["code"] == "invalid_token"
    assert unknown.headers["content-type"].startswith("application/problem+json")
    for path in ("/api/password/forgot", "/api/password/reset"):
        broken = client.post(
            path, content=b'{"token": ', headers={"content-type": "application/json"}
        )
        assert broken.status_code == 400 and broken.json()["code"] == "invalid_request"
        del client.headers["X-CSRF-Token"]
        refused = client.post(path, json={"email": EMAIL})
        assert refused.status_code == 403 and refused.json()["code"] == "csrf_failed"
        client.fetch_csrf()
    assert count(app, tables.audit_log) == count(app, tables.mail_requests) == 0


def test_the_links_lifetime_is_a_setting_refused_unless_positive(tmp_path: Path) -> None:
    for value in ("0", "-60"):
        with pytest.raises(ValidationError, match="PASSWORD_RESET_LINK_LIFETIME must be positive"):
            Settings(password_reset_link_lifetime=value, data_dir=tmp_path)
    half_an_hour = Settings(password_reset_link_lifetime="1800", data_dir=tmp_path)
    policy = registration_policy(half_an_hour)
    assert policy.reset_link_lifetime == dt.timedelta(minutes=30)
    assert policy.link_lifetime == dt.timedelta(hours=24)  # the confirmation links' own


def test_one_clients_share_of_mails_must_be_less_than_the_addresss(tmp_path: Path) -> None:
    """Equal or more, one client could spend every mail of an address again."""
    for per_email, per_client in (("5", "5"), ("5", "8"), ("3", "4")):
        expected = f"MAILS_PER_EMAIL_AND_CLIENT \\({per_client}\\) must be less than"
        with pytest.raises(ValidationError, match=expected):
            Settings(
                registration_mails_per_email=per_email,
                registration_mails_per_email_and_client=per_client,
                data_dir=tmp_path,
            )
    with pytest.raises(ValidationError, match="greater than or equal to 2"):
        Settings(registration_mails_per_email="1", data_dir=tmp_path)
    policy = registration_policy(Settings(data_dir=tmp_path))
    assert (policy.max_mails_per_email_and_client, policy.max_mails_per_email) == (5, 20)
