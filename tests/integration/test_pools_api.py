"""Prize pools over HTTP, on SQLite and PostgreSQL: the pool on sale and its top prizes, plays
sold in order showing their pool and position, the roll to the next pool, sold out, and a closed
pool's secret and regenerated plays."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import (
    SECRET,
    assert_problem,
    audit_entries,
    balance,
    buy,
    deposit,
    play_settings,
    play_to_end,
    step_body,
)
from sqlalchemy import update
from test_console_api import game_figures
from test_openapi import validator_for

from colour_collector.server.app import create_app
from colour_collector.server.problems import DAMAGED_ROW_DETAIL
from colour_collector.server.settings import Settings
from colour_collector.service import operators, pools
from colour_collector.service.accounts import Passwords
from colour_collector.service.pool_views import FIGURES_MIN_OPEN
from colour_collector.service.protection_models import OperatorRole
from colour_collector.store import Database
from colour_collector.store.tables import pools as pool_table
from pool_support import small_pool
from support import SmtpServer, production_required

KEY = pools.seal_key(SECRET)
PASSWORDS = Passwords(time_cost=1, memory_kib=8, parallelism=1)


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return play_settings(database_url, tmp_path, draw_mode="pool")


@pytest.fixture
def database(app: Any) -> Database:
    found: Database = app.state.database
    return found


def buyer(app: Any, new_client: Any, n: int) -> Any:
    client = new_client(app)
    client.sign_up(f"buyer{n}@example.com")
    deposit(client, 500)
    return client


def test_nothing_is_on_sale_before_a_pool_is_loaded(app: Any, new_client: Any) -> None:
    client = buyer(app, new_client, 0)
    assert client.get("/api/pools/current").json() == {"pool": None, "queued": 0}
    assert client.get("/api/pools").json() == {"items": []}
    # The purchase screen warns of it before Confirm, with the purchase's own answer.
    quoted = client.get("/api/plays/quote").json()["refused"]
    body = assert_problem(buy(client), 503, "sold_out")
    assert quoted == body
    assert "sold out" in body["detail"]
    assert balance(client) == 500


def test_pools_sell_in_order_and_each_play_shows_its_pool_and_position(
    app: Any, database: Database, new_client: Any
) -> None:
    first, second = small_pool(6, {"£5": 2, "£2,000": 1}), small_pool(4, {"£1,000,000": 1})
    pools.load(database, first, KEY, published_only=False)
    pools.load(database, second, KEY, published_only=False)
    anyone = new_client(app)
    current = anyone.get("/api/pools/current").json()
    assert current["queued"] == 1
    shown = current["pool"]
    assert shown["id"] == 1 and shown["status"] == "on_sale"
    assert shown["commitment"] == first.commitment and shown["secret"] is None
    assert (shown["size"], shown["dealt"], shown["left"]) == (6, 0, 6)
    # Six plays open: how many top prizes are left would tell something of the next ones.
    assert shown["top_prizes"] == [
        {"tier": "£2,000", "prize_pence": 200_000, "total": 1, "left": None}
    ]
    assert shown["parameters"] == first.parameters.text
    assert shown["published_structure"] is False
    sold, bought_from_second = [], []
    for n in range(10):
        client = buyer(app, new_client, n)
        bought = buy(client)
        assert bought.status_code == 201, bought.text
        play = bought.json()["play"]
        sold.append((play["pool_id"], play["pool_position"]))
        if play["pool_id"] == 2:
            bought_from_second.append((client, bought.json()))
        listed = client.get("/api/my-games").json()["items"][0]
        assert (listed["pool_id"], listed["pool_position"]) == sold[-1]
        if n == 5:
            now = anyone.get("/api/pools/current").json()
            assert now["pool"]["id"] == 2 and now["queued"] == 0  # the next pool is on sale
    assert sold == [(1, k) for k in range(6)] + [(2, k) for k in range(4)]
    late = buyer(app, new_client, 99)
    assert_problem(buy(late), 503, "sold_out")
    assert balance(late) == 500
    assert anyone.get("/api/pools/current").json() == {"pool": None, "queued": 0}
    listed = anyone.get("/api/pools").json()["items"]
    assert [(p["id"], p["status"], p["left"]) for p in listed] == [
        (2, "sold_out", 0),
        (1, "sold_out", 0),
    ]
    # The £1,000,000 was bought, but no one has seen it yet: it is won when its play finishes,
    # and with a few plays open (none left to sell) the figure would tell their holders: none.
    assert listed[0]["top_prizes"][0]["left"] is None
    for client, bought in bought_from_second:
        number = bought["play"]["play_number"]
        play_to_end(client, number, bought["board"])
        assert client.post(f"/api/plays/{number}/finish", json={}).status_code == 200
    listed = anyone.get("/api/pools").json()["items"]
    assert listed[0]["top_prizes"][0]["left"] == 0


def console_game(
    app: Any, new_client: Any, database: Database, https: bool = False, name: str = "manager"
) -> Any:
    """The console's front page, read by a new manager."""
    operators.add(database, PASSWORDS, name=name, password=SECRET, role=OperatorRole.MANAGER)
    client = new_client(app, https=https)
    answer = client.post("/api/operator/login", json={"name": name, "password": SECRET})
    assert answer.status_code == 200, answer.text
    game = client.get("/api/operator/game")
    assert game.status_code == 200, game.text
    return game.json()


def test_the_console_says_why_no_play_is_sold_from_a_pool(
    app: Any, database: Database, new_client: Any
) -> None:
    pools.load(
        database, small_pool(6, {"£5": 2}), pools.seal_key("an old key"), published_only=False
    )
    problem = console_game(app, new_client, database)["pool_problem"]
    assert problem.startswith("no play can be sold: pool 1's secret cannot be unsealed")
    assert_problem(buy(buyer(app, new_client, 0)), 503, "pool_unavailable")
    # A pool queued behind it with the server's key sells when its turn comes: not told of; one
    # with another key is, before its turn.
    pools.load(database, small_pool(4, {"£5": 1}), KEY, published_only=False)
    pools.load(database, small_pool(5, {"£5": 1}), pools.seal_key("a third"), published_only=False)
    with database() as uow:
        assert [p.id for p in uow.pools.unsold()] == [1, 2, 3]
    problem = console_game(app, new_client, database, name="second")["pool_problem"]
    assert "pool 2" not in problem
    assert "; pool 3, queued, will not sell when its turn comes: pool 3's secret" in problem


def test_a_server_drawing_independently_shows_no_pool_on_sale(
    database_url: str, tmp_path: Path, new_client: Any
) -> None:
    """Pools loaded into the database of a server that draws every play independently: the
    start screen shows none on sale (its purchases are not dealt from it), the console says so."""
    app = create_app(play_settings(database_url, tmp_path))
    database = app.state.database
    try:
        pools.load(database, small_pool(6, {"£5": 2}), KEY, published_only=False)
        anyone = new_client(app)
        assert anyone.get("/api/pools/current").json() == {"pool": None, "queued": 0}
        assert anyone.get("/api/pools/1").json()["status"] == "queued"  # not on sale here
        assert [p["status"] for p in anyone.get("/api/pools").json()["items"]] == ["queued"]
        bought = buy(buyer(app, new_client, 0))
        assert bought.status_code == 201, bought.text
        assert bought.json()["play"]["pool_id"] is None
        game = console_game(app, new_client, database)
        assert game["draw_mode"] == "independent" and game["pool"] is None
        assert "draws every play independently" in game["pool_problem"]
    finally:
        database.dispose()


def test_a_production_server_tells_the_console_it_sells_no_test_pool(
    database_url: str, tmp_path: Path, new_client: Any
) -> None:
    """A pool of a test structure loaded into a production server's database: the console says
    why nothing is sold, and the public is not shown it on sale (a purchase would answer 503)."""
    with SmtpServer() as smtp:
        app = create_app(
            Settings(
                environment="production",
                secret_key=SECRET,
                database_url=database_url,
                data_dir=tmp_path / "data",
                web_dir=tmp_path / "no-web",
                draw_mode="pool",
                **production_required(smtp.port),
            )
        )
    database = app.state.database
    try:
        pools.load(database, small_pool(6, {"£5": 2}), KEY, published_only=False)
        problem = console_game(app, new_client, database, https=True)["pool_problem"]
        assert "does not have the published prize structure" in problem
        assert "pool close 1 --withdraw" in problem
        anyone = new_client(app, https=True)
        assert anyone.get("/api/pools/current").json() == {"pool": None, "queued": 0}
        assert anyone.get("/api/pools/1").json()["status"] == "queued"
        assert [p["status"] for p in anyone.get("/api/pools").json()["items"]] == ["queued"]
    finally:
        database.dispose()


def test_the_plays_left_metric_reads_0_when_no_pool_is_on_sale(
    app: Any, database: Database, new_client: Any
) -> None:
    """A scrape after the last pool sells out says 0 (an alert on 'few plays left' holds), not
    nothing."""
    anyone = new_client(app)
    assert game_figures(anyone)["colour_collector_pool_remaining"] == 0
    pools.load(database, small_pool(2, {"£5": 1}), KEY, published_only=False)
    assert game_figures(anyone)["colour_collector_pool_remaining"] == 2
    for n in range(2):
        assert buy(buyer(app, new_client, n)).status_code == 201
    assert game_figures(anyone)["colour_collector_pool_remaining"] == 0


def test_the_console_moves_with_no_prize_before_its_play_is_finished(
    app: Any, database: Database, new_client: Any
) -> None:
    """Every operator role sees the console's front page: nothing on it moves at a purchase by
    that purchase's prize (the figures are the finished plays', and a prize of the pool on sale
    is not won until its play is finished), only once the player has finished the play."""
    pools.load(database, small_pool(3, {"£2,000": 1, "£5": 1}), KEY, published_only=False)
    operators.add(database, PASSWORDS, name="vic", password=SECRET, role=OperatorRole.VIEWER)
    viewer = new_client(app)
    assert viewer.post("/api/operator/login", json={"name": "vic", "password": SECRET}).is_success

    def front_page() -> dict[str, Any]:
        answer = viewer.get("/api/operator/game")
        assert answer.status_code == 200, answer.text
        state: dict[str, Any] = answer.json()
        return state

    def outcome_figures(state: dict[str, Any]) -> Any:
        figures = state["figures"]
        lines = [(line["prize_pence"], line["plays"]["observed"]) for line in figures["prizes"]]
        left = [
            (row["prize_pence"], row["remaining"])
            for row in state["pool"]["by_prize"]
            if row["prize_pence"] in (0, 500, 200_000)
        ]
        return figures["paid_plays"], figures["paid_pence"], figures["payout"], lines, left

    before = front_page()
    assert outcome_figures(before)[4] == [(0, 1), (500, 1), (200_000, 1)]
    client = buyer(app, new_client, 0)
    bought = buy(client).json()
    during = front_page()
    assert outcome_figures(during) == outcome_figures(before)
    assert (during["figures"]["plays"], during["figures"]["in_progress"]) == (1, 1)
    assert during["pool"]["remaining"] == 2  # the sale itself is no secret
    number = bought["play"]["play_number"]
    play_to_end(client, number, bought["board"])
    assert outcome_figures(front_page()) == outcome_figures(before)  # revealed, not finished
    finished = client.post(f"/api/plays/{number}/finish", json={})
    assert finished.status_code == 200, finished.text
    prize = finished.json()["prize_pence"]
    paid_plays, paid_pence, _, lines, left = outcome_figures(front_page())
    assert left == [(amount, 0 if amount == prize else 1) for amount in (0, 500, 200_000)]
    assert dict(lines)[prize] == 1 and sum(dict(lines).values()) == 1
    assert (paid_plays, paid_pence) == ((0, 0) if prize == 0 else (1, prize))


def test_a_top_prize_counts_as_won_when_its_play_finishes(
    app: Any, database: Database, new_client: Any
) -> None:
    """The public count of top prizes left does not move when a top prize is bought, nor while
    it is revealed: only once its play is finished (as a scratchcard's when it is claimed), so
    it tells no buyer what they hold before the reveal. (A pool of more than FIGURES_MIN_OPEN
    plays: over fewer open plays the figure is withheld.)"""
    size = FIGURES_MIN_OPEN + 1  # still FIGURES_MIN_OPEN open once the play is finished
    pool = small_pool(size, {"£2,000": size})  # every play wins it
    pools.load(database, pool, KEY, published_only=False)
    anyone, client = new_client(app), buyer(app, new_client, 0)

    def left() -> int | None:
        shown = anyone.get("/api/pools/current").json()["pool"]
        listed = anyone.get("/api/pools").json()["items"][0]
        one = anyone.get("/api/pools/1").json()
        counts = {p["top_prizes"][0]["left"] for p in (shown, listed, one)}
        assert len(counts) == 1, counts
        return counts.pop()

    assert left() == size
    bought = buy(client).json()
    assert bought["play"]["pool_position"] == 0
    assert left() == size  # bought: not won yet
    number, board = bought["play"]["play_number"], bought["board"]
    while board["next"] is not None:
        answer = client.post(f"/api/plays/{number}/steps", json=step_body(board["next"], "odd"))
        assert answer.status_code == 200, answer.text
        board = answer.json()["board"]
        assert left() == size  # revealed step by step: still not won
    assert client.post(f"/api/plays/{number}/finish", json={}).status_code == 200
    assert left() == size - 1


def test_near_the_end_of_a_pool_top_prizes_left_are_withheld_while_plays_are_in_progress(
    app: Any, database: Database, new_client: Any
) -> None:
    """Sold out with one play in progress, the count of top prizes left would be that play's
    prize: every public view withholds it (null) until the play is finished."""
    pools.load(database, small_pool(1, {"£2,000": 1}), KEY, published_only=False)
    anyone, client = new_client(app), buyer(app, new_client, 0)
    bought = buy(client).json()
    views = ("/api/pools/current", "/api/pools", "/api/pools/1")
    shown = [anyone.get(path).json() for path in views]
    assert shown[0] == {"pool": None, "queued": 0}  # sold out: none on sale
    assert shown[1]["items"][0]["top_prizes"] == shown[2]["top_prizes"]
    assert shown[2]["top_prizes"] == [
        {"tier": "£2,000", "prize_pence": 200_000, "total": 1, "left": None}
    ]
    number = bought["play"]["play_number"]
    play_to_end(client, number, bought["board"])
    assert client.post(f"/api/plays/{number}/finish", json={}).status_code == 200
    assert anyone.get("/api/pools/1").json()["top_prizes"][0]["left"] == 0


def test_a_pool_closed_while_a_play_is_in_progress_keeps_its_secret_until_it_is_finished(
    app: Any, database: Database, new_client: Any
) -> None:
    """The secret tells every play of the pool: published while a play is in progress, it would
    tell that play's prize before its player sees it. So the close stops the sale at once, and
    publishes the secret only once every play of the pool is finished."""
    pool = small_pool(3, {"£1,000,000": 3})
    pools.load(database, pool, KEY, published_only=False)
    pools.load(database, small_pool(3, {"£5": 1}), KEY, published_only=False)
    client = buyer(app, new_client, 0)
    bought = buy(client).json()
    number = bought["play"]["play_number"]
    closed = pools.close(database, 1, KEY, withdraw=True)  # its play is not revealed yet
    assert closed.closed_at is not None and closed.secret is None
    assert pools.unfinished(database, 1)[0] == 1
    anyone = new_client(app)
    shown = anyone.get("/api/pools/1").json()
    assert (shown["status"], shown["secret"]) == ("closed", None)
    refused = assert_problem(anyone.get("/api/pools/1/plays/0"), 409, "pool_not_closed")
    assert "not published yet" in refused["detail"]
    assert buy(buyer(app, new_client, 1)).json()["play"]["pool_id"] == 2  # the next one sells
    assert pools.close(database, 1, KEY, withdraw=True).secret is None  # still in progress
    play_to_end(client, number, bought["board"])
    assert client.post(f"/api/plays/{number}/finish", json={}).status_code == 200
    published = pools.close(database, 1, KEY, withdraw=False)
    assert published.secret == pool.secret.hex() and published.closed_at == closed.closed_at
    assert anyone.get("/api/pools/1/plays/0").status_code == 200
    kinds = [
        (kind, p.get("secret")) for kind, p in audit_entries(database) if kind.startswith("pool_")
    ]
    assert kinds[-2:] == [
        ("pool_closed", None),
        ("pool_secret_published", pool.secret.hex()),
    ]


def test_a_closed_pool_publishes_its_secret_and_each_sold_play_checks(
    app: Any, database: Database, new_client: Any
) -> None:
    pool = small_pool(4, {"£5": 1, "£14 (£6 + £8)": 1})
    pools.load(database, pool, KEY, published_only=False)
    players = []
    for n in range(4):
        client = buyer(app, new_client, n)
        bought = buy(client).json()
        number = bought["play"]["play_number"]
        play_to_end(client, number, bought["board"], pick="even")
        assert client.post(f"/api/plays/{number}/finish", json={}).status_code == 200
        players.append((client, bought["play"]))
    anyone = new_client(app)
    assert_problem(anyone.get("/api/pools/1/plays/0"), 409, "pool_not_closed")
    # A position past the pool's end is refused as such, before and after the close.
    assert_problem(anyone.get("/api/pools/1/plays/4"), 422, "invalid_request", "position")
    pools.close(database, 1, KEY, withdraw=False)
    assert_problem(anyone.get("/api/pools/1/plays/4"), 422, "invalid_request", "position")
    published = anyone.get("/api/pools/1").json()
    assert published["status"] == "closed" and published["secret"] == pool.secret.hex()
    # Anyone can check the secret against the commitment published before the sale.
    preimage = published["parameters"].encode() + b"\n" + bytes.fromhex(published["secret"])
    assert hashlib.sha256(preimage).hexdigest() == published["commitment"]
    for client, play in players:
        recalled = client.get(f"/api/my-games/{play['play_number']}").json()
        assert recalled["play"]["pool_position"] == play["pool_position"]
        again = anyone.get(f"/api/pools/1/plays/{play['pool_position']}")
        assert again.status_code == 200, again.text
        body = again.json()
        assert body["record_sha256"] == recalled["record_sha256"]
        assert hashlib.sha256(body["record"].encode()).hexdigest() == body["record_sha256"]
        assert body["start"] == recalled["start"]
        assert body["commitment"] == pool.commitment and body["secret"] == pool.secret.hex()
    spec = anyone.get("/openapi.json").json()
    for path, address in [
        ("/api/pools/current", "/api/pools/current"),
        ("/api/pools", "/api/pools"),
        ("/api/pools/{pool_id}", "/api/pools/1"),
        ("/api/pools/{pool_id}/plays/{position}", "/api/pools/1/plays/3"),
        ("/api/my-games/{play_number}", f"/api/my-games/{players[0][1]['play_number']}"),
    ]:
        asked = players[0][0] if path.startswith("/api/my-games") else anyone
        validator_for(spec, path, "get", 200).validate(asked.get(address).json())
    assert_problem(anyone.get("/api/pools/1/plays/4"), 422, "invalid_request", "position")
    assert_problem(anyone.get("/api/pools/2"), 404, "pool_not_found")
    assert_problem(anyone.get("/api/pools/0"), 422, "invalid_request", "pool_id")
    assert_problem(anyone.get("/api/pools/x/plays/0"), 422, "invalid_request", "pool_id")


def test_a_damaged_pool_row_is_logged_and_answered_503_not_500(
    app: Any, database: Database, new_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A row edited by hand (or damaged) answered 500 with JSONDecodeError's traceback in the
    log: now the log names the row and the answer is the 503 of database trouble."""
    pools.load(database, small_pool(), KEY, published_only=False)
    client = buyer(app, new_client, 0)
    with database.engine.begin() as connection:
        connection.execute(update(pool_table).where(pool_table.c.id == 1).values(remaining="x"))
    anyone = new_client(app)
    with caplog.at_level(logging.ERROR, logger="colour_collector.server.problem_handlers"):
        for path in ("/api/pools", "/api/pools/current", "/api/pools/1", "/api/pools/1/plays/0"):
            body = assert_problem(anyone.get(path), 503, "unavailable")
            assert body["detail"] == DAMAGED_ROW_DETAIL, body  # the row is the operator's business
        assert_problem(buy(client), 503, "unavailable")
    logged = [r.getMessage() for r in caplog.records]
    assert logged and all("the database's row of pool 1 is damaged" in m for m in logged), logged
    assert not [r for r in caplog.records if r.exc_info], "no traceback: the line says it all"
    assert balance(client) == 500  # nothing debited


def test_a_pool_this_server_cannot_unseal_sells_nothing(
    app: Any, database: Database, new_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    pools.load(database, small_pool(), pools.seal_key("another server's key"), published_only=False)
    client = buyer(app, new_client, 0)
    with caplog.at_level(logging.ERROR, logger="colour_collector.service.outcomes"):
        quoted = client.get("/api/plays/quote").json()["refused"]
        assert not caplog.records  # the purchase screen asks; only a refused purchase is logged
        body = assert_problem(buy(client), 503, "pool_unavailable")
    assert quoted == body
    # The player gets a plain message; the operator's explanation goes to the server's log.
    assert body["detail"] == "the prize pool cannot be used just now; try again later"
    assert "SECRET_KEY" not in body["detail"] and "pool load" not in body["detail"]
    logged = [r.getMessage() for r in caplog.records if r.name.endswith("service.outcomes")]
    assert any("COLOUR_COLLECTOR_SECRET_KEY" in m and "pool load" in m for m in logged), logged
    assert balance(client) == 500
    # Nor is the pool said to be on sale: the start screen and the list agree with the purchase.
    assert client.get("/api/pools/current").json() == {"pool": None, "queued": 0}
    assert [p["status"] for p in client.get("/api/pools").json()["items"]] == ["queued"]
    assert client.get("/api/pools/1").json()["status"] == "queued"
