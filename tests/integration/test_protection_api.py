"""Player protection over HTTP on SQLite and PostgreSQL, with the server's clock moved by the
test-only clock file: deposit limits and their 24-hour cooling-off, time-outs and
self-exclusion, reality checks, inactivity, deposits and withdrawals with Idempotency-Keys, and
the information anyone may read before buying."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import assert_problem, audit_entries, buy, play_settings, play_to_end

from colour_collector.server.settings import Settings
from colour_collector.store import Database
from support import ServerClock

LIMITS_NONE = {"daily_pence": None, "weekly_pence": None, "monthly_pence": None}


@pytest.fixture
def idle_timeout() -> dt.timedelta:
    """The session idle timeout (long, except for the inactivity tests)."""
    return dt.timedelta(days=400)


@pytest.fixture
def session_lifetime() -> dt.timedelta:
    """How long a session lasts after login (long, except for its fixed end's test)."""
    return dt.timedelta(days=400)


@pytest.fixture
def settings(
    database_url: str,
    tmp_path: Path,
    server_clock: ServerClock,
    idle_timeout: dt.timedelta,
    session_lifetime: dt.timedelta,
) -> Settings:
    return play_settings(
        database_url,
        tmp_path,
        [None] * 6,
        clock_file=server_clock.path,
        session_idle_timeout=idle_timeout,
        session_lifetime=session_lifetime,
    )


@pytest.fixture
def database(app: Any) -> Database:
    found: Database = app.state.database
    return found


def pay(client: Any, kind: str, pence: int, key: str) -> Any:
    return client.post(
        f"/api/wallet/{kind}", json={"amount_pence": pence}, headers={"Idempotency-Key": key}
    )


def set_limits(client: Any, **pence: int | None) -> Any:
    answer = client.post("/api/protection/deposit-limits", json={**LIMITS_NONE, **pence})
    assert answer.status_code == 200, answer.text
    return {limit["period"]: limit for limit in answer.json()["deposit_limits"]}


def test_deposit_limits_with_their_cooling_off(player: Any, server_clock: ServerClock) -> None:
    assert_problem(pay(player, "deposits", 1000, "d0"), 409, "deposit_limits_unanswered")
    limits = set_limits(player, daily_pence=2000)
    assert limits["daily"]["amount_pence"] == 2000 and limits["weekly"]["amount_pence"] is None
    first = pay(player, "deposits", 1500, "d1")
    assert first.status_code == 201, first.text
    assert pay(player, "deposits", 1500, "d1").json() == first.json()  # the same key: once
    other = assert_problem(pay(player, "deposits", 400, "d1"), 422, "invalid_request")
    assert other["errors"][0]["field"] == "Idempotency-Key" and "1500 pence" in other["detail"]
    refused = assert_problem(pay(player, "deposits", 1000, "d2"), 409, "deposit_limit_exceeded")
    assert refused["limit"] == {"period": "daily", "amount_pence": 2000}
    assert refused["deposited_pence"] == 1500
    made_at = dt.datetime.fromisoformat(first.json()["created_at"])
    assert dt.datetime.fromisoformat(refused["resets_at"]) == made_at + dt.timedelta(days=1)
    shown = player.get("/api/protection").json()["deposit_limits"][0]
    assert (shown["deposited_pence"], shown["remaining_pence"]) == (1500, 500)
    # Raising it waits 24 hours and the player's confirmation.
    pending = set_limits(player, daily_pence=5000)["daily"]
    assert (pending["amount_pence"], pending["pending"], pending["requested_pence"]) == (
        2000,
        True,
        5000,
    )
    early = assert_problem(
        player.post("/api/protection/deposit-limits/daily/confirm", json={}),
        409,
        "limit_change_not_due",
    )
    assert early["confirmable_at"] == pending["confirmable_at"].replace("+00:00", "Z")
    server_clock.forward(hours=12)
    assert_problem(
        player.post("/api/protection/deposit-limits/daily/confirm", json={}),
        409,
        "limit_change_not_due",
    )
    assert_problem(pay(player, "deposits", 1000, "d3"), 409, "deposit_limit_exceeded")
    server_clock.forward(hours=12, seconds=1)
    confirmed = player.post("/api/protection/deposit-limits/daily/confirm", json={})
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["deposit_limits"][0]["amount_pence"] == 5000
    assert pay(player, "deposits", 3000, "d4").status_code == 201
    assert_problem(
        player.post("/api/protection/deposit-limits/weekly/confirm", json={}),
        409,
        "no_pending_limit_change",
    )
    assert player.get("/api/wallet").json()["balance_pence"] == 4500


def test_a_decrease_applies_at_once_over_http(player: Any) -> None:
    set_limits(player, weekly_pence=10_000, monthly_pence=20_000)
    lower = set_limits(player, weekly_pence=3000, monthly_pence=20_000)
    assert lower["weekly"]["amount_pence"] == 3000 and not lower["weekly"]["pending"]
    assert pay(player, "deposits", 3000, "a").status_code == 201
    assert_problem(pay(player, "deposits", 1, "b"), 409, "deposit_limit_exceeded")
    for body, field in (
        ({**LIMITS_NONE, "daily_pence": 0}, "daily_pence"),
        ({**LIMITS_NONE, "weekly_pence": "5"}, "weekly_pence"),
        ({"daily_pence": 5}, "weekly_pence"),
    ):
        bad = player.post("/api/protection/deposit-limits", json=body)
        assert bad.status_code == 422, bad.text
        assert field in [e["field"] for e in bad.json()["errors"]]
    # Every field wrong is named at once, a limit out of range beside a wrong type.
    everything = {"daily_pence": -1, "weekly_pence": "x", "monthly_pence": 99_999_999_999}
    bad = player.post("/api/protection/deposit-limits", json=everything)
    assert bad.status_code == 422, bad.text
    assert [e["field"] for e in bad.json()["errors"]] == [
        "daily_pence",
        "weekly_pence",
        "monthly_pence",
    ]
    assert bad.json()["errors"][0]["message"] == "a daily limit must be 1 to 10000000 pence, got -1"
    # A raise over a longer period's limit asked for with it is refused, and nothing changes.
    set_limits(player, daily_pence=1000, weekly_pence=3000, monthly_pence=20_000)
    crossed = {"daily_pence": 5000, "weekly_pence": 2000, "monthly_pence": 20_000}
    bad = player.post("/api/protection/deposit-limits", json=crossed)
    assert bad.status_code == 422, bad.text
    assert [e["field"] for e in bad.json()["errors"]] == ["daily_pence"]
    assert "more than the weekly limit of 2000 pence" in bad.json()["detail"]
    # Every problem is in the detail too, as a request's validation problems are.
    both = {"daily_pence": 3500, "weekly_pence": 4000, "monthly_pence": 2500}
    bad = player.post("/api/protection/deposit-limits", json=both)
    assert [e["field"] for e in bad.json()["errors"]] == ["daily_pence", "weekly_pence"]
    assert bad.json()["detail"] == "; ".join(
        f"{e['field']}: {e['message']}" for e in bad.json()["errors"]
    )
    kept = player.get("/api/protection").json()["deposit_limits"]
    assert [(k["period"], k["amount_pence"], k["pending"]) for k in kept] == [
        ("daily", 1000, False),
        ("weekly", 3000, False),
        ("monthly", 20_000, False),
    ]


def test_during_a_break_limits_are_lowered_not_raised_over_http(
    player: Any, server_clock: ServerClock
) -> None:
    set_limits(player, weekly_pence=5000)
    raised = set_limits(player, weekly_pence=9000)["weekly"]
    assert raised["pending"]
    taken = player.post("/api/protection/time-out", json={"days": 2, "confirm": True})
    assert taken.status_code == 201, taken.text
    weekly = taken.json()["deposit_limits"][1]
    assert (weekly["amount_pence"], weekly["pending"]) == (5000, False)  # the raise dropped
    refused = player.post("/api/protection/deposit-limits", json=LIMITS_NONE)
    body = assert_problem(refused, 403, "timed_out")
    assert "can be lowered during a break, not raised or removed" in body["detail"]
    server_clock.forward(hours=25)
    early = player.post("/api/protection/deposit-limits/weekly/confirm", json={})
    assert_problem(early, 403, "timed_out")
    assert set_limits(player, weekly_pence=3000)["weekly"]["amount_pence"] == 3000
    server_clock.forward(days=2)
    assert set_limits(player, weekly_pence=9000)["weekly"]["pending"]  # after it, as ever


def test_a_time_out_refuses_plays_and_deposits_but_not_the_play_in_progress(
    player: Any, server_clock: ServerClock, database: Database
) -> None:
    player.post("/api/protection/deposit-limits/decline", json={})
    assert pay(player, "deposits", 2000, "in").status_code == 201
    bought = buy(player).json()
    taken = player.post("/api/protection/time-out", json={"days": 1, "confirm": True})
    assert taken.status_code == 201, taken.text
    until = taken.json()["exclusion"]["ends_at"]
    assert taken.json()["exclusion"]["kind"] == "time_out"
    # The play bought before it is finished and settled.
    play_to_end(player, bought["play"]["play_number"], bought["board"])
    done = player.post(f"/api/plays/{bought['play']['play_number']}/finish", json={})
    assert done.status_code == 200, done.text
    refused = assert_problem(buy(player), 403, "timed_out")
    assert dt.datetime.fromisoformat(refused["until"]) == dt.datetime.fromisoformat(until)
    # The purchase screen's quote warns of the same refusal before Confirm.
    assert player.get("/api/plays/quote").json()["refused"] == refused
    assert_problem(pay(player, "deposits", 100, "more"), 403, "timed_out")
    assert_problem(
        player.post("/api/wallet/test-deposit", json={"amount_pence": 100}), 403, "timed_out"
    )
    out = pay(player, "withdrawals", 500, "out")
    assert out.status_code == 201 and out.json()["balance_pence"] == 1000
    assert_problem(
        pay(player, "withdrawals", 600, "out"), 422, "invalid_request", "Idempotency-Key"
    )
    assert player.get("/api/wallet").json()["balance_pence"] == 1000
    # There is no way to lift it; it ends by itself.
    server_clock.forward(hours=23, minutes=59)
    assert_problem(buy(player), 403, "timed_out")
    server_clock.forward(minutes=2)
    assert_problem(buy(player), 409, "reality_check_due")  # a day into this session
    player.post("/api/protection/reality-check/continue", json={})
    assert buy(player).status_code == 201
    kinds = [kind for kind, _ in audit_entries(database)]
    assert "time_out" in kinds and kinds.count("withdrawal") == 1


def test_a_break_must_be_confirmed(player: Any) -> None:
    for path, body in (
        ("/api/protection/time-out", {"days": 1, "confirm": False}),
        ("/api/protection/self-exclusion", {"months": 6, "confirm": False}),
    ):
        refused = assert_problem(player.post(path, json=body), 422, "confirmation_required")
        assert refused["title"] == "Confirmation required"  # not only purchases are confirmed
        assert [e["field"] for e in refused["errors"]] == ["confirm"]
        assert "cannot be undone" in refused["detail"]
    assert player.get("/api/protection").json()["exclusion"] is None


def test_a_self_exclusion_lasts_its_months(player: Any, server_clock: ServerClock) -> None:
    player.post("/api/wallet/test-deposit", json={"amount_pence": 1000})
    for body in ({"months": 5, "confirm": True}, {"months": 6, "confirm": False}, {"months": 6}):
        assert player.post("/api/protection/self-exclusion", json=body).status_code == 422
    taken = player.post("/api/protection/self-exclusion", json={"months": 6, "confirm": True})
    assert taken.status_code == 201, taken.text
    assert_problem(buy(player), 403, "self_excluded")
    server_clock.forward(days=150)
    assert_problem(buy(player), 403, "self_excluded")
    assert player.get("/api/protection").json()["exclusion"]["kind"] == "self_exclusion"
    early = player.post("/api/protection/self-exclusion/return", json={"confirm": True})
    assert_problem(early, 409, "return_not_allowed")
    server_clock.forward(days=35)
    player.post("/api/protection/reality-check/continue", json={})
    # Its term is over, but it does not end by itself (LCCP SR code 3.5.3): plays and
    # deposits wait for the player to ask to play again, and 24 hours more.
    ended = assert_problem(buy(player), 403, "self_excluded")
    assert ended["until"] is None and "ask to play again" in ended["detail"]
    more = player.post("/api/wallet/test-deposit", json={"amount_pence": 100})
    assert_problem(more, 403, "self_excluded")
    shown = player.get("/api/protection").json()["exclusion"]
    assert shown["kind"] == "self_exclusion" and shown["ended"] and shown["returns_at"] is None
    unconfirmed = player.post("/api/protection/self-exclusion/return", json={"confirm": False})
    assert_problem(unconfirmed, 422, "confirmation_required")
    asked = player.post("/api/protection/self-exclusion/return", json={"confirm": True})
    assert asked.status_code == 200, asked.text
    returns_at = asked.json()["exclusion"]["returns_at"]
    assert dt.datetime.fromisoformat(returns_at) - dt.datetime.fromisoformat(
        asked.json()["now"]
    ) == dt.timedelta(hours=24)
    server_clock.forward(hours=23, minutes=59)
    waiting = assert_problem(buy(player), 403, "self_excluded")
    assert dt.datetime.fromisoformat(waiting["until"]) == dt.datetime.fromisoformat(returns_at)
    server_clock.forward(minutes=2)
    player.post("/api/protection/reality-check/continue", json={})
    assert player.get("/api/protection").json()["exclusion"] is None
    assert buy(player).status_code == 201


def test_a_reality_check_pauses_the_next_purchase(
    player: Any, server_clock: ServerClock, database: Database
) -> None:
    player.post("/api/wallet/test-deposit", json={"amount_pence": 2000})
    first = buy(player).json()
    play_to_end(player, first["play"]["play_number"], first["board"])
    player.post(f"/api/plays/{first['play']['play_number']}/finish", json={})
    check = player.get("/api/protection/reality-check").json()
    assert (check["interval_minutes"], check["due"]) == (60, False)
    # Continuing before a check is due puts nothing off.
    server_clock.forward(minutes=59)
    early = player.post("/api/protection/reality-check/continue", json={})
    assert early.status_code == 200 and early.json()["due_at"] == check["due_at"]
    server_clock.forward(minutes=2)
    due = assert_problem(buy(player), 409, "reality_check_due")
    assert due["played_seconds"] >= 61 * 60 and due["net_pence"] == -500
    assert player.get("/api/plays/quote").json()["refused"]["code"] == "reality_check_due"
    assert player.get("/api/wallet").json()["balance_pence"] == 1500  # nothing was paid
    shown = player.get("/api/protection/reality-check").json()
    assert shown["due"] and shown["net_pence"] == -500 and shown["staked_pence"] == 500
    going_on = player.post("/api/protection/reality-check/continue", json={})
    assert going_on.status_code == 200 and not going_on.json()["due"]
    assert player.get("/api/plays/quote").json()["refused"] is None
    assert buy(player).status_code == 201
    # A shorter interval applies at once; too short is refused.
    assert (
        player.post(
            "/api/protection/reality-check/interval", json={"interval_minutes": 5}
        ).status_code
        == 422
    )
    server_clock.forward(minutes=11)
    changed = player.post("/api/protection/reality-check/interval", json={"interval_minutes": 10})
    assert changed.json()["due"] and changed.json()["interval_minutes"] == 10
    assert [k for k, _ in audit_entries(database)].count("reality_check") == 1


@pytest.mark.parametrize("idle_timeout", [dt.timedelta(minutes=30)])
def test_a_session_idle_for_30_minutes_ends(
    app: Any, new_client: Any, server_clock: ServerClock, idle_timeout: dt.timedelta
) -> None:
    active, idle = new_client(app), new_client(app)
    active.sign_up("active@example.com")
    idle.sign_up("idle@example.com")
    server_clock.forward(minutes=20)
    kept = active.post("/api/session/activity", json={})
    assert kept.status_code == 200, kept.text
    server_clock.forward(minutes=11)
    assert active.get("/api/me").status_code == 200
    assert_problem(idle.get("/api/me"), 401, "not_authenticated")
    assert_problem(idle.post("/api/session/activity", json={}), 401, "not_authenticated")
    server_clock.forward(minutes=20)
    assert_problem(active.get("/api/me"), 401, "not_authenticated")


def seconds_left(answer: Any) -> tuple[int, bool]:
    """A session answer's ``expires_in_seconds`` and ``extendable``."""
    assert answer.status_code == 200, answer.text
    body = answer.json()
    return body["expires_in_seconds"], body["extendable"]


@pytest.mark.parametrize("idle_timeout", [dt.timedelta(minutes=30)])
def test_the_session_says_how_many_seconds_it_has_left(
    player: Any, server_clock: ServerClock, idle_timeout: dt.timedelta
) -> None:
    # Counted on the server's clock (moved here), rounded down: a second may pass meanwhile.
    left, extendable = seconds_left(player.get("/api/session"))
    assert 1795 <= left <= 1800 and extendable
    server_clock.forward(minutes=25)
    left, extendable = seconds_left(player.get("/api/session"))
    assert 295 <= left <= 300 and extendable
    left, extendable = seconds_left(player.post("/api/session/activity", json={}))
    assert 1795 <= left <= 1800 and extendable
    server_clock.forward(minutes=29)
    left, _ = seconds_left(player.get("/api/session"))
    assert 55 <= left <= 60


@pytest.mark.parametrize(
    ("idle_timeout", "session_lifetime"), [(dt.timedelta(minutes=30), dt.timedelta(minutes=40))]
)
def test_the_fixed_end_of_a_session_is_not_extendable(
    player: Any,
    server_clock: ServerClock,
    idle_timeout: dt.timedelta,
    session_lifetime: dt.timedelta,
) -> None:
    server_clock.forward(minutes=20)
    left, extendable = seconds_left(player.post("/api/session/activity", json={}))
    assert 1195 <= left <= 1200 and not extendable  # 40 minutes after login, not 30 from now
    left, extendable = seconds_left(player.get("/api/session"))
    assert 1195 <= left <= 1200 and not extendable
    server_clock.forward(minutes=20)
    assert_problem(player.get("/api/session"), 401, "not_authenticated")


def test_payments_need_a_key_and_a_provider_answer(player: Any) -> None:
    player.post("/api/protection/deposit-limits/decline", json={})
    keyless = player.post("/api/wallet/deposits", json={"amount_pence": 100})
    assert_problem(keyless, 422, "invalid_request", "Idempotency-Key")
    for body in ({"amount_pence": 0}, {"amount_pence": 1_000_001}, {"amount_pence": "1"}, {}):
        assert pay_raw(player, body).status_code == 422
    assert_problem(pay(player, "withdrawals", 1, "w"), 409, "insufficient_funds")
    made = pay(player, "deposits", 2500, "k").json()
    assert made["kind"] == "deposit" and made["provider_reference"].startswith("sim-dep-")
    movements = player.get("/api/wallet").json()["movements"]
    assert [(m["kind"], m["amount_pence"]) for m in movements] == [("deposit", 2500)]


def pay_raw(client: Any, body: dict[str, Any]) -> Any:
    return client.post("/api/wallet/deposits", json=body, headers={"Idempotency-Key": "raw"})


@pytest.mark.parametrize("backend", ["sqlite"])
def test_without_a_provider_payments_are_unavailable(
    database_url: str, tmp_path: Path, new_client: Any, backend: str
) -> None:
    from colour_collector.server.app import create_app

    application = create_app(play_settings(database_url, tmp_path, payment_provider="none"))
    try:
        client = new_client(application)
        client.sign_up()
        client.post("/api/protection/deposit-limits/decline", json={})
        assert_problem(pay(client, "deposits", 100, "k"), 503, "payments_unavailable")
    finally:
        application.state.database.dispose()


def test_the_game_information_needs_no_account(client: Any) -> None:
    found = client.get("/api/game/information").json()
    assert (found["overall_odds"], found["payout_percent"]) == ("1 in 2.77", "73.50%")
    assert len(found["prizes"]) == 99
    assert found["prizes"][0] == {"name": "£5", "prize_pence": 500, "odds": 6}
    assert "There is a 1 in 2.77 overall chance of winning a Prize" in found["procedures"]
    assert "The expected prize payout percentage for this game is 73.50%." in found["procedures"]


def test_protection_needs_a_session(client: Any) -> None:
    for method, path in (
        ("GET", "/api/protection"),
        ("GET", "/api/protection/reality-check"),
        ("POST", "/api/protection/time-out"),
        ("POST", "/api/protection/self-exclusion/return"),
        ("POST", "/api/session/activity"),
    ):
        body = {"days": 1, "confirm": True} if path.endswith("time-out") else {}
        if path.endswith("return"):
            body = {"confirm": True}
        answer = client.request(method, path, json=body if method == "POST" else None)
        assert_problem(answer, 401, "not_authenticated")


def test_asking_to_return_refuses_bad_input(player: Any, database: Database) -> None:
    """The return's body is ``{"confirm": true}`` exactly; nothing else is read as a request to
    play again, and a refused one is not audited."""
    path = "/api/protection/self-exclusion/return"
    for body in ({}, {"confirm": "true"}, {"confirm": 1}, {"confirm": None}, [True]):
        assert player.post(path, json=body).status_code == 422, body
    assert player.post(path, json={"confirm": True, "months": 6}).status_code == 422
    broken = player.post(path, content=b"{", headers={"content-type": "application/json"})
    assert broken.status_code in {400, 422}, broken.text
    assert_problem(player.post(path, json={"confirm": True}), 409, "return_not_allowed")
    assert "self_exclusion_return" not in [kind for kind, _ in audit_entries(database)]
