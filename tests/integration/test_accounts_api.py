"""Register, log in, log out, /api/me, throttling and CSRF, over HTTP on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import func, select

from colour_collector.store import tables

PROBLEM = "application/problem+json"


def count(app: Any, table: Any) -> int:
    with app.state.database.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(table)).scalar_one())


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    assert body["status"] == status
    assert body["type"].endswith(code)
    assert body["title"] and body["detail"]
    return body


def registered(client: Any, email: str) -> None:
    """A confirmed account, logged out."""
    client.sign_up(email)
    assert client.post("/api/logout").status_code == 204


def test_register_login_me_logout(client: Any, app: Any) -> None:
    registered = client.register("Player@Example.com")
    assert registered.status_code == 202, registered.text
    assert registered.json()["status"] == "check_your_email"
    assert "player@example.com" not in registered.text and "password" not in registered.text

    assert_problem(client.get("/api/me"), 401, "not_authenticated")
    assert_problem(client.login("player@example.com"), 403, "email_not_confirmed")
    assert client.confirm("player@example.com").status_code == 200
    assert client.post("/api/logout").status_code == 204

    logged_in = client.login("player@example.com")
    assert logged_in.status_code == 200
    cookie = logged_in.headers["set-cookie"].lower()
    assert "cc_session=" in cookie and "httponly" in cookie and "samesite=lax" in cookie

    me = client.get("/api/me")
    assert me.status_code == 200
    assert me.json()["email"] == "player@example.com"
    assert me.json()["date_of_birth"] == "1990-05-17"

    # The session token is stored hashed, never in clear.
    token = client.cookies.get("cc_session")
    assert token
    with app.state.database.engine.connect() as connection:
        stored = connection.execute(select(tables.sessions.c.token_hash)).scalars().all()
    assert token not in stored and len(stored) == 1

    assert client.post("/api/logout").status_code == 204
    assert_problem(client.get("/api/me"), 401, "not_authenticated")
    assert count(app, tables.sessions) == 0
    # Logging out again is harmless.
    assert client.post("/api/logout").status_code == 204


def test_old_session_token_is_refused_after_logout(client: Any) -> None:
    client.sign_up()
    token = client.cookies.get("cc_session")
    client.post("/api/logout")
    client.cookies.set("cc_session", token or "")
    assert_problem(client.get("/api/me"), 401, "not_authenticated")


def test_under_18_refused(client: Any, app: Any) -> None:
    today = dt.datetime.now(dt.UTC).date()
    seventeen = today.replace(year=today.year - 17).isoformat()
    body = assert_problem(
        client.register("young@example.com", date_of_birth=seventeen), 422, "underage"
    )
    assert "18" in body["detail"]
    assert body["errors"][0]["field"] == "date_of_birth"
    assert count(app, tables.accounts) == 0


def test_exactly_18_today_accepted(client: Any) -> None:
    today = dt.datetime.now(dt.UTC).date()
    if today.month == 2 and today.day == 29:  # pragma: no cover - leap day
        today = today - dt.timedelta(days=1)
    eighteen = today.replace(year=today.year - 18).isoformat()
    assert client.register("adult@example.com", date_of_birth=eighteen).status_code == 202


def test_weak_password_and_bad_email_refused(client: Any) -> None:
    body = assert_problem(
        client.register("a@example.com", password="short"), 422, "invalid_request"
    )
    assert body["errors"][0]["field"] == "password"
    body = assert_problem(client.register("not-an-email"), 422, "invalid_request")
    assert body["errors"][0]["field"] == "email"


def test_wrong_password_and_unknown_email(client: Any) -> None:
    registered(client, "p@example.com")
    wrong = assert_problem(
        client.login("p@example.com", "wrong password!"), 401, "invalid_credentials"
    )
    unknown = assert_problem(client.login("nobody@example.com"), 401, "invalid_credentials")
    assert wrong["detail"] == unknown["detail"]  # never says which was wrong
    assert "cc_session" not in client.cookies


def test_repeated_failures_are_throttled(client: Any, app: Any, password: str) -> None:
    registered(client, "t@example.com")
    for _ in range(5):
        assert_problem(client.login("t@example.com", "wrong password!"), 401, "invalid_credentials")
    throttled = client.login("t@example.com", "wrong password!")
    assert_problem(throttled, 429, "too_many_attempts")
    retry_after = int(throttled.headers["retry-after"])
    assert 0 < retry_after <= 15 * 60
    # Even the right password is refused while throttled, and nothing more is recorded.
    assert_problem(client.login("t@example.com", password), 429, "too_many_attempts")
    assert count(app, tables.login_failures) == 5
    # Another e-mail from the same client is not yet throttled (per-client limit is 20).
    registered(client, "u@example.com")
    assert client.login("u@example.com").status_code == 200


def test_throttling_per_client(client: Any) -> None:
    for n in range(20):
        assert client.login(f"x{n}@example.com", "wrong password!").status_code == 401
    assert_problem(client.login("fresh@example.com"), 429, "too_many_attempts")


def test_success_clears_email_failures(client: Any) -> None:
    registered(client, "c@example.com")
    for _ in range(4):
        client.login("c@example.com", "wrong password!")
    assert client.login("c@example.com").status_code == 200
    for _ in range(4):
        assert client.login("c@example.com", "wrong password!").status_code == 401
    assert client.login("c@example.com").status_code == 200


def test_csrf_missing_or_wrong_is_refused_and_writes_nothing(
    client: Any, app: Any, password: str, new_client: Any
) -> None:
    token = client.headers.pop("X-CSRF-Token")
    body = {"email": "csrf@example.com", "password": password, "date_of_birth": "1990-01-01"}
    assert_problem(client.post("/api/register", json=body), 403, "csrf_failed")
    wrong = client.post("/api/register", json=body, headers={"X-CSRF-Token": token + "x"})
    assert_problem(wrong, 403, "csrf_failed")
    # A header that matches a forged cookie is refused too: the token is signed.
    forged = new_client(app, csrf=False)
    forged.cookies.set("cc_csrf", "forged.value")
    refused = forged.post("/api/register", json=body, headers={"X-CSRF-Token": "forged.value"})
    assert_problem(refused, 403, "csrf_failed")
    assert count(app, tables.accounts) == 0
    assert count(app, tables.audit_log) == 0
    # With the header it works.
    accepted = client.post("/api/register", json=body, headers={"X-CSRF-Token": token})
    assert accepted.status_code == 202


def test_csrf_header_sent_twice_is_refused_in_either_order(player: Any, app: Any) -> None:
    token = player.headers.pop("X-CSRF-Token")
    for pair in ((token, "x"), ("x", token), (token, token)):
        refused = player.post(
            "/api/wallet/test-deposit",
            json={"amount_pence": 500},
            headers=[("X-CSRF-Token", pair[0]), ("X-CSRF-Token", pair[1])],
        )
        assert_problem(refused, 403, "csrf_failed")
        assert "the X-CSRF-Token header is sent 2 times" in refused.json()["detail"]
    assert count(app, tables.ledger) == 0


def test_a_request_no_route_takes_is_404_or_405_without_a_token(app: Any, new_client: Any) -> None:
    """The router answers it untouched: the client is told what is really wrong."""
    anonymous = new_client(app, csrf=False)
    assert_problem(anonymous.delete("/api/wallet"), 405, "method_not_allowed")
    assert_problem(anonymous.patch("/api/csrf"), 405, "method_not_allowed")
    assert_problem(anonymous.post("/api/nope"), 404, "not_found")
    # The static files take no POST (Starlette's answer); nothing there asks for a token.
    assert anonymous.post("/operator/index.html").status_code in (404, 405)
    # A route that takes the method still asks for the token.
    assert_problem(anonymous.post("/api/logout"), 403, "csrf_failed")


def test_csrf_required_for_logout_and_deposit(player: Any, app: Any) -> None:
    token = player.headers.pop("X-CSRF-Token")
    assert_problem(player.post("/api/logout"), 403, "csrf_failed")
    assert_problem(
        player.post("/api/wallet/test-deposit", json={"amount_pence": 500}), 403, "csrf_failed"
    )
    assert count(app, tables.ledger) == 0
    player.headers["X-CSRF-Token"] = token
    assert player.get("/api/me").status_code == 200  # still logged in


def test_csrf_cookie_is_readable_by_script(app: Any, new_client: Any) -> None:
    response = new_client(app, csrf=False).get("/healthz")
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("cc_csrf=")
    assert "httponly" not in cookie.lower()


def test_audit_records_register_login_logout(client: Any, app: Any) -> None:
    client.sign_up("audited@example.com")
    client.post("/api/logout")
    with app.state.database.engine.connect() as connection:
        kinds = (
            connection.execute(select(tables.audit_log.c.kind).order_by(tables.audit_log.c.seq))
            .scalars()
            .all()
        )
    assert kinds == ["register", "email_confirmed", "login", "logout"]


def test_the_session_summary_counts_stakes_and_prizes_since_login(client: Any) -> None:
    assert_problem(client.get("/api/session"), 401, "not_authenticated")
    client.sign_up()
    first = client.get("/api/session")
    assert first.status_code == 200, first.text
    summary = first.json()
    assert summary["staked_pence"] == summary["won_pence"] == summary["net_pence"] == 0
    assert summary["started_at"] < summary["expires_at"]
    deposited = client.post("/api/wallet/test-deposit", json={"amount_pence": 1000})
    assert deposited.status_code == 201
    bought = client.post("/api/plays", json={"confirm": True})
    assert bought.status_code == 201, bought.text
    after = client.get("/api/session").json()
    assert after["staked_pence"] == 500 and after["net_pence"] == after["won_pence"] - 500
    assert after["started_at"] == summary["started_at"]  # the same session in every tab


def test_registration_answers_every_bad_field_at_once(client: Any) -> None:
    # What the schema says (the e-mail's form, the password's length) is checked together...
    answer = client.post(
        "/api/register",
        json={"email": "nobody", "password": "short", "date_of_birth": "2015-06-01"},
    )
    body = assert_problem(answer, 422, "invalid_request")
    assert [e["field"] for e in body["errors"]] == ["email", "password"]
    # ...and so is what the rules say (the age, the date's plausibility).
    answer = client.post(
        "/api/register",
        json={
            "email": "kid@example.com",
            "password": "long enough pw",
            "date_of_birth": "2015-06-01",
        },
    )
    body = assert_problem(answer, 422, "underage")
    assert [e["field"] for e in body["errors"]] == ["date_of_birth"]


@pytest.mark.parametrize(
    ("email", "why"),
    [
        ("nul\x00@example.com", "U+0000"),
        ("rtl\u202eevil@example.com", "U+202E"),
        ("<script>@example.com", "email"),
        ("a@localhost", "email"),
        ("zero\u200bwidth@example.com", "U+200B"),
    ],
)
def test_emails_are_checked_at_the_edge(client: Any, email: str, why: str) -> None:
    for path in ("/api/register", "/api/login"):
        body = {"email": email, "password": "long enough password"}
        if path == "/api/register":
            body["date_of_birth"] = "1990-01-01"
        answer = assert_problem(client.post(path, json=body), 422, "invalid_request")
        assert answer["errors"][0]["field"] == "email"
        assert why in answer["detail"] or why == "email", answer["detail"]
    with client.app.state.database.engine.connect() as connection:
        stored = connection.execute(select(func.count()).select_from(tables.accounts)).scalar()
    assert stored == 0


@pytest.mark.parametrize(
    "date_of_birth", ["0001-01-01", "1899-12-31", "1990-01-01T00:00:00", "19900101", "1990-1-1"]
)
def test_dates_of_birth_must_be_plausible_calendar_dates(client: Any, date_of_birth: str) -> None:
    answer = client.post(
        "/api/register",
        json={
            "email": "dob@example.com",
            "password": "long enough password",
            "date_of_birth": date_of_birth,
        },
    )
    body = assert_problem(answer, 422, "invalid_request")
    assert body["errors"][0]["field"] == "date_of_birth"


def test_a_csrf_token_works_only_with_the_session_it_was_issued_for(
    app: Any, new_client: Any, password: str
) -> None:
    first = new_client(app)
    before_login = first.cookies["cc_csrf"]
    first.sign_up("bound@example.com")
    after_login = first.cookies["cc_csrf"]
    assert after_login != before_login  # logging in issued a token for the new session
    deposit = {"amount_pence": 100}
    stale = first.post("/api/wallet/test-deposit", json=deposit,
                       headers={"X-CSRF-Token": before_login})  # fmt: skip
    assert_problem(stale, 403, "csrf_failed")
    # Another session of the same player: its cookie, with the first session's token.
    second = new_client(app)
    assert second.login("bound@example.com", password).status_code == 200
    second.cookies.delete("cc_csrf")
    second.cookies.set("cc_csrf", after_login)
    crossed = second.post("/api/wallet/test-deposit", json=deposit,
                          headers={"X-CSRF-Token": after_login})  # fmt: skip
    body = assert_problem(crossed, 403, "csrf_failed")
    assert "for this session" in body["detail"]
    ok = first.post("/api/wallet/test-deposit", json=deposit)  # the current token
    assert ok.status_code == 201, ok.text
    assert first.post("/api/logout").status_code == 204
    assert first.cookies["cc_csrf"] != after_login  # logging out issued one for no session
    assert first.get("/api/me").status_code == 401


def test_login_and_logout_replace_the_csrf_cookie(client: Any) -> None:
    registered(client, "rotate@example.com")
    anonymous = client.get("/api/csrf").json()["csrf_token"]
    assert anonymous == client.cookies["cc_csrf"]
    assert client.login("rotate@example.com").status_code == 200
    logged_in = client.cookies["cc_csrf"]
    assert logged_in != anonymous  # the token from GET /api/csrf is stale now
    url, deposit = "/api/wallet/test-deposit", {"amount_pence": 100}
    stale = client.post(url, json=deposit, headers={"X-CSRF-Token": anonymous})
    assert "does not match" in assert_problem(stale, 403, "csrf_failed")["detail"]
    fresh = client.post(url, json=deposit, headers={"X-CSRF-Token": logged_in})
    assert fresh.status_code == 201, fresh.text

    out = client.post("/api/logout", headers={"X-CSRF-Token": logged_in})
    assert out.status_code == 204
    logged_out = client.cookies["cc_csrf"]
    assert logged_out not in {anonymous, logged_in}
    # Logging out again with the token of the session just ended is refused...
    again = client.post("/api/logout", headers={"X-CSRF-Token": logged_in})
    assert_problem(again, 403, "csrf_failed")
    # ...and with the cookie the logout set, it is harmless.
    assert client.post("/api/logout", headers={"X-CSRF-Token": logged_out}).status_code == 204
    assert client.get("/api/csrf").json()["csrf_token"] == client.cookies["cc_csrf"]


def test_validation_messages_carry_no_pydantic_prefix(client: Any) -> None:
    body = assert_problem(client.register("not-an-email"), 422, "invalid_request")
    message = next(e["message"] for e in body["errors"] if e["field"] == "email")
    assert message.startswith("'not-an-email': "), message
    assert "Value error" not in body["detail"]
    assert f"email: {message}" in body["detail"]
