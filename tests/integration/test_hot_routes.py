"""Purchase, step and FINISH answer the same through the hot routes as through FastAPI's router.

Two apps share one database: the app as served (``HotRoutes`` in front of the three play
routes) and the same app built with ``hot_routes=False``. One player, with the same cookies on
both, sends every request to each; good requests alternate between them, so a play bought
through one is stepped through both.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from plays_fixtures import PROBLEM, buy, deposit, ledger_sums, play_settings

from colour_collector.server.app import create_app
from colour_collector.server.hot_routes import HotRoutes
from colour_collector.server.settings import Settings

Client = Any
"""conftest's Client (a TestClient that echoes the CSRF cookie), made by ``new_client``."""


@pytest.fixture
def settings(database_url: str, tmp_path: Any) -> Settings:
    # '£1,000,000' plays have Bonus Game rounds (picks) and a Prize Game.
    return play_settings(database_url, tmp_path, ["£1,000,000"] * 4)


@pytest.fixture
def plain(app: FastAPI, settings: Settings) -> Iterator[FastAPI]:
    """The same app without the hot routes, on the same database."""
    yield create_app(settings, database=app.state.database, hot_routes=False)


def twin_of(client: Client, application: FastAPI, new_client: Any) -> Client:
    """A client on ``application`` with the same cookies and CSRF header as ``client``."""
    twin = new_client(application, csrf=False)
    for name, value in client.cookies.items():
        twin.cookies.set(name, value)
    twin.headers["X-CSRF-Token"] = client.headers["X-CSRF-Token"]
    return twin


def same(first: Any, second: Any) -> Any:
    """Both answers have the same status, media type and body; the first one."""
    assert first.status_code == second.status_code, (first.text, second.text)
    assert first.headers["content-type"] == second.headers["content-type"]
    assert first.json() == second.json()
    return first


def test_the_app_as_served_has_the_hot_routes(app: FastAPI, plain: FastAPI) -> None:
    assert any(m.cls is HotRoutes for m in app.user_middleware)
    assert not any(m.cls is HotRoutes for m in plain.user_middleware)
    # Both describe the same API.
    assert app.openapi() == plain.openapi()


def test_bad_requests_answer_the_same(
    player: Client, app: FastAPI, plain: FastAPI, new_client: Any
) -> None:
    deposit(player, 2000)
    mine = buy(player).json()["play"]["play_number"]
    other = twin_of(player, plain, new_client)
    json = {"content-type": "application/json"}
    big = b'{"kind": "' + b"x" * 70_000 + b'"}'
    cases: list[tuple[str, str, bytes, dict[str, str]]] = [
        ("POST", "/api/plays", b"", json),
        ("POST", "/api/plays", b'{"confirm": ', json),
        ("POST", "/api/plays", b'{"confirm": "yes"}', json),
        ("POST", "/api/plays", b'{"confirm": true, "admin": 1}', json),
        ("POST", "/api/plays", b"[]", json),
        ("POST", "/api/plays", b'{"confirm": false}', json),
        ("POST", "/api/plays", b'{"confirm": true}', {**json, "Idempotency-Key": ""}),
        ("POST", "/api/plays", big, json),
        ("POST", "/api/plays", b'{"confirm": true}', {"content-type": "text/plain"}),
        ("POST", f"/api/plays/{mine}/steps", b'{"kind": "prize_spin"}', json),
        ("POST", f"/api/plays/{mine}/steps", b'{"kind": "spin", "pick": "odd"}', json),
        ("POST", f"/api/plays/{mine}/steps", b'{"kind": "bonus_pick"}', json),
        ("POST", f"/api/plays/{mine}/steps", b'{"kind": "jump"}', json),
        ("POST", f"/api/plays/{mine}/steps", b"\xff\xfe", json),
        ("POST", f"/api/plays/{mine}/finish", b"{}", json),
        ("POST", f"/api/plays/{mine}/finish", b'{"x": 1}', json),
        ("POST", "/api/plays/CC-0000-0000-0/steps", b'{"kind": "spin"}', json),
        ("POST", "/api/plays/" + "9" * 41 + "/steps", b'{"kind": "spin"}', json),
        ("POST", "/api/plays/%20/finish", b"{}", json),
        ("POST", "/api/plays/a/b/steps", b'{"kind": "spin"}', json),
        ("PUT", f"/api/plays/{mine}/steps", b'{"kind": "spin"}', json),
        ("GET", f"/api/plays/{mine}/finish", b"", {}),
    ]
    before = ledger_sums(app.state.database)
    for method, path, body, headers in cases:
        hot = player.request(method, path, content=body, headers=headers)
        routed = other.request(method, path, content=body, headers=headers)
        answer = same(hot, routed)
        assert 400 <= answer.status_code < 500, (method, path, answer.text)
        assert answer.headers["content-type"].startswith(PROBLEM)
    assert ledger_sums(app.state.database) == before
    # A trailing slash is left to FastAPI's router both ways, which redirects it to the
    # route: here the unfinished play comes back and nothing is bought.
    resumed = same(
        player.post("/api/plays/", json={"confirm": True}),
        other.post("/api/plays/", json={"confirm": True}),
    )
    assert resumed.json()["resumed"] is True
    assert ledger_sums(app.state.database) == before


def test_session_and_csrf_failures_answer_the_same(
    player: Client, app: FastAPI, plain: FastAPI, new_client: Any
) -> None:
    deposit(player, 2000)
    mine = buy(player).json()["play"]["play_number"]
    paths = ["/api/plays", f"/api/plays/{mine}/steps", f"/api/plays/{mine}/finish"]
    bodies = [{"confirm": True}, {"kind": "spin"}, {}]
    anonymous = [new_client(application) for application in (app, plain)]
    forged = [twin_of(player, application, new_client) for application in (app, plain)]
    for made in forged:
        made.cookies.set("cc_session", "forged-session-token")
    no_header = [twin_of(player, application, new_client) for application in (app, plain)]
    for made in no_header:
        del made.headers["X-CSRF-Token"]
    for path, body in zip(paths, bodies, strict=True):
        for pair, status in ((anonymous, 401), (forged, 401), (no_header, 403)):
            answer = same(*(made.post(path, json=body) for made in pair))
            assert answer.status_code == status, answer.text


def test_a_play_through_both_ways_in(player: Client, plain: FastAPI, new_client: Any) -> None:
    deposit(player, 2000)
    other = twin_of(player, plain, new_client)
    bought = buy(player, key="both-ways")
    assert bought.status_code == 201
    number = bought.json()["play"]["play_number"]
    # A repeated key answers the same play through either way in.
    again = same(
        player.post("/api/plays", json={"confirm": True}, headers={"Idempotency-Key": "both-ways"}),
        other.post("/api/plays", json={"confirm": True}, headers={"Idempotency-Key": "both-ways"}),
    )
    assert again.status_code == 200
    assert again.json()["play"]["play_number"] == number
    board, clients, steps = bought.json()["board"], [player, other], 0
    while board["next"] is not None:
        body: dict[str, Any] = {"kind": board["next"]}
        if board["next"] == "bonus_pick":
            body["pick"] = "even"
        answer = clients[steps % 2].post(f"/api/plays/{number}/steps", json=body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["board"]["revealed"] == steps + 1
        board, steps = answer.json()["board"], steps + 1
    # Out of order after the end, then FINISH: the same answers both ways, repeated.
    same(
        player.post(f"/api/plays/{number}/steps", json={"kind": "spin"}),
        other.post(f"/api/plays/{number}/steps", json={"kind": "spin"}),
    )
    first = other.post(f"/api/plays/{number}/finish", json={})
    assert first.status_code == 200, first.text
    same(player.post(f"/api/plays/{number}/finish", json={}), first)
    recalled = player.get(f"/api/my-games/{number}").json()
    assert len(recalled["steps"]) == steps
