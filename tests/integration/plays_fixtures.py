"""Helpers shared by the plays tests: scripted settings, playing a whole play over HTTP,
problem checks and money sums read straight from the database.

Plain functions (no fixtures), imported by the plays test modules.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from colour_collector.server.settings import Settings
from colour_collector.store import Database
from colour_collector.store.tables import audit_log, ledger, plays
from support import TEST_SECRET, make_settings

PROBLEM = "application/problem+json"
PRICE = 500
"""The price of a play, in pence."""
SECRET = TEST_SECRET
"""The secret key of the test servers."""


def play_settings(
    database_url: str, tmp_path: Path, outcomes: list[str | None] | None = None, **overrides: Any
) -> Settings:
    """Test settings; ``outcomes`` (tier names, None for no win) are consumed in order."""
    if outcomes is not None:
        script = tmp_path / "outcomes.json"
        script.write_text(json.dumps(outcomes), encoding="utf-8")
        overrides["outcome_script"] = script
    return make_settings(database_url, tmp_path, **overrides)


def assert_problem(response: Any, status: int, code: str, field: str | None = None) -> Any:
    """The response is an ``application/problem+json`` with this status and code."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM), response.headers
    body = response.json()
    assert body["code"] == code, body
    assert body["status"] == status
    if field is not None:
        assert field in [item["field"] for item in body["errors"]], body
    return body


def deposit(client: Any, pence: int) -> int:
    """Make a test deposit; return the balance."""
    answer = client.post("/api/wallet/test-deposit", json={"amount_pence": pence})
    assert answer.status_code == 201, answer.text
    balance: int = answer.json()["balance_pence"]
    return balance


def balance(client: Any) -> int:
    """The wallet balance as the API shows it."""
    answer = client.get("/api/wallet")
    assert answer.status_code == 200, answer.text
    found: int = answer.json()["balance_pence"]
    return found


def step_body(kind: str, pick: str = "odd") -> dict[str, Any]:
    """The body asking for the step ``kind``."""
    return {"kind": kind, "pick": pick} if kind == "bonus_pick" else {"kind": kind}


def strings_in(value: Any) -> Iterator[str]:
    """Every string (keys and values) inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def check_hidden(board: dict[str, Any]) -> None:
    """A board before the end carries no result, and no Prize Game before the Prize Game."""
    if board["next"] is not None:
        assert board["result"] is None, board
    if board["phase"] == "main":
        assert board["prize_game"] is None, board
        assert board["bonus_game"] is None, board
    spinning = board["next"] == "spin"
    assert all((square["colour"] is not None) == spinning for square in board["grid"]), board
    if board["prize_game"] is not None:
        prize_spinning = board["next"] == "prize_spin"
        assert all(
            (square["colour"] is not None) == prize_spinning
            for square in board["prize_game"]["grid"]
        ), board


def play_to_end(
    client: Any, play_number: str, board: dict[str, Any], pick: str = "odd"
) -> list[Any]:
    """Reveal every remaining step over HTTP, checking each answer; return the answers."""
    answers = []
    while board["next"] is not None:
        kind = board["next"]
        answer = client.post(f"/api/plays/{play_number}/steps", json=step_body(kind, pick))
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["step"]["kind"] == kind
        assert body["step"]["index"] == board["revealed"]
        assert body["board"]["revealed"] == board["revealed"] + 1
        check_hidden(body["board"])
        answers.append(body)
        board = body["board"]
    return answers


def buy(client: Any, key: str | None = None) -> Any:
    """POST /api/plays with the confirmation (and an Idempotency-Key when given)."""
    headers = {} if key is None else {"Idempotency-Key": key}
    return client.post("/api/plays", json={"confirm": True}, headers=headers)


def whole_play(client: Any, pick: str = "odd") -> tuple[str, dict[str, Any]]:
    """Buy, reveal everything, finish; return the Play Number and the finish answer."""
    bought = buy(client)
    assert bought.status_code == 201, bought.text
    number: str = bought.json()["play"]["play_number"]
    play_to_end(client, number, bought.json()["board"], pick)
    finished = client.post(f"/api/plays/{number}/finish", json={})
    assert finished.status_code == 200, finished.text
    return number, finished.json()


def ledger_sums(database: Database) -> dict[str, int]:
    """Sum of the ledger's amounts by movement kind, plus ``rows`` and ``plays`` counts."""
    with database.engine.connect() as connection:
        sums = {
            row.kind: int(row.total)
            for row in connection.execute(
                select(ledger.c.kind, func.sum(ledger.c.amount_pence).label("total")).group_by(
                    ledger.c.kind
                )
            )
        }
        sums["rows"] = int(
            connection.execute(select(func.count()).select_from(ledger)).scalar_one()
        )
        sums["plays"] = int(
            connection.execute(select(func.count()).select_from(plays)).scalar_one()
        )
    return sums


def running_balances_never_negative(database: Database) -> bool:
    """Whether every account's ledger, summed in insertion order, stays at 0 or above."""
    running: dict[int, int] = {}
    with database.engine.connect() as connection:
        rows = connection.execute(
            select(ledger.c.account_id, ledger.c.amount_pence).order_by(ledger.c.id)
        )
        for row in rows:
            running[row.account_id] = running.get(row.account_id, 0) + int(row.amount_pence)
            if running[row.account_id] < 0:
                return False
    return True


def audit_entries(database: Database) -> list[tuple[str, dict[str, Any]]]:
    """Every audit entry as (kind, payload), in order."""
    with database.engine.connect() as connection:
        rows = connection.execute(
            select(audit_log.c.kind, audit_log.c.payload).order_by(audit_log.c.seq)
        )
        return [(row.kind, json.loads(row.payload)) for row in rows]
