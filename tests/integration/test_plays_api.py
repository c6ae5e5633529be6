"""Purchase, reveal, finish, My Games, recall and the audit entries of plays, over HTTP.

Outcomes are chosen with the test-only outcome script, so each test knows what it plays.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import (
    PRICE,
    assert_problem,
    audit_entries,
    balance,
    buy,
    check_hidden,
    deposit,
    ledger_sums,
    play_settings,
    play_to_end,
    step_body,
    strings_in,
    whole_play,
)

from colour_collector.game.prize_table import tier_by_name
from colour_collector.server.app import create_app
from colour_collector.server.settings import Settings
from colour_collector.service import audit
from colour_collector.store import Database


@pytest.fixture
def outcomes() -> list[str | None]:
    """The outcomes purchases take, in order (override with parametrize)."""
    return [None, None, None, None]


@pytest.fixture
def settings(database_url: str, tmp_path: Path, outcomes: list[str | None]) -> Settings:
    return play_settings(database_url, tmp_path, outcomes)


@pytest.fixture
def database(app: Any) -> Database:
    found: Database = app.state.database
    return found


@pytest.fixture
def funded(player: Any) -> Any:
    """A logged-in player with £50."""
    deposit(player, 5000)
    return player


def test_quote_then_losing_play_step_by_step(funded: Any) -> None:
    quote = funded.get("/api/plays/quote")
    assert quote.status_code == 200
    assert quote.json() == {
        "price_pence": PRICE,
        "balance_pence": 5000,
        "message": "You are about to play Colour Collector for £5.00",
        "unfinished": None,
        "refused": None,
    }

    bought = buy(funded)
    assert bought.status_code == 201, bought.text
    body = bought.json()
    assert body["resumed"] is False
    assert body["balance_pence"] == 5000 - PRICE
    play, board = body["play"], body["board"]
    number = play["play_number"]
    assert play["status"] == "in_progress"
    assert play["prize_pence"] is None
    assert play["revealed"] == 0
    assert board["revealed"] == 0 and board["next"] == "spin"
    check_hidden(board)

    # FINISH before the end, and a step that is not the next one: conflicts naming the step.
    early = assert_problem(
        funded.post(f"/api/plays/{number}/finish", json={}), 409, "play_not_over"
    )
    assert early["expected"] == "spin"
    wrong = funded.post(f"/api/plays/{number}/steps", json={"kind": "prize_spin"})
    assert assert_problem(wrong, 409, "step_out_of_order")["expected"] == "spin"

    answers = play_to_end(funded, number, board)
    assert [a["step"]["index"] for a in answers] == list(range(len(answers)))
    assert answers[-1]["board"]["result"]["prize_pence"] == 0
    assert answers[-1]["board"]["result"]["tier"] is None
    # Still unfinished until FINISH: the prize stays hidden in ``play``.
    shown = funded.get(f"/api/plays/{number}").json()["play"]
    assert shown["prize_pence"] is None and shown["status"] == "in_progress"
    after = funded.post(f"/api/plays/{number}/steps", json={"kind": "spin"})
    assert assert_problem(after, 409, "step_out_of_order")["expected"] is None

    finished = funded.post(f"/api/plays/{number}/finish", json={})
    assert finished.status_code == 200, finished.text
    end = finished.json()
    assert end["prize_pence"] == 0 and end["tier"] is None
    assert end["balance_pence"] == 5000 - PRICE
    assert end["play"]["status"] == "finished" and end["play"]["play_number"] == number
    again = funded.post(f"/api/plays/{number}/finish", json={})
    assert again.status_code == 200
    assert again.json() == end
    spin = funded.post(f"/api/plays/{number}/steps", json={"kind": "spin"})
    assert_problem(spin, 409, "step_out_of_order")


WINNERS = ["£5", "£10 (£10 Prize Game)", "£20 (£20 Prize Game)", "£250", "£1,000,000"]


@pytest.mark.parametrize("outcomes", [WINNERS])
def test_winning_plays_hide_the_future_and_credit_once(funded: Any, database: Database) -> None:
    expected_balance = 5000
    for name in WINNERS:
        tier = tier_by_name(name)
        bought = buy(funded)
        assert bought.status_code == 201, bought.text
        expected_balance -= PRICE
        number = bought.json()["play"]["play_number"]
        board = bought.json()["board"]
        seen = [bought.json()]
        saw_prize_game = False
        while board["next"] is not None:
            # Nothing says what the play wins until it is over.
            assert name not in set(strings_in(seen[-1])), (name, seen[-1])
            if board["prize_game"] is not None:
                saw_prize_game = True
            assert board["prize_game"] is None or board["phase"] in {"prize", "over"}
            resumed = funded.get(f"/api/plays/{number}").json()
            assert resumed["board"] == board  # a reload shows exactly this step
            # ... and what that step did, to mark it as the step's answer did.
            last = {"step": seen[-1]["step"], "before": seen[-2]["board"]} if seen[1:] else None
            assert resumed["last"] == last
            assert resumed["play"]["prize_pence"] is None
            (answer,) = play_to_end_one(funded, number, board)
            seen.append(answer)
            board = answer["board"]
        result = board["result"]
        assert result["tier"] == name
        assert result["prize_pence"] == tier.prize_pence
        if "Prize Game" in name:
            assert saw_prize_game or board["prize_game"] is not None
            assert board["prize_game"]["over"] is True
            assert result["prize_game_pence"] > 0
            assert result["doubled"] == board["prize_game"]["doubled"]
        else:
            assert result["prize_game_pence"] == 0

        before_finish = balance(funded)
        assert before_finish == expected_balance  # nothing credited before FINISH
        end = funded.post(f"/api/plays/{number}/finish", json={}).json()
        expected_balance += tier.prize_pence
        assert end["prize_pence"] == tier.prize_pence and end["tier"] == name
        assert end["balance_pence"] == expected_balance
        assert funded.post(f"/api/plays/{number}/finish", json={}).json() == end
        assert balance(funded) == expected_balance

        recall = funded.get(f"/api/my-games/{number}").json()
        assert recall["play"]["prize_pence"] == tier.prize_pence
        assert recall["balance_before_pence"] == expected_balance - tier.prize_pence + PRICE
        assert recall["balance_after_pence"] == expected_balance
        assert len(recall["steps"]) == recall["play"]["revealed"] == len(seen) - 1
        for recalled, answered in zip(recall["steps"], seen[1:], strict=True):
            # The recall shows what was revealed, picks included (each revealed once).
            assert {**recalled, "repeated": False} == answered
        for recalled in recall["steps"]:
            step = recalled["step"]
            if step["kind"] == "bonus_pick":
                assert step["pick"] == "odd"
                assert (step["number"] % 2 == 1) == step["won"]
        assert recall["start"] == seen[0]["board"]
    prizes = sum(tier_by_name(name).prize_pence for name in WINNERS)
    sums = ledger_sums(database)
    assert sums["prize"] == prizes
    assert sums["stake"] == -PRICE * len(WINNERS)
    assert sums["plays"] == len(WINNERS)


def play_to_end_one(client: Any, number: str, board: dict[str, Any]) -> list[Any]:
    """Reveal exactly the next step."""
    answer = client.post(f"/api/plays/{number}/steps", json=step_body(board["next"]))
    assert answer.status_code == 200, answer.text
    check_hidden(answer.json()["board"])
    return [answer.json()]


@pytest.mark.parametrize("outcomes", [["£10 (£10 Prize Game)"]])
def test_prize_game_grid_appears_only_with_the_prize_game(funded: Any) -> None:
    bought = buy(funded).json()
    number, board = bought["play"]["play_number"], bought["board"]
    kinds = []
    while board["next"] is not None:
        if board["next"] != "prize_spin":
            assert board["prize_game"] is None
        else:
            assert board["prize_game"] is not None and board["prize_game"]["over"] is False
        kinds.append(board["next"])
        (answer,) = play_to_end_one(funded, number, board)
        board = answer["board"]
    assert "prize_spin" in kinds
    assert board["prize_game"]["over"] is True
    pot = board["prize_game"]["pot_pence"]
    # WIN x2 doubles the pot; either way the prize is the tier's £10.
    assert board["result"]["prize_game_pence"] == (
        pot * 2 if board["prize_game"]["doubled"] else pot
    )
    assert board["result"]["prize_pence"] == 1000


def test_resume_returns_the_unfinished_play(funded: Any) -> None:
    first = buy(funded).json()
    number = first["play"]["play_number"]
    for _ in range(2):
        step = funded.post(f"/api/plays/{number}/steps", json={"kind": "spin"})
        assert step.status_code == 200, step.text
    board = step.json()["board"]

    quote = funded.get("/api/plays/quote").json()
    assert quote["unfinished"]["play_number"] == number
    assert quote["unfinished"]["revealed"] == 2
    again = buy(funded)
    assert again.status_code == 200
    body = again.json()
    assert body["resumed"] is True
    assert body["play"]["play_number"] == number
    assert body["board"] == board
    assert body["balance_pence"] == 5000 - PRICE  # nothing debited
    current = funded.get("/api/plays/current").json()
    assert current["board"] == board and current["play"]["play_number"] == number

    play_to_end(funded, number, board)
    assert funded.post(f"/api/plays/{number}/finish", json={}).status_code == 200
    assert_problem(funded.get("/api/plays/current"), 404, "play_not_found")
    assert funded.get("/api/plays/quote").json()["unfinished"] is None


@pytest.mark.parametrize("outcomes", [[None] * 5])
def test_my_games_newest_first_paginated(funded: Any) -> None:
    numbers = [whole_play(funded)[0] for _ in range(3)]
    unfinished = buy(funded).json()["play"]["play_number"]
    numbers.append(unfinished)

    first = funded.get("/api/my-games", params={"per_page": 3}).json()
    assert first["total"] == 4 and first["page"] == 1 and first["per_page"] == 3
    assert [p["play_number"] for p in first["items"]] == numbers[::-1][:3]
    second = funded.get("/api/my-games", params={"page": 2, "per_page": 3}).json()
    assert [p["play_number"] for p in second["items"]] == numbers[:1]
    assert funded.get("/api/my-games", params={"page": 3, "per_page": 3}).json()["items"] == []
    newest = first["items"][0]
    assert newest["status"] == "in_progress" and newest["prize_pence"] is None
    oldest = second["items"][0]
    assert oldest["status"] == "finished" and oldest["prize_pence"] == 0
    assert oldest["price_pence"] == PRICE and oldest["finished_at"] is not None
    times = [p["purchased_at"] for p in first["items"] + second["items"]]
    assert times == sorted(times, reverse=True)
    for params in ({"per_page": 0}, {"per_page": 101}, {"page": 0}, {"page": "x"}):
        field = next(iter(params))
        assert_problem(funded.get("/api/my-games", params=params), 422, "invalid_request", field)


def test_insufficient_funds_changes_nothing(player: Any, database: Database) -> None:
    deposit(player, PRICE - 1)
    before = ledger_sums(database)
    entries = len(audit_entries(database))
    refused = assert_problem(buy(player, key="k-1"), 409, "insufficient_funds")
    assert refused["balance_pence"] == PRICE - 1
    assert "499" in refused["detail"]
    assert ledger_sums(database) == before
    assert len(audit_entries(database)) == entries
    assert player.get("/api/my-games").json()["total"] == 0
    assert balance(player) == PRICE - 1
    # The refused key was not used up: with money it buys.
    deposit(player, 1)
    assert buy(player, key="k-1").status_code == 201


def test_purchase_needs_confirmation(funded: Any, database: Database) -> None:
    before = ledger_sums(database)
    not_confirmed = funded.post("/api/plays", json={"confirm": False})
    assert_problem(not_confirmed, 422, "invalid_request", "confirm")  # the schema says true
    assert_problem(funded.post("/api/plays", json={}), 422, "invalid_request", "confirm")
    assert ledger_sums(database) == before


def test_idempotency_key_returns_the_same_play(funded: Any, database: Database) -> None:
    first = buy(funded, key="purchase-0001")
    assert first.status_code == 201
    number = first.json()["play"]["play_number"]
    repeat = buy(funded, key="purchase-0001")
    assert repeat.status_code == 200
    assert repeat.json()["play"]["play_number"] == number
    assert repeat.json()["resumed"] is False
    assert repeat.json()["balance_pence"] == 5000 - PRICE

    play_to_end(funded, number, first.json()["board"])
    funded.post(f"/api/plays/{number}/finish", json={})
    late = buy(funded, key="purchase-0001")  # a retry after the play was finished
    assert late.status_code == 200
    assert late.json()["play"]["play_number"] == number
    assert late.json()["play"]["status"] == "finished"
    assert ledger_sums(database)["stake"] == -PRICE

    fresh = buy(funded, key="purchase-0002")
    assert fresh.status_code == 201
    assert fresh.json()["play"]["play_number"] != number
    assert ledger_sums(database)["stake"] == -2 * PRICE


@pytest.mark.parametrize(
    "key",
    ["k" * 256, "clé".encode(), b"", b"tab\tinside"],
    ids=["long", "non-ascii", "empty", "tab"],
)
def test_bad_idempotency_key_is_refused(funded: Any, database: Database, key: Any) -> None:
    before = ledger_sums(database)
    answer = funded.post("/api/plays", json={"confirm": True}, headers={"Idempotency-Key": key})
    assert_problem(answer, 422, "invalid_request", "Idempotency-Key")
    assert ledger_sums(database) == before


def test_longest_idempotency_key_is_accepted(funded: Any) -> None:
    assert buy(funded, key="k" * 255).status_code == 201
    assert buy(funded, key="k" * 255).status_code == 200


@pytest.mark.parametrize("outcomes", [["£5"]])
def test_audit_chain_records_purchase_reveals_and_finish(funded: Any, database: Database) -> None:
    number, _ = whole_play(funded)
    recall = funded.get(f"/api/my-games/{number}").json()
    steps = len(recall["steps"])

    report = audit.verify_chain(database)
    entries = audit_entries(database)
    assert report.entries == len(entries)
    mine = [(kind, payload) for kind, payload in entries if payload.get("play_number") == number]
    assert [kind for kind, _ in mine] == ["purchase"] + ["reveal"] * steps + ["finish"]
    assert [payload["step"] for kind, payload in mine if kind == "reveal"] == list(range(steps))
    purchase, finish = mine[0][1], mine[-1][1]
    assert purchase["price_pence"] == PRICE and purchase["tier"] == "£5"
    assert finish["prize_pence"] == 500 and finish["tier"] == "£5"
    picks = [payload for kind, payload in mine if kind == "reveal" and "pick" in payload]
    for pick in picks:
        assert pick["pick"] == "odd" and isinstance(pick["number"], int)
    # The stored record's digest is the finish entry's; it equals the purchase entry's when no
    # bonus pick was filled in (picks are written into the record as they are made).
    with database() as uow:
        stored = uow.plays.get(number)
    assert stored is not None
    assert finish["record_sha256"] == hashlib.sha256(stored.record.encode()).hexdigest()
    assert (purchase["record_sha256"] == finish["record_sha256"]) == (not picks)
    assert [kind for kind, _ in entries[:3]] == ["register", "email_confirmed", "login"]


def test_audit_verify_command_after_plays(funded: Any, database_url: str) -> None:
    from typer.testing import CliRunner

    from colour_collector.cli.app import app as cli

    whole_play(funded)
    done = CliRunner().invoke(cli, ["audit", "verify", "--database-url", database_url])
    assert done.exit_code == 0, done.output
    assert done.output.startswith("OK: ")


@pytest.mark.parametrize("outcomes", [WINNERS])
def test_steps_taken_by_two_servers_in_turn_show_the_stored_play(
    funded: Any, settings: Settings, new_client: Any
) -> None:
    """Servers keep nothing between requests: steps served alternately by two apps on the same
    database (two server processes behind a load balancer) build every screen from the stored
    play."""
    other = create_app(settings)
    try:
        second = new_client(other, csrf=False)
        for name in ("cc_session", "cc_csrf"):  # the same browser: its session and CSRF token
            second.cookies.set(name, funded.cookies.get(name))
        second.headers["X-CSRF-Token"] = funded.cookies.get("cc_csrf")
        servers = (funded, second)
        for name in WINNERS:
            bought = buy(funded).json()
            number, board = bought["play"]["play_number"], bought["board"]
            seen = []
            while board["next"] is not None:
                turn = len(seen)
                pick = ("odd", "even", "even")[turn % 3]
                body = {**step_body(board["next"], pick), "step": board["revealed"]}
                answer = servers[turn % 2].post(f"/api/plays/{number}/steps", json=body)
                assert answer.status_code == 200, answer.text
                seen.append(answer.json())
                board = seen[-1]["board"]
            end = servers[len(seen) % 2].post(f"/api/plays/{number}/finish", json={}).json()
            assert end["prize_pence"] == tier_by_name(name).prize_pence
            recall = funded.get(f"/api/my-games/{number}").json()
            # What each answer showed is what was stored (each step revealed once).
            assert [{**r, "repeated": False} for r in recall["steps"]] == seen
    finally:
        other.state.database.dispose()


@pytest.mark.parametrize("outcomes", [["£6"]])
def test_a_step_names_its_index_so_a_retry_answers_the_same_step(
    funded: Any, database: Database
) -> None:
    bought = buy(funded).json()
    number, board = bought["play"]["play_number"], bought["board"]
    url = f"/api/plays/{number}/steps"
    picked = False
    while board["next"] is not None:
        index, kind = board["revealed"], board["next"]
        body = {**step_body(kind), "step": index}
        first = funded.post(url, json=body)
        assert first.status_code == 200, first.text
        entries = len(audit_entries(database))
        again = funded.post(url, json=body)  # the response was lost: the client retries
        assert again.status_code == 200, again.text
        assert again.json() == {**first.json(), "repeated": True}
        assert first.json()["repeated"] is False
        assert len(audit_entries(database)) == entries  # nothing written by the retry
        assert funded.get(f"/api/plays/{number}").json()["play"]["revealed"] == index + 1
        if kind == "bonus_pick":
            picked = True
            other = funded.post(url, json={**body, "pick": "even"})
            detail = assert_problem(other, 409, "step_out_of_order")["detail"]
            assert f"step {index} is revealed already, with the pick odd, not even" in detail
        board = first.json()["board"]
        ahead = funded.post(url, json={**step_body(board["next"] or "spin"), "step": index + 2})
        assert_problem(ahead, 409, "step_out_of_order")
        assert ahead.json()["revealed"] == index + 1
        if index >= 1:  # a stale tab two steps behind is told how far the play is
            stale = funded.post(url, json={**step_body(kind), "step": index - 1})
            assert_problem(stale, 409, "step_out_of_order")
            assert stale.json()["revealed"] == index + 1
    assert picked  # a £6 play wins its booster in a Bonus Game
    assert funded.post(f"/api/plays/{number}/finish", json={}).status_code == 200


def test_the_wrong_kind_of_the_next_step_says_how_far_the_play_is(funded: Any) -> None:
    bought = buy(funded).json()
    number, board = bought["play"]["play_number"], bought["board"]
    url = f"/api/plays/{number}/steps"
    assert board["next"] == "spin"
    wrong = funded.post(url, json={"kind": "bonus_pick", "pick": "odd", "step": 0})
    body = assert_problem(wrong, 409, "step_out_of_order")
    assert (body["expected"], body["revealed"]) == ("spin", 0)
    # Without ``step`` the answer does not claim to know what the client showed.
    assert "revealed" not in funded.post(url, json={"kind": "prize_spin"}).json()
    end = play_to_end(funded, number, board)[-1]["board"]
    assert funded.post(f"/api/plays/{number}/finish", json={}).status_code == 200
    over = funded.post(url, json={"kind": "spin", "step": end["revealed"]})
    body = assert_problem(over, 409, "step_out_of_order")
    assert (body["expected"], body["revealed"]) == (None, end["revealed"])


def test_a_step_index_must_be_a_small_whole_number(funded: Any) -> None:
    number = buy(funded).json()["play"]["play_number"]
    for bad in (-1, 10_001, "1", 1.5, True):
        answer = funded.post(f"/api/plays/{number}/steps", json={"kind": "spin", "step": bad})
        assert_problem(answer, 422, "invalid_request", "step")
