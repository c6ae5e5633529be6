"""``colour-collector pool audit``: every sold play of a closed pool checked against its published
secret and the audit log, on SQLite and PostgreSQL. A stored record swapped for another play of
the same tier, a purchase entry whose record SHA-256 is not the stored record's (its chain
rewritten, so ``audit verify``'s chain check passes), a position left without a play: each is
named by position and Play Number, exit 1. A pool whose secret is not published, or bad
arguments: one line, exit 2."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import buy, deposit, play_settings, play_to_end
from sqlalchemy import select, text
from test_cli_pool import build, run

from colour_collector.game import codec
from colour_collector.game.generator import generate
from colour_collector.game.prize_table import load_tiers
from colour_collector.server.app import create_app
from colour_collector.server.settings import Settings
from colour_collector.service import purchase_entries
from colour_collector.service.audit import entry_hash
from colour_collector.store import Database
from colour_collector.store.tables import audit_log

COUNTS = {"£5": 2, "£10 (£10 Prize Game)": 2, "£14 (£6 + £8)": 1}
"""Winners of the pool sold: a Prize Game's picks are in its stored record, not in the play as
sold, which the audit compares."""


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return play_settings(database_url, tmp_path, draw_mode="pool")


def _sell(app: Any, new_client: Any, plays: int, *, finish: bool = True) -> list[str]:
    """Sell ``plays`` plays, one to each new player, played to the end and finished."""
    numbers = []
    for n in range(plays):
        player = new_client(app)
        player.sign_up(f"p{n}@example.com")
        deposit(player, 500)
        bought = buy(player).json()
        number = bought["play"]["play_number"]
        numbers.append(number)
        if finish:
            play_to_end(player, number, bought["board"])
            assert player.post(f"/api/plays/{number}/finish", json={}).status_code == 200
    return numbers


@pytest.fixture
def closed(
    settings: Settings, database_url: str, tmp_path: Path, new_client: Any
) -> Iterator[list[str]]:
    """Pool 1, of 8 plays, sold out, every play finished, closed: the Play Numbers by
    position."""
    pool = build(tmp_path, "pool", 8, COUNTS)
    assert run("pool", "load", str(pool), "--database-url", database_url).exit_code == 0
    app = create_app(settings)
    try:
        numbers = _sell(app, new_client, 8)
    finally:
        app.state.database.dispose()
    closing = run("pool", "close", "1", "--database-url", database_url)
    assert closing.exit_code == 0, closing.output
    yield numbers


def sql(database_url: str, *statements: tuple[str, dict[str, Any]]) -> None:
    """Run SQL as someone with the database's password would, the log's triggers dropped."""
    database = Database(database_url)
    try:
        with database.engine.begin() as connection:
            if database.is_sqlite:
                connection.execute(text("DROP TRIGGER IF EXISTS audit_log_no_update"))
                connection.execute(text("DROP TRIGGER IF EXISTS audit_log_no_delete"))
            else:
                connection.execute(text("ALTER TABLE audit_log DISABLE TRIGGER USER"))
            for statement, values in statements:
                connection.execute(text(statement), values)
    finally:
        database.dispose()


def query(database_url: str, statement: str, **values: Any) -> list[Any]:
    database = Database(database_url)
    try:
        with database.engine.connect() as connection:
            return list(connection.execute(text(statement), values))
    finally:
        database.dispose()


def audit(database_url: str, *args: str) -> Any:
    return run("pool", "audit", "1", "--database-url", database_url, *args)


def test_a_closed_pool_whose_plays_all_match_passes(database_url: str, closed: list[str]) -> None:
    done = audit(database_url)
    assert done.exit_code == 0, done.output
    assert "Checked:     8 sold plays regenerated from the published secret" in done.output
    assert "OK: every position sold holds the play the published secret gives it" in done.output
    assert "FAILED" not in done.output
    # The same on two worker processes, as one JSON object.
    answer = json.loads(audit(database_url, "--workers", "2", "--json").output)
    assert answer["ok"] is True and answer["checked"] == answer["dealt"] == 8
    assert answer["mismatches"] == [] and answer["mismatch_count"] == 0
    assert answer["engine"] == "2 worker process(es)" and answer["pool"] == 1
    # A Prize Game's stored record has its picks; the play as sold has none: they still match.
    records = query(database_url, "select record from plays where pool_id = 1")
    assert any('"pick": "' in row.record for row in records)


def _play_at(database_url: str, position: int) -> Any:
    [row] = query(
        database_url,
        "select id, play_number, tier_index, record from plays"
        " where pool_id = 1 and pool_position = :position",
        position=position,
    )
    return row


def test_a_stored_record_of_another_play_of_its_tier_is_named(
    database_url: str, closed: list[str]
) -> None:
    """A play record built by altered code, with the right tier, passes ``pool close``: the
    audit regenerates the play and finds it is not the secret's."""
    row = _play_at(database_url, 2)
    tier = None if row.tier_index is None else load_tiers()[row.tier_index]
    forged = codec.dumps(generate(tier, random.Random(2026)))
    sql(database_url, ("update plays set record = :record where id = :id",
                       {"record": forged, "id": row.id}))  # fmt: skip
    done = audit(database_url)
    assert done.exit_code == 1, done.output
    assert (
        f"FAILED: position 2 ({closed[2]}): its stored record is not the play the secret gives"
        " its position" in done.output
    )
    assert f"FAILED: position 2 ({closed[2]}): its purchase entry holds record SHA-256" in (
        done.output
    )
    assert "OK:" not in done.output and done.output.count("FAILED") == 2
    answer = json.loads(audit(database_url, "--json").output)
    assert answer["ok"] is False and answer["checked"] == 8 and answer["mismatch_count"] == 2
    assert {(m["position"], m["play_number"]) for m in answer["mismatches"]} == {(2, closed[2])}


def _rechain_from(database_url: str, payloads: dict[int, str]) -> None:
    """Give the entries of ``payloads`` (by seq) these payloads and chain every entry from the
    first of them again, head included: the chain holds together (only a signed checkpoint kept
    outside would tell)."""
    seq = min(payloads)
    database = Database(database_url)
    try:
        with database.engine.connect() as connection:
            rows = list(
                connection.execute(
                    select(audit_log).where(audit_log.c.seq >= seq).order_by(audit_log.c.seq)
                )
            )
    finally:
        database.dispose()
    prev = rows[0].prev_hash
    statements = []
    for row in rows:
        body = payloads.get(row.seq, row.payload)
        digest = entry_hash(
            seq=row.seq,
            created_at=row.created_at,
            kind=row.kind,
            account_id=row.account_id,
            payload=body,
            prev_hash=prev,
        )
        statements.append(
            (
                "update audit_log set payload = :payload, prev_hash = :prev, hash = :hash"
                " where seq = :seq",
                {"payload": body, "prev": prev, "hash": digest, "seq": row.seq},
            )
        )
        prev = digest
    statements.append(("update audit_head set hash = :hash where id = 1", {"hash": prev}))
    sql(database_url, *statements)


def test_a_purchase_entry_whose_record_sha256_is_not_the_stored_records_is_named(
    database_url: str, closed: list[str]
) -> None:
    entries = query(database_url, "select seq, payload from audit_log where kind = 'purchase'")
    seq, payload = next(
        (e.seq, json.loads(e.payload))
        for e in entries
        if json.loads(e.payload).get("play_number") == closed[5]
    )
    payload["record_sha256"] = "0" * 64
    _rechain_from(database_url, {seq: json.dumps(payload, sort_keys=True, separators=(",", ":"))})
    chain = run("audit", "verify", "--database-url", database_url)
    # ``audit verify`` finds nothing: the chain holds, and it does not compare purchase entries'
    # record SHA-256 with the plays.
    assert chain.exit_code == 0 and "chain intact" in chain.output, chain.output
    done = audit(database_url)
    assert done.exit_code == 1, done.output
    assert (
        f"FAILED: position 5 ({closed[5]}): its purchase entry holds record SHA-256 {'0' * 64},"
        " but its stored record's is" in done.output
    )
    assert done.output.count("FAILED") == 1


def test_purchase_entries_out_of_sale_order_are_named_whatever_the_batches(
    database_url: str, closed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The purchase entries of positions 2 and 5 swapped (the chain made whole again): the log
    # no longer sells the positions in order. Entries are read 5,000 at a time; the order is
    # checked entry by entry, so reading them 2 at a time finds the same.
    entries = query(
        database_url, "select seq, payload from audit_log where kind = 'purchase' order by seq"
    )
    at = {json.loads(e.payload)["position"]: e for e in entries}
    _rechain_from(database_url, {at[2].seq: at[5].payload, at[5].seq: at[2].payload})
    counts = []
    for batch in (purchase_entries.BATCH, 2):
        monkeypatch.setattr(purchase_entries, "BATCH", batch)
        done = audit(database_url)
        assert done.exit_code == 1, done.output
        for position in (2, 3, 4):  # their entries come after position 5's
            assert f"FAILED: position {position} ({closed[position]}): no purchase entry" in (
                done.output
            ), done.output
            assert f"names position {position} after the purchase entries of later positions" in (
                done.output
            ), done.output
        counts.append(done.output.count("FAILED"))
    assert counts == [6, 6]


def test_a_position_without_its_play_is_named(database_url: str, closed: list[str]) -> None:
    sql(database_url, ("update plays set pool_position = 30 where pool_id = 1"
                       " and pool_position = 4", {}))  # fmt: skip
    done = audit(database_url)
    assert done.exit_code == 1, done.output
    assert (
        "FAILED: position 4: no play holds it (audit entry" in done.output
        and f"names play {closed[4]})" in done.output
    )
    assert f"FAILED: position 30 ({closed[4]}): it holds position 30, but only 8" in done.output
    assert "Checked:     7 sold plays" in done.output


def test_a_pool_whose_secret_is_not_published_cannot_be_audited(
    settings: Settings, database_url: str, tmp_path: Path, new_client: Any
) -> None:
    pool = build(tmp_path, "pool", 3, {"£5": 1})
    assert run("pool", "load", str(pool), "--database-url", database_url).exit_code == 0
    app = create_app(settings)
    try:
        _sell(app, new_client, 3, finish=False)
    finally:
        app.state.database.dispose()
    for args in ((), ("--json",)):
        on_sale = audit(database_url, *args)
        assert on_sale.exit_code == 2, on_sale.output
        assert on_sale.output == (
            "colour-collector pool audit: pool 1's secret is not published yet: it is published"
            " once the pool is closed and every play of it is finished\n"
        )
    # Closed with its plays in progress: the sale stops, the secret stays sealed.
    assert run("pool", "close", "1", "--database-url", database_url).exit_code == 3
    sealed = audit(database_url)
    assert sealed.exit_code == 2 and "not published yet" in sealed.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("pool", "audit", "2"), "colour-collector pool audit: there is no pool 2\n"),
        (("pool", "audit", "0"), "Invalid value for 'POOL_ID'"),
        (("pool", "audit", "one"), "Invalid value for 'POOL_ID'"),
        (("pool", "audit", "1", "--workers", "0"), "Invalid value for '--workers'"),
        (("pool", "audit"), "Missing argument 'POOL_ID'"),
    ],
)
def test_bad_arguments_stop_it_in_one_line(
    database_url: str, args: tuple[str, ...], message: str
) -> None:
    done = run(*args, "--database-url", database_url)
    assert done.exit_code == 2, done.output
    assert message in done.output
