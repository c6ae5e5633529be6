"""Registration confirmed by e-mail over HTTP, on SQLite and PostgreSQL: the answer does not
tell whether an address has an account, the mailed link confirms and logs in, resend, and login
refused until confirmed."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import func, select

from colour_collector.server.app import create_app
from colour_collector.store import tables
from support import FEW_MAILS, PASSWORD, make_settings, outbox_mails, outbox_token

VARYING_HEADERS = {"date", "x-request-id"}
"""Headers that differ between any two answers (the time, the request's own id)."""


def count(app: Any, table: Any) -> int:
    with app.state.database.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(table)).scalar_one())


def outbox(app: Any) -> Any:
    return app.state.runtime.settings.mail_outbox


def test_the_answer_is_byte_identical_for_a_new_and_a_taken_address(
    app: Any, new_client: Any
) -> None:
    new_client(app).sign_up("taken@example.com")
    answers = []
    for email in ("taken@example.com", "fresh@example.com"):
        client = new_client(app)  # a CSRF cookie already: the answers set no cookie
        answer = client.register(email)
        answers.append(answer)
    taken, fresh = answers
    assert taken.status_code == fresh.status_code == 202
    assert taken.content == fresh.content
    assert taken.json()["status"] == "check_your_email"

    def headers(answer: Any) -> list[tuple[str, str]]:
        return [(k, v) for k, v in answer.headers.items() if k not in VARYING_HEADERS]

    assert headers(taken) == headers(fresh)
    assert "set-cookie" not in taken.headers
    # What differs is only in the mailboxes.
    notice = outbox_mails(outbox(app), "taken@example.com")[-1]
    assert notice["Subject"] == "Someone tried to register with your e-mail address"
    assert "#/confirm/" not in notice.get_body().get_content()
    assert outbox_token(outbox(app), "fresh@example.com")
    assert count(app, tables.accounts) == 2


def test_the_link_confirms_logs_in_and_works_once(client: Any, app: Any) -> None:
    assert client.register("new@example.com").status_code == 202
    link = outbox_mails(outbox(app), "new@example.com")[-1].get_body().get_content()
    assert "http://127.0.0.1:8000/#/confirm/" in link
    token = outbox_token(outbox(app), "new@example.com")
    with app.state.database.engine.connect() as connection:
        stored = connection.execute(select(tables.confirmation_tokens)).one()
    assert stored.token_hash != token and stored.used_at is None
    csrf_before = client.cookies["cc_csrf"]
    confirmed = client.post("/api/register/confirm", json={"token": token, "password": PASSWORD})
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["email"] == "new@example.com"
    assert "cc_session=" in confirmed.headers["set-cookie"]
    assert client.cookies["cc_csrf"] != csrf_before  # a CSRF token for the new session
    assert client.get("/api/me").json()["email"] == "new@example.com"
    assert client.post("/api/wallet/test-deposit", json={"amount_pence": 100}).status_code == 201
    again = client.post("/api/register/confirm", json={"token": token, "password": PASSWORD})
    assert again.status_code == 409 and again.json()["code"] == "already_confirmed"
    assert count(app, tables.sessions) == 1


def test_an_unconfirmed_account_cannot_log_in_and_a_wrong_password_says_so_first(
    client: Any, app: Any
) -> None:
    client.register("wait@example.com")
    wrong = client.login("wait@example.com", "not the password")
    assert wrong.status_code == 401 and wrong.json()["code"] == "invalid_credentials"
    refused = client.login("wait@example.com")
    assert refused.status_code == 403 and refused.json()["code"] == "email_not_confirmed"
    assert "cc_session" not in client.cookies
    assert count(app, tables.sessions) == 0
    assert client.confirm("wait@example.com").status_code == 200


def test_resend_answers_the_same_and_mails_only_an_unconfirmed_account(
    client: Any, app: Any, new_client: Any
) -> None:
    new_client(app).sign_up("done@example.com")
    client.register("pending@example.com")
    before = {
        e: len(outbox_mails(outbox(app), e)) for e in ("done@example.com", "pending@example.com")
    }
    answers = [
        client.post("/api/register/resend", json={"email": email})
        for email in ("nobody@example.com", "done@example.com", "Pending@Example.com")
    ]
    assert {a.status_code for a in answers} == {202}
    assert len({a.content for a in answers}) == 1
    assert outbox_mails(outbox(app), "nobody@example.com") == []
    assert len(outbox_mails(outbox(app), "done@example.com")) == before["done@example.com"]
    assert (
        len(outbox_mails(outbox(app), "pending@example.com")) == before["pending@example.com"] + 1
    )
    assert client.confirm("pending@example.com").status_code == 200


def test_mails_per_address_are_throttled_the_same_with_or_without_an_account(
    database_url: str, tmp_path: Any, new_client: Any
) -> None:
    app = create_app(make_settings(database_url, tmp_path, **FEW_MAILS))
    try:
        client = new_client(app)
        client.register("someone@example.com")
        for email in ("someone@example.com", "nobody@example.com"):
            while True:
                answer = client.post("/api/register/resend", json={"email": email})
                if answer.status_code != 202:
                    break
            assert answer.status_code == 429, answer.text
            assert answer.json()["code"] == "too_many_emails"
            assert int(answer.headers["retry-after"]) > 3000
        refused = client.register("someone@example.com")
        assert refused.status_code == 429
        assert len(outbox_mails(outbox(app), "someone@example.com")) == 2
    finally:
        app.state.database.dispose()


@pytest.mark.parametrize(
    "token",
    ["", "short", "A" * 42, "A" * 44, "A" * 42 + "=", "A" * 42 + "\u00e9", 43, None, ["A" * 43]],
)
def test_a_badly_shaped_token_names_the_field(client: Any, token: object) -> None:
    answer = client.post("/api/register/confirm", json={"token": token, "password": PASSWORD})
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert body["code"] == "invalid_request"
    assert [e["field"] for e in body["errors"]] == ["token"]


def test_missing_and_unknown_fields_are_named(client: Any) -> None:
    for path, fields in (
        ("/api/register/confirm", ["token", "password"]),
        ("/api/register/resend", ["email"]),
    ):
        answer = client.post(path, json={})
        assert answer.status_code == 422
        assert [e["field"] for e in answer.json()["errors"]] == fields
    extra = client.post("/api/register/resend", json={"email": "a@example.com", "x": 1})
    assert extra.status_code == 422 and "x" in [e["field"] for e in extra.json()["errors"]]
    bad = client.post("/api/register/resend", json={"email": "not-an-address"})
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "email"


def test_an_unknown_or_expired_token_is_refused_and_writes_nothing(client: Any, app: Any) -> None:
    client.register("late@example.com")
    token = outbox_token(outbox(app), "late@example.com")
    entries = count(app, tables.audit_log)
    unknown = client.post("/api/register/confirm", json={"token": "B" * 43, "password": PASSWORD})
    assert unknown.status_code == 400 and unknown.json()["code"] == "invalid_token"
    with app.state.database.engine.begin() as connection:
        connection.execute(
            tables.confirmation_tokens.update().values(
                expires_at=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
            )
        )
    expired = client.post("/api/register/confirm", json={"token": token, "password": PASSWORD})
    assert expired.status_code == 400 and expired.json()["code"] == "invalid_token"
    assert count(app, tables.audit_log) == entries and count(app, tables.sessions) == 0
    with app.state.database.engine.connect() as connection:
        assert connection.execute(select(tables.accounts.c.email_confirmed_at)).scalar() is None


def test_an_address_registered_again_by_someone_else_is_not_confirmed_by_its_owner(
    app: Any, new_client: Any
) -> None:
    """The owner registers; someone else registers the same address with a password of their
    own; the owner opens the first link: it asks for the latest registration's password, which
    the owner does not know, so nothing is confirmed and the intruder cannot log in."""
    owner, intruder = new_client(app), new_client(app)
    assert owner.register("owner@example.com").status_code == 202
    link = outbox_token(outbox(app), "owner@example.com")
    assert intruder.register("owner@example.com", "the intruder's password").status_code == 202
    entries = count(app, tables.audit_log)
    refused = owner.post("/api/register/confirm", json={"token": link, "password": PASSWORD})
    assert refused.status_code == 401 and refused.json()["code"] == "invalid_credentials"
    assert "cc_session" not in refused.headers.get("set-cookie", "")
    assert count(app, tables.audit_log) == entries and count(app, tables.sessions) == 0
    late = intruder.login("owner@example.com", "the intruder's password")
    assert late.status_code == 403 and late.json()["code"] == "email_not_confirmed"
    # The owner registers again and confirms; the intruder's password no longer works.
    assert owner.register("owner@example.com").status_code == 202
    assert owner.confirm("owner@example.com").status_code == 200
    wrong = intruder.login("owner@example.com", "the intruder's password")
    assert wrong.status_code == 401 and wrong.json()["code"] == "invalid_credentials"


@pytest.mark.parametrize("password", ["", None, 12, ["x"], "x" * 1025])
def test_a_badly_shaped_confirmation_password_names_the_field(
    client: Any, app: Any, password: object
) -> None:
    client.register("shape@example.com")
    token = outbox_token(outbox(app), "shape@example.com")
    answer = client.post("/api/register/confirm", json={"token": token, "password": password})
    assert answer.status_code == 422, answer.text
    assert [e["field"] for e in answer.json()["errors"]] == ["password"]
    assert count(app, tables.sessions) == 0
