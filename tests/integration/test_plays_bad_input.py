"""Bad input on every plays and Try endpoint: a 4xx problem naming the field, never a 5xx, and
nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import (
    PROBLEM,
    assert_problem,
    audit_entries,
    buy,
    deposit,
    ledger_sums,
    play_settings,
)

from colour_collector.server.settings import Settings
from colour_collector.service.play_numbers import new_play_number
from colour_collector.store import Database


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    # A Main Game spin comes first in every play; this tier has a Bonus Game and a Prize Game
    # later, and is built in a millisecond (a £1,000,000 play took up to 0.6 s a test).
    return play_settings(database_url, tmp_path, ["£16 (£6 + £10 Prize Game)"] * 3)


@pytest.fixture
def ready(player: Any, app: Any) -> dict[str, Any]:
    """A funded player with a play bought and a Try play started: every endpoint's target."""
    deposit(player, 2000)
    number = buy(player).json()["play"]["play_number"]
    try_id = player.post("/api/try", json={}).json()["try_id"]
    database: Database = app.state.database
    return {"client": player, "number": number, "try_id": try_id, "database": database}


def posts(ready: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every POST endpoint with a valid body."""
    number, try_id = ready["number"], ready["try_id"]
    return {
        "/api/plays": {"confirm": True},
        f"/api/plays/{number}/steps": {"kind": "spin"},
        f"/api/plays/{number}/finish": {},
        "/api/try": {},
        f"/api/try/{try_id}/steps": {"kind": "spin"},
        f"/api/try/{try_id}/finish": {},
    }


def test_malformed_json_everywhere(ready: dict[str, Any]) -> None:
    client = ready["client"]
    before = ledger_sums(ready["database"])
    for path in posts(ready):
        for raw in (b'{"kind": ', b"\xff\xfe", b"[1, 2", b"nul"):
            answer = client.post(path, content=raw, headers={"content-type": "application/json"})
            assert_problem(answer, 400, "invalid_request", "body")
    assert ledger_sums(ready["database"]) == before


def test_unknown_fields_and_non_objects_everywhere(ready: dict[str, Any]) -> None:
    client = ready["client"]
    for path, body in posts(ready).items():
        assert_problem(
            client.post(path, json={**body, "admin": True}), 422, "invalid_request", "admin"
        )
        for not_object in ([], "x", 5, None):
            answer = client.post(path, json=not_object)
            assert answer.status_code == 422, (path, not_object, answer.text)
            assert answer.headers["content-type"].startswith(PROBLEM)


def test_purchase_wrong_types(ready: dict[str, Any]) -> None:
    before = ledger_sums(ready["database"])
    for value in ("yes", 1, 0, None, [True], {"a": 1}, "true"):
        answer = ready["client"].post("/api/plays", json={"confirm": value})
        assert_problem(answer, 422, "invalid_request", "confirm")
    assert ledger_sums(ready["database"]) == before


STEP_BODIES = [
    ({"kind": 5}, "kind"),
    ({"kind": "SPIN"}, "kind"),
    ({"kind": "jump"}, "kind"),
    ({"kind": ["spin"]}, "kind"),
    ({}, "kind"),
    ({"kind": "bonus_pick", "pick": "three"}, "pick"),
    ({"kind": "bonus_pick", "pick": 1}, "pick"),
    ({"kind": "bonus_pick", "pick": "ODD"}, "pick"),
    ({"kind": "bonus_pick"}, "pick"),
    ({"kind": "spin", "pick": "odd"}, "pick"),
    ({"kind": "prize_spin", "pick": "even"}, "pick"),
]


def test_bad_step_bodies(ready: dict[str, Any]) -> None:
    client = ready["client"]
    for target in (f"/api/plays/{ready['number']}", f"/api/try/{ready['try_id']}"):
        for body, field in STEP_BODIES:
            answer = client.post(f"{target}/steps", json=body)
            assert_problem(answer, 422, "invalid_request", field)
        assert client.get(target).json()["board"]["revealed"] == 0  # nothing was revealed
        # A pick sent with a spin is told what to do, not pydantic's "Input should be None".
        maybe = client.post(f"{target}/steps", json={"kind": "spin", "pick": "maybe"}).json()
        assert maybe["errors"] == [
            {
                "field": "pick",
                "message": "a spin takes no pick: leave pick out (only a bonus_pick has one)",
            }
        ]


def test_huge_bodies_are_refused(ready: dict[str, Any]) -> None:
    client = ready["client"]
    before = ledger_sums(ready["database"])
    huge = b'{"confirm": true, "pad": "' + b"x" * 70_000 + b'"}'
    for path in posts(ready):
        answer = client.post(path, content=huge, headers={"content-type": "application/json"})
        assert_problem(answer, 413, "body_too_large")
    assert ledger_sums(ready["database"]) == before


def test_csrf_missing_or_wrong_everywhere(ready: dict[str, Any]) -> None:
    client = ready["client"]
    before = ledger_sums(ready["database"])
    token = client.headers.pop("X-CSRF-Token")
    for path, body in posts(ready).items():
        assert_problem(client.post(path, json=body), 403, "csrf_failed")
        wrong = {"X-CSRF-Token": token[:-2] + ("AA" if not token.endswith("AA") else "BB")}
        assert_problem(client.post(path, json=body, headers=wrong), 403, "csrf_failed")
    assert ledger_sums(ready["database"]) == before
    client.headers["X-CSRF-Token"] = token
    assert client.get(f"/api/plays/{ready['number']}").json()["board"]["revealed"] == 0


def test_not_logged_in(app: Any, new_client: Any, ready: dict[str, Any]) -> None:
    with new_client(app) as anonymous:
        for path, body in posts(ready).items():
            if path.startswith("/api/plays"):
                assert_problem(anonymous.post(path, json=body), 401, "not_authenticated")
        for path in ("/api/plays/quote", "/api/plays/current", "/api/my-games"):
            assert_problem(anonymous.get(path), 401, "not_authenticated")


def test_dead_session_changes_nothing(ready: dict[str, Any]) -> None:
    # Purchase, steps and FINISH look the session up inside their own transaction: an unknown
    # token must still be refused before anything is bought, revealed, credited or audited.
    client, database, number = ready["client"], ready["database"], ready["number"]
    before, entries = ledger_sums(database), audit_entries(database)
    real = client.cookies["cc_session"]
    for token in ("x" * 43, real[:-1] + ("A" if real[-1] != "A" else "B")):
        client.cookies.set("cc_session", token)
        client.fetch_csrf()  # anyone can have a CSRF token for any cookie: it proves nothing
        for path, body in posts(ready).items():
            if path.startswith("/api/plays"):
                assert_problem(client.post(path, json=body), 401, "not_authenticated")
        # A dead session is refused first, whatever the Play Number (one statement finds the
        # session and the play together; the session alone is looked up when it finds nothing).
        for text in (*bad_play_numbers(), "C" * 40):
            for action, body in (("steps", {"kind": "spin"}), ("finish", {})):
                answer = client.post(f"/api/plays/{text}/{action}", json=body)
                assert_problem(answer, 401, "not_authenticated")
    client.cookies.set("cc_session", real)
    client.fetch_csrf()
    assert ledger_sums(database) == before
    assert audit_entries(database) == entries
    assert client.get(f"/api/plays/{number}").json()["board"]["revealed"] == 0
    assert client.post(f"/api/plays/{number}/steps", json={"kind": "spin"}).status_code == 200


def bad_play_numbers() -> list[str]:
    good = new_play_number()
    wrong_check = good[:-1] + ("0" if good[-1] != "0" else "1")
    return [
        wrong_check,
        good.replace("CC-", "XX-"),
        good + "0",
        "CC-" + "0" * 30,
        "CC-ÅÅÅÅ-ÅÅÅÅ-Å",
        "🎰",
        "%00",
        "null",
        "-1",
        "CC-IIII-LLLL-0",
    ]


def test_bad_play_numbers_everywhere(ready: dict[str, Any]) -> None:
    client = ready["client"]
    for text in bad_play_numbers():
        answers = [
            client.get(f"/api/plays/{text}"),
            client.post(f"/api/plays/{text}/steps", json={"kind": "spin"}),
            client.post(f"/api/plays/{text}/finish", json={}),
            client.get(f"/api/my-games/{text}"),
        ]
        for answer in answers:
            assert answer.status_code in (404, 422), (text, answer.text)
            assert answer.headers["content-type"].startswith(PROBLEM)
            if answer.status_code == 404:
                assert answer.json()["code"] == "play_not_found", answer.text
    too_long = "C" * 41
    assert_problem(client.get(f"/api/plays/{too_long}"), 422, "invalid_request", "play_number")
    assert_problem(client.get(f"/api/my-games/{too_long}"), 422, "invalid_request", "play_number")


def test_my_games_bad_query(ready: dict[str, Any]) -> None:
    client = ready["client"]
    for params, field in [
        ({"page": "one"}, "page"),
        ({"page": -1}, "page"),
        ({"page": 10**30}, "page"),
        ({"per_page": 1000}, "per_page"),
        ({"per_page": "1.5"}, "per_page"),
    ]:
        assert_problem(client.get("/api/my-games", params=params), 422, "invalid_request", field)


def test_wrong_method_and_content_type(ready: dict[str, Any]) -> None:
    client = ready["client"]
    number = ready["number"]
    assert_problem(client.get(f"/api/plays/{number}/finish"), 405, "method_not_allowed")
    assert_problem(client.delete(f"/api/plays/{number}"), 405, "method_not_allowed")
    form = client.post(
        "/api/plays",
        content=b"confirm=true",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert 400 <= form.status_code < 500, form.text
    assert form.headers["content-type"].startswith(PROBLEM)
