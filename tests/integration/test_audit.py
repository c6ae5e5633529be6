"""The hash-chained audit log and ``colour-collector audit verify``."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from typer.testing import CliRunner

from colour_collector.cli.app import app as cli
from colour_collector.service import audit
from colour_collector.service.models import AuditKind
from colour_collector.store import Database, upgrade_to_head
from support import sign_up


@pytest.fixture
def database(database_url: str) -> Any:
    db = Database(database_url)
    yield db
    db.dispose()


def fill(database: Database, entries: int) -> None:
    """``entries`` entries: those of signing up (registration, confirmation, login), then
    deposits' entries."""
    account, _ = sign_up(database, "a@example.com")
    with database() as uow:
        signed_up = len(uow.audit.entries())
    assert entries >= signed_up
    for n in range(entries - signed_up):
        with database() as uow:
            audit.append(uow, AuditKind.DEPOSIT, account.id, {"n": n, "note": "£5 ✓"})
            uow.commit()


def verify(url: str) -> Any:
    return CliRunner().invoke(cli, ["audit", "verify", "--database-url", url])


def without_guard(database: Database, statement: str) -> None:
    """Run raw SQL on audit_log after removing the append-only trigger, as an attacker could."""
    with database.engine.begin() as connection:
        if database.is_sqlite:
            connection.execute(text("DROP TRIGGER audit_log_no_update"))
            connection.execute(text("DROP TRIGGER audit_log_no_delete"))
        else:
            connection.execute(text("ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update"))
        connection.exec_driver_sql(statement)


def test_verify_ok_then_tampered_entry_is_named(database: Database, database_url: str) -> None:
    fill(database, 5)
    ok = verify(database_url)
    assert ok.exit_code == 0, ok.output
    assert "OK" in ok.output and "5 audit entries" in ok.output

    without_guard(database, "UPDATE audit_log SET payload = '{\"n\":99}' WHERE seq = 3")
    broken = verify(database_url)
    assert broken.exit_code == 1, broken.output
    assert "seq=3" in broken.output
    assert "altered" in broken.output
    assert "Traceback" not in broken.output


def test_removed_entry_is_named(database: Database, database_url: str) -> None:
    fill(database, 4)
    without_guard(database, "DELETE FROM audit_log WHERE seq = 2")
    broken = verify(database_url)
    assert broken.exit_code == 1
    assert "seq=2" in broken.output and "missing" in broken.output


def test_truncated_tail_is_detected(database: Database, database_url: str) -> None:
    fill(database, 4)
    without_guard(database, "DELETE FROM audit_log WHERE seq = 4")
    broken = verify(database_url)
    assert broken.exit_code == 1
    assert "seq=4" in broken.output


def test_rewritten_chain_with_recomputed_hash_is_still_caught(
    database: Database, database_url: str
) -> None:
    fill(database, 3)
    with database() as uow:
        second = uow.audit.entries(after_seq=1, limit=1)[0]
    forged = audit.entry_hash(
        seq=2, created_at=second.created_at, kind=second.kind, account_id=second.account_id,
        payload='{"n":1000}', prev_hash=second.prev_hash,
    )  # fmt: skip
    without_guard(
        database,
        f"UPDATE audit_log SET payload = '{{\"n\":1000}}', hash = '{forged}' WHERE seq = 2",
    )
    broken = verify(database_url)
    assert broken.exit_code == 1
    assert "seq=3" in broken.output and "prev_hash" in broken.output


def test_audit_log_is_append_only_in_the_database(database: Database) -> None:
    fill(database, 3)
    for statement in ("UPDATE audit_log SET kind = 'x'", "DELETE FROM audit_log"):
        with pytest.raises(DBAPIError, match="append-only"), database.engine.begin() as conn:
            conn.execute(text(statement))


def test_entry_hash_is_over_canonical_fields(database: Database) -> None:
    fill(database, 4)
    with database() as uow:
        first, second, third, fourth = uow.audit.entries()
    assert first.prev_hash == audit.GENESIS_HASH
    assert second.prev_hash == first.hash and third.prev_hash == second.hash
    assert fourth.prev_hash == third.hash
    assert json.loads(fourth.payload) == {"n": 0, "note": "£5 ✓"}
    assert second.created_at.tzinfo is not None


def test_store_chains_entries_as_entry_hash_does(database: Database) -> None:
    # The stored entry's hash must be the one entry_hash recomputes from the stored fields,
    # for awkward payloads too.
    payloads: list[dict[str, audit.JsonValue]] = [
        {},
        {"note": 'quote " backslash \\ £ ✓ \u2028', "n": -1},
        {"nested": {"b": [1, None, True], "a": "x"}},
    ]
    accounts = (None, 7, 2**31 - 1)
    with database() as uow:
        for account_id, payload in zip(accounts, payloads, strict=True):
            audit.append(uow, AuditKind.LOGIN, account_id, payload)
        uow.commit()
    with database() as uow:
        stored = list(uow.audit.entries())
    assert [entry.seq for entry in stored] == [1, 2, 3]
    assert [entry.account_id for entry in stored] == list(accounts)
    assert [json.loads(entry.payload) for entry in stored] == payloads
    assert [entry.prev_hash for entry in stored] == [audit.GENESIS_HASH] + [
        entry.hash for entry in stored[:-1]
    ]
    for entry in stored:
        assert entry.hash == audit.entry_hash(
            seq=entry.seq, created_at=entry.created_at, kind=entry.kind,
            account_id=entry.account_id, payload=entry.payload, prev_hash=entry.prev_hash,
        )  # fmt: skip
    assert audit.verify_chain(database).entries == 3


def test_concurrent_appends_make_one_unbroken_chain(database: Database) -> None:
    threads, each = 8, 25

    def appender(worker: int) -> list[int]:
        seqs = []
        for n in range(each):
            with database() as uow:
                audit.append(uow, AuditKind.DEPOSIT, None, {"w": worker, "n": n})
                seq = uow.audit.head().seq  # the head stays locked by this transaction
                if n % 5 == 4:
                    continue  # rolled back: its seq is taken again by the next append
                uow.commit()
                seqs.append(seq)
        return seqs

    with ThreadPoolExecutor(threads) as pool:
        committed = [seq for seqs in pool.map(appender, range(threads)) for seq in seqs]
    assert sorted(committed) == list(range(1, threads * each * 4 // 5 + 1))
    report = audit.verify_chain(database)
    assert report.entries == len(committed)


def test_verify_on_empty_and_missing_database(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    upgrade_to_head(url)
    empty = verify(url)
    assert empty.exit_code == 0 and "0 audit entries" in empty.output
    missing = verify(f"sqlite:///{tmp_path / 'nope.sqlite3'}")
    assert missing.exit_code == 2
    assert "no database file" in missing.output
    assert not (tmp_path / "nope.sqlite3").exists()
