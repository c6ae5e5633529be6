"""The operator's side over HTTP on SQLite and PostgreSQL: the console login and roles, the sales
switch while a play finishes, the live figures, player look-up, audit verification, sqladmin's
read-only tables behind the console session, Prometheus metrics and request ids."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import assert_problem, audit_entries, buy, play_settings, play_to_end

from colour_collector.server.settings import Settings
from colour_collector.service import operators
from colour_collector.service.accounts import Passwords
from colour_collector.service.protection_models import OperatorRole
from colour_collector.store import Database

SECRET = "a long operator password"
PASSWORDS = Passwords(time_cost=1, memory_kib=8, parallelism=1)


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return play_settings(database_url, tmp_path, ["£10", None, None])


@pytest.fixture
def database(app: Any) -> Database:
    found: Database = app.state.database
    return found


def console(app: Any, new_client: Any, database: Database, name: str, role: OperatorRole) -> Any:
    """A client logged in to the console as a new operator with ``role``."""
    operators.add(database, PASSWORDS, name=name, password=SECRET, role=role)
    client = new_client(app)
    answer = client.post("/api/operator/login", json={"name": name, "password": SECRET})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"id": answer.json()["id"], "name": name, "role": role.value}
    assert "samesite=strict" in answer.headers["set-cookie"].lower()
    return client


def test_the_console_login_is_apart_from_players(
    app: Any, new_client: Any, player: Any, database: Database
) -> None:
    assert_problem(player.get("/api/operator/me"), 401, "operator_not_authenticated")
    assert_problem(
        player.post("/api/operator/login", json={"name": "nobody", "password": SECRET}),
        401,
        "invalid_credentials",
    )
    viewer = console(app, new_client, database, "vic", OperatorRole.VIEWER)
    assert viewer.get("/api/operator/me").json()["role"] == "viewer"
    assert_problem(viewer.get("/api/me"), 401, "not_authenticated")  # not a player
    assert_problem(
        viewer.post("/api/operator/sales", json={"on_sale": False, "reason": "x"}),
        403,
        "operator_forbidden",
    )
    assert_problem(
        viewer.post("/api/operator/players/lookup", json={"query": "player@example.com"}),
        403,
        "operator_forbidden",
    )
    assert viewer.post("/api/operator/logout").status_code == 204
    assert_problem(viewer.get("/api/operator/game"), 401, "operator_not_authenticated")
    kinds = [kind for kind, _ in audit_entries(database)]
    assert [k for k in kinds if k.startswith("operator_")] == [
        "operator_added",
        "operator_login",
        "operator_logout",
    ]


def test_a_wrong_console_login_speaks_of_a_name_not_an_e_mail(
    app: Any, new_client: Any, database: Database
) -> None:
    operators.add(database, PASSWORDS, name="olga", password=SECRET, role=OperatorRole.VIEWER)
    client = new_client(app)
    wrong = client.post("/api/operator/login", json={"name": "olga", "password": "not it at all"})
    assert assert_problem(wrong, 401, "invalid_credentials")["title"] == "Wrong name or password"
    # The players' login keeps its own wording.
    player = client.post("/api/login", json={"email": "olga@example.com", "password": SECRET})
    assert assert_problem(player, 401, "invalid_credentials")["title"] == "Wrong e-mail or password"


def test_stopping_sales_lets_a_play_in_progress_finish_and_pay(
    app: Any, new_client: Any, player: Any, database: Database
) -> None:
    manager = console(app, new_client, database, "mia", OperatorRole.MANAGER)
    player.post("/api/wallet/test-deposit", json={"amount_pence": 2000})
    bought = buy(player).json()
    stopped = manager.post("/api/operator/sales", json={"on_sale": False, "reason": "pool check"})
    assert stopped.status_code == 200, stopped.text
    assert (stopped.json()["on_sale"], stopped.json()["changed_by"]) == (False, "mia")
    play_to_end(player, bought["play"]["play_number"], bought["board"])
    done = player.post(f"/api/plays/{bought['play']['play_number']}/finish", json={})
    assert done.json()["prize_pence"] == 1000 and done.json()["balance_pence"] == 2500
    assert_problem(buy(player), 503, "sales_stopped")
    assert player.get("/api/wallet").json()["balance_pence"] == 2500
    state = manager.get("/api/operator/game").json()
    assert state["sales"]["on_sale"] is False and state["sales"]["reason"] == "pool check"
    restarted = manager.post("/api/operator/sales", json={"on_sale": True, "reason": "checked"})
    assert restarted.json()["on_sale"] is True
    assert buy(player).status_code == 201
    kinds = [kind for kind, _ in audit_entries(database)]
    assert kinds.count("sales_stopped") == kinds.count("sales_started") == 1


def test_the_game_state_shows_figures_against_the_prize_structure(
    app: Any, new_client: Any, player: Any, database: Database
) -> None:
    viewer = console(app, new_client, database, "vic", OperatorRole.VIEWER)
    player.post("/api/wallet/test-deposit", json={"amount_pence": 1000})
    first = buy(player).json()
    play_to_end(player, first["play"]["play_number"], first["board"])
    player.post(f"/api/plays/{first['play']['play_number']}/finish", json={})
    buy(player)
    state = viewer.get("/api/operator/game").json()
    figures = state["figures"]
    assert (figures["plays"], figures["in_progress"], figures["stakes_pence"]) == (2, 1, 1000)
    assert (figures["paid_plays"], figures["paid_pence"]) == (1, 1000)
    # The finished play's: the one in progress (no win, not told yet) is not in them.
    assert figures["payout"]["observed"] == pytest.approx(2.0)
    assert figures["payout"]["expected"] == pytest.approx(0.735)
    lines = {line["prize_pence"]: line for line in figures["prizes"]}
    assert lines[0]["plays"]["observed"] == 0 and lines[1000]["plays"]["observed"] == 1
    assert state["draw_mode"] == "independent" and state["pool"] is None
    assert state["last_audit_check"] is None


def test_player_look_up_and_audit_verification(
    app: Any, new_client: Any, player: Any, database: Database
) -> None:
    manager = console(app, new_client, database, "mia", OperatorRole.MANAGER)
    limits = {"daily_pence": 3000, "weekly_pence": None, "monthly_pence": None}
    player.post("/api/protection/deposit-limits", json=limits)
    player.post("/api/protection/time-out", json={"days": 2, "confirm": True})
    found = manager.post("/api/operator/players/lookup", json={"query": "player@example.com"})
    assert found.status_code == 200, found.text
    file = found.json()
    assert file["email"] == "player@example.com" and file["balance_pence"] == 0
    assert file["deposit_limits"][0]["amount_pence"] == 3000
    assert [e["kind"] for e in file["exclusions"]] == ["time_out"]
    assert_problem(
        manager.post("/api/operator/players/lookup", json={"query": "#99999"}), 404, "not_found"
    )
    assert_problem(
        manager.post("/api/operator/players/lookup", json={"query": "CC-000-000-001"}),
        422,
        "invalid_request",
        "query",
    )
    checked = manager.post("/api/operator/audit/verify", json={})
    assert checked.status_code == 200, checked.text
    assert checked.json()["intact"] and checked.json()["entries"] >= 6
    last = manager.get("/api/operator/game").json()["last_audit_check"]
    assert last["operator"] == "mia" and last["intact"]
    looked = [p for kind, p in audit_entries(database) if kind == "player_lookup"]
    # The look-up that found no one is recorded too; the refused query, being no query, is not.
    assert looked == [{"operator": "mia"}, {"operator": "mia", "account": 99999, "found": False}]


def test_the_tables_open_with_a_support_console_session(
    app: Any, new_client: Any, player: Any, database: Database
) -> None:
    stranger = new_client(app)
    away = stranger.get("/operator/tables/accounts/list", follow_redirects=False)
    assert away.status_code == 302 and away.headers["location"] == "/operator/#/login"
    viewer = console(app, new_client, database, "vic", OperatorRole.VIEWER)
    assert viewer.get("/operator/tables/accounts/list", follow_redirects=False).status_code == 403
    helper = console(app, new_client, database, "sam", OperatorRole.SUPPORT)
    listed = helper.get("/operator/tables/accounts/list")
    assert listed.status_code == 200 and "player@example.com" in listed.text
    assert "argon2" not in listed.text  # no password hashes
    for table in ("plays", "ledger", "audit"):
        assert helper.get(f"/operator/tables/{table}/list").status_code == 200
    # A row by its id; an id that names none is a 404, whatever it is.
    shown = helper.get("/operator/tables/accounts/details/1")
    assert shown.status_code == 200 and "player@example.com" in shown.text
    for table in ("accounts", "plays", "ledger", "audit"):
        for bad in ("abc", "99999999999999999999", "2147483648", "0", "-1", "%C2%B2", "1.5"):
            missed = helper.get(f"/operator/tables/{table}/details/{bad}")
            assert missed.status_code == 404, (table, bad, missed.status_code)
    # Read-only: no create, edit or delete pages.
    assert helper.get("/operator/tables/accounts/create").status_code in (403, 404)
    refused = helper.post("/operator/tables/accounts/delete?pks=1")
    assert refused.status_code in (403, 404, 405)
    assert player.get("/api/me").status_code == 200


def test_every_page_of_the_tables_is_audited(
    app: Any, new_client: Any, player: Any, database: Database
) -> None:
    """The tables show personal data, as the player look-up does: each page that shows rows is
    an audit entry naming the operator, so they are no way round the audited look-up."""
    viewer = console(app, new_client, database, "vic", OperatorRole.VIEWER)
    assert viewer.get("/operator/tables/ledger/list", follow_redirects=False).status_code == 403
    helper = console(app, new_client, database, "sam", OperatorRole.SUPPORT)
    before = len(audit_entries(database))
    assert helper.get("/operator/tables/accounts/details/1").status_code == 200
    assert helper.get("/operator/tables/ledger/list?search=deposit").status_code == 200
    assert helper.get("/operator/tables/audit/list").status_code == 200
    # No body, but its Content-Length tells whether a search matched: audited as well.
    assert helper.head("/operator/tables/accounts/list?search=nobody").status_code == 200
    seen = [payload for kind, payload in audit_entries(database)[before:] if kind == "table_viewed"]
    assert seen == [
        {"operator": "sam", "page": "/operator/tables/accounts/details/1"},
        {"operator": "sam", "page": "/operator/tables/ledger/list?search=deposit"},
        {"operator": "sam", "page": "/operator/tables/audit/list"},
        {"operator": "sam", "page": "/operator/tables/accounts/list?search=nobody"},
    ]
    assert not [
        p
        for kind, p in audit_entries(database)
        if p.get("operator") == "vic" and kind == "table_viewed"
    ]


def game_figures(client: Any) -> dict[str, float]:
    """The game's figures in ``/metrics`` (not the per-process request metrics)."""
    answer = client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    lines = [
        line.split()
        for line in answer.text.splitlines()
        if line.startswith("colour_collector_") and not line.startswith("colour_collector_request")
    ]
    return {name: float(value) for name, value in lines}


def test_a_player_is_found_by_a_play_number(
    app: Any, new_client: Any, player: Any, database: Database
) -> None:
    player.post("/api/wallet/test-deposit", json={"amount_pence": 1000})
    number = buy(player).json()["play"]["play_number"]
    helper = console(app, new_client, database, "sam", OperatorRole.SUPPORT)
    found = helper.post("/api/operator/players/lookup", json={"query": number.lower()})
    assert found.status_code == 200, found.text
    assert found.json()["email"] == "player@example.com"
    shown = found.json()["plays"][0]
    assert shown["play_number"] == number
    assert (shown["pool_id"], shown["pool_position"]) == (None, None)  # drawn, not dealt


def test_metrics_and_request_ids(app: Any, player: Any) -> None:
    player.post("/api/wallet/test-deposit", json={"amount_pence": 1000})
    before = game_figures(player)
    bought = buy(player)
    player.get("/api/plays/CC-000-000-000")  # a 404
    # Bought, not revealed: nothing public moves with its prize (a £10 win, fixed at purchase).
    during = game_figures(player)
    moved = {name for name in during.keys() | before.keys() if during.get(name) != before.get(name)}
    assert moved == {
        "colour_collector_plays_sold",
        "colour_collector_plays_in_progress",
        "colour_collector_stakes_pence",
    }, (before, during)
    assert during["colour_collector_plays_in_progress"] == 1.0
    assert "colour_collector_payout_ratio" not in during
    play_to_end(player, bought.json()["play"]["play_number"], bought.json()["board"])
    assert game_figures(player) == during  # revealed, not finished: still nothing
    player.post(f"/api/plays/{bought.json()['play']['play_number']}/finish", json={})
    after = game_figures(player)
    assert after["colour_collector_plays_sold"] == 1.0
    assert after["colour_collector_plays_in_progress"] == 0.0
    assert after["colour_collector_prizes_paid_pence"] == 1000.0
    assert after["colour_collector_payout_ratio"] == 2.0
    text = player.get("/metrics").text
    assert 'colour_collector_request_seconds_count{method="POST",route="/api/plays"}' in text
    assert 'colour_collector_request_errors_total{status="404"}' in text
    given = player.get("/healthz", headers={"X-Request-ID": "abc-123"})
    assert given.headers["X-Request-ID"] == "abc-123"
    made = player.get("/healthz", headers={"X-Request-ID": "no spaces allowed"})
    assert len(made.headers["X-Request-ID"]) == 16


@pytest.mark.parametrize("backend", ["sqlite"])
def test_metrics_can_require_a_token(
    database_url: str, tmp_path: Path, new_client: Any, backend: str
) -> None:
    from colour_collector.server.app import create_app

    application = create_app(play_settings(database_url, tmp_path, metrics_token="scrape-me"))
    try:
        client = new_client(application)
        assert_problem(client.get("/metrics"), 401, "not_authenticated")
        assert (
            client.get("/metrics", headers={"Authorization": "Bearer scrape-me"}).status_code == 200
        )
    finally:
        application.state.database.dispose()


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("²", "nor a Play Number (CC-7K3-D9Q-XM4)"),
        ("１２３", "nor a Play Number (CC-7K3-D9Q-XM4)"),  # full-width digits
        ("#²", "nor a Play Number (CC-7K3-D9Q-XM4)"),
        ("9" * 23, "too large to be an account number"),
        ("#2147483648", "too large to be an account number"),
        ("player@example", "not an e-mail address"),
    ],
)
@pytest.mark.usefixtures("player")  # player@example.com
def test_a_look_up_that_is_no_account_number_nor_address_names_the_query(
    app: Any, new_client: Any, database: Database, query: str, words: str
) -> None:
    helper = console(app, new_client, database, "sam", OperatorRole.SUPPORT)
    body = assert_problem(
        helper.post("/api/operator/players/lookup", json={"query": query}),
        422,
        "invalid_request",
        field="query",
    )
    assert [item["field"] for item in body["errors"]] == ["query"], body
    assert words in body["detail"], body
    assert [kind for kind, _ in audit_entries(database) if kind == "player_lookup"] == []
    # An account number is the digits 0-9, leading zeros or not.
    number = helper.post("/api/operator/players/lookup", json={"query": "player@example.com"})
    assert number.status_code == 200, number.text
    for given in (f"#{number.json()['id']}", f"000000000000{number.json()['id']}"):
        again = helper.post("/api/operator/players/lookup", json={"query": given})
        assert again.status_code == 200 and again.json()["email"] == "player@example.com", given
    missing = assert_problem(
        helper.post("/api/operator/players/lookup", json={"query": "2147483647"}), 404, "not_found"
    )
    assert missing["detail"] == "no player has the account number 2147483647"


def test_the_tables_are_never_kept_in_a_cache(
    app: Any, new_client: Any, player: Any, database: Database
) -> None:
    """Their pages hold players' personal data: no browser or proxy may keep them, nor show
    them again from its cache (the Back button) once the operator has logged out."""
    helper = console(app, new_client, database, "sam", OperatorRole.SUPPORT)
    for page in ("/operator/tables/", "/operator/tables/accounts/list"):
        shown = helper.get(page)
        assert shown.status_code == 200 and shown.headers["cache-control"] == "no-store"
    shown = helper.get("/operator/tables/accounts/details/1")
    assert "player@example.com" in shown.text and shown.headers["cache-control"] == "no-store"


def test_the_tables_file_pages_answer_404_whatever_the_row(
    app: Any, new_client: Any, player: Any, database: Database
) -> None:
    """sqladmin's download and preview pages: no column of these tables is a file. An id that
    named no row failed with a 500 where one that did answered 404: a way to tell which rows
    exist without the audited pages."""
    helper = console(app, new_client, database, "sam", OperatorRole.SUPPORT)
    for table in ("accounts", "plays", "ledger", "audit"):
        for row in ("1", "99", "abc"):
            for page in ("download", "preview"):
                answer = helper.get(f"/operator/tables/{table}/{row}/email/{page}/")
                assert answer.status_code == 404, (table, row, page, answer.text)


def test_console_input_with_a_nul_is_refused_by_name(
    app: Any, new_client: Any, database: Database
) -> None:
    """PostgreSQL stores no NUL: a reason, a name or a search with one was a 500."""
    manager = console(app, new_client, database, "mia", OperatorRole.MANAGER)
    for reason in ("a\x00b", "routine check \u202e\u2066ten minutes\u2069", "done \u200b"):
        stopped = manager.post("/api/operator/sales", json={"on_sale": False, "reason": reason})
        problem = assert_problem(stopped, 422, "invalid_request", "reason")
        assert "control and format characters are not accepted" in problem["detail"], reason
    assert manager.get("/api/operator/game").json()["sales"]["on_sale"] is True
    assert "sales_stopped" not in [kind for kind, _ in audit_entries(database)]
    stranger = new_client(app)
    for name in ("mia\x00", "mia\u202e"):  # refused by name, as a player's login is
        wrong = stranger.post("/api/operator/login", json={"name": name, "password": SECRET})
        assert_problem(wrong, 422, "invalid_request", "name")
    searched = manager.post("/api/operator/players/lookup", json={"query": "a\x00b"})
    assert_problem(searched, 422, "invalid_request", "query")
    for table in ("accounts", "plays", "ledger", "audit"):
        searched = manager.get(f"/operator/tables/{table}/list?search=a%00b")
        assert searched.status_code == 400 and "NUL" in searched.text, (table, searched.text)


def test_console_logins_at_one_name_at_once_check_no_more_passwords_than_allowed(
    app: Any, new_client: Any, database: Database
) -> None:
    """Attempts made together are counted one after another: on PostgreSQL each counted
    without the others' failures, and nine of thirty had their password checked, not five."""
    operators.add(database, PASSWORDS, name="olga", password=SECRET, role=OperatorRole.VIEWER)
    clients = [new_client(app) for _ in range(30)]
    start = threading.Barrier(len(clients))
    answers: list[int] = []

    def guess(client: Any) -> None:
        start.wait()
        wrong = {"name": "olga", "password": "not the password"}
        answers.append(client.post("/api/operator/login", json=wrong).status_code)

    threads = [threading.Thread(target=guess, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [401] * 5 + [429] * 25
