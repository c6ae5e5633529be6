"""PostgreSQL: statements batched into as few round trips as a transaction needs, and the
connections a Database keeps between units of work (store/batch.py, store/database.py)."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, ClassVar

import psycopg2
import psycopg2.errors
import psycopg2.extensions
import pytest
from sqlalchemy import bindparam, func, insert, select, text, update
from sqlalchemy.exc import DBAPIError, IntegrityError, PendingRollbackError

from colour_collector.service import accounts, audit
from colour_collector.service.models import AuditKind, MovementKind
from colour_collector.service.play_models import StoredPlay
from colour_collector.store import Database, upgrade_to_head
from colour_collector.store import database as database_module
from colour_collector.store.prepared import Prepared
from colour_collector.store.tables import UtcDateTime, plays

pytestmark = pytest.mark.postgres

WHEN = dt.datetime(2026, 12, 2, 14, 7, 15, 123456, tzinfo=dt.UTC)
NUMBER = "CC-AAAA-AAAA-A"
_COPY = insert(plays).from_select(
    [c.name for c in plays.c if c.name != "id"],
    select(*[c for c in plays.c if c.name != "id"]).where(plays.c.id == bindparam("id")),
)
CLASH = Prepared(_COPY)
"""Inserts a copy of a play: its Play Number clashes."""
CLASH_RETURNING = Prepared(_COPY.returning(plays.c.id))
"""The same, returning the new id (so it is read, not queued)."""


class CountingCursor(psycopg2.extensions.cursor):  # type: ignore[misc]
    """Counts queries sent: each ``execute`` is one round trip to the server."""

    sent: ClassVar[list[bytes | str]] = []

    def execute(self, query: Any, params: Any = None) -> Any:
        CountingCursor.sent.append(query)
        return super().execute(query, params)


@pytest.fixture
def backend() -> str:
    return "postgresql"


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    upgrade_to_head(database_url)
    db = Database(database_url, connect_args={"cursor_factory": CountingCursor})
    yield db
    db.dispose()


@pytest.fixture
def play_id(database: Database) -> int:
    account = accounts.register(
        database, email="p@example.com", password="a long enough password",
        date_of_birth=dt.date(1980, 1, 1),
    )  # fmt: skip
    values = {
        "play_number": NUMBER, "account_id": account.id, "status": "in_progress",
        "record": "{}", "revealed": 0, "steps": 7, "tier_index": None, "prize_pence": 0,
        "price_pence": 500, "idempotency_key": None, "balance_before_pence": 1000,
        "balance_after_pence": None, "purchased_at": WHEN,
        "finish_by": WHEN + dt.timedelta(days=1), "finished_at": None,
    }  # fmt: skip
    with database.unit_of_work() as uow:
        new_id: int = uow.connection.execute(
            insert(plays).values(values).returning(plays.c.id)
        ).scalar_one()
        uow.commit()
    return new_id


def _revealed(database: Database) -> int:
    with database.unit_of_work(write=False) as uow:
        play = uow.plays.get(NUMBER)
    assert play is not None
    return play.revealed


def _step(database: Database, play_id: int, revealed: int) -> None:
    """What a step does to the store: lock the play, move its counter, append, commit."""
    with database.unit_of_work() as uow:
        assert uow.plays.get(NUMBER, lock=True) is not None
        uow.plays.advance(play_id, revealed)
        audit.append(uow, AuditKind.REVEAL, None, {"step": revealed})
        uow.commit()


def _sent() -> list[str]:
    return [q.decode() if isinstance(q, bytes) else q for q in CountingCursor.sent]


def test_a_step_is_two_round_trips(database: Database, play_id: int) -> None:
    CountingCursor.sent.clear()
    _step(database, play_id, 1)  # prepares its statements, in the same queries
    first = _sent()
    assert "PREPARE" in first[-2] and "FOR UPDATE" in first[-2]
    assert "PREPARE" in first[-1] and first[-1].endswith("COMMIT")
    CountingCursor.sent.clear()
    _step(database, play_id, 2)  # the connection was kept, and was just used: no ping
    sent = _sent()
    assert len(sent) == 2, sent
    assert sent[0].startswith("BEGIN;\nEXECUTE cc_")
    assert sent[1].startswith("EXECUTE cc_") and sent[1].endswith("COMMIT")
    assert sent[1].count("EXECUTE") == 2  # the play's update and the audit append
    assert "PREPARE" not in "".join(sent)
    assert _revealed(database) == 2
    assert audit.verify_chain(database).entries == 3  # the registration and two steps


def test_a_unit_that_sent_nothing_costs_no_round_trip(database: Database, play_id: int) -> None:
    _step(database, play_id, 1)
    CountingCursor.sent.clear()
    with database.unit_of_work() as uow:
        uow.plays.advance(play_id, 5)  # queued, never sent: nothing to roll back
    assert CountingCursor.sent == []
    with database.unit_of_work() as uow:
        uow.commit()  # nothing read or written: nothing to commit
    assert CountingCursor.sent == []
    assert _revealed(database) == 1


def test_an_error_of_a_queued_statement_fails_the_commit(database: Database, play_id: int) -> None:
    _step(database, play_id, 1)  # its statements are prepared on the connection
    with database.unit_of_work() as uow:
        uow.plays.advance(play_id, 4)
        CLASH.send(uow.connection, {"id": play_id})  # the same Play Number again: queued
        with pytest.raises(IntegrityError, match="play_number"):
            uow.commit()
    assert _revealed(database) == 1  # the update queued before it was not committed either
    # Which statements of the failed query ran is not known: they are prepared again, under
    # new names, and the connection went back clean and is used again.
    CountingCursor.sent.clear()
    _step(database, play_id, 2)
    assert "PREPARE cc_" in "".join(_sent()) and "_1 (" in "".join(_sent())
    assert _revealed(database) == 2


def test_a_statement_of_sqlalchemy_sees_the_queued_ones(database: Database, play_id: int) -> None:
    with database.unit_of_work() as uow:
        uow.plays.advance(play_id, 3)
        seen = uow.connection.execute(
            select(plays.c.revealed).where(plays.c.id == play_id)
        ).scalar_one()
        uow.plays.advance(play_id, 4)
        uow.commit()
    assert seen == 3
    assert _revealed(database) == 4


def test_a_rollback_after_sending_undoes_everything(database: Database, play_id: int) -> None:
    with database.unit_of_work() as uow:
        uow.plays.advance(play_id, 6)
        assert uow.plays.get(NUMBER, lock=True) is not None  # sends the update
    assert _revealed(database) == 0
    with database.engine.connect() as connection:  # no transaction left open on the server
        idle = connection.execute(
            text("SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'")
        ).scalar_one()
    assert idle == 0


def _close_server_side(database: Database) -> None:
    """Close every connection of ``database``'s database from the server's side."""
    with database.engine.connect() as connection:
        connection.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        )
    database._idle.clear()  # the admin connection above is kept too; the others stay


def test_a_kept_connection_idle_for_a_while_is_pinged_first(
    database: Database, play_id: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    _step(database, play_id, 1)
    kept = list(database._idle)
    _close_server_side(database)
    database._idle[:] = kept
    monkeypatch.setattr(database_module, "PING_AFTER_IDLE_S", 0.0)
    _step(database, play_id, 2)  # the ping finds it closed; a new connection does the step
    assert _revealed(database) == 2


def test_a_kept_connection_closed_under_load_fails_once(database: Database, play_id: int) -> None:
    _step(database, play_id, 1)
    kept = list(database._idle)
    _close_server_side(database)
    database._idle[:] = kept
    with pytest.raises(DBAPIError) as failed:
        _step(database, play_id, 2)  # used again at once, so not pinged: the step fails...
    assert failed.value.connection_invalidated
    assert _revealed(database) == 1  # ...and wrote nothing
    _step(database, play_id, 2)  # ...and it was not kept: the next one works
    assert _revealed(database) == 2


def test_a_lost_connection_answers_503_and_the_retry_works(client: Any) -> None:
    from plays_fixtures import assert_problem, buy, deposit

    client.fetch_csrf()
    client.sign_up()
    deposit(client, 1000)
    number = buy(client, key="k1").json()["play"]["play_number"]
    database: Database = client.app.state.database
    kept = list(database._idle)
    _close_server_side(database)
    database._idle[:] = kept
    lost = client.post(f"/api/plays/{number}/steps", json={"kind": "spin"})
    body = assert_problem(lost, 503, "unavailable")
    assert "connection to the database was lost" in body["detail"]
    assert lost.headers["retry-after"] == "1"
    retried = client.post(f"/api/plays/{number}/steps", json={"kind": "spin"})
    assert retried.status_code == 200, retried.text
    assert retried.json()["step"]["index"] == 0  # the lost step changed nothing


def test_a_statement_queued_and_rolled_back_is_prepared_when_next_used(
    database: Database, play_id: int
) -> None:
    with database.unit_of_work() as uow:
        assert uow.plays.get(NUMBER, lock=True) is not None  # sent: the rollback is sent too
        uow.plays.advance(play_id, 6)  # its first use on the connection: PREPARE is queued
    _step(database, play_id, 1)  # so it was never prepared, and is prepared now
    assert _revealed(database) == 1


def test_a_failed_first_query_is_rolled_back(database: Database, play_id: int) -> None:
    with database.unit_of_work() as uow, pytest.raises(IntegrityError):
        CLASH_RETURNING.scalar(uow.connection, {"id": play_id})  # BEGIN ran, then the insert failed
    with database.engine.connect() as connection:
        stuck = connection.execute(
            text("SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'")
        ).scalar_one()
    assert stuck == 0
    _step(database, play_id, 1)  # the kept connection is clean
    assert _revealed(database) == 1


def test_a_transaction_whose_query_failed_cannot_commit(database: Database, play_id: int) -> None:
    with database.unit_of_work() as uow:
        uow.plays.advance(play_id, 5)
        assert uow.plays.get(NUMBER, lock=True) is not None  # the advance is sent
        CLASH.send(uow.connection, {"id": play_id})
        with pytest.raises(IntegrityError):
            uow.plays.get(NUMBER)  # the queued clash fails here...
        with pytest.raises(PendingRollbackError):
            uow.plays.get(NUMBER)  # ...nothing more runs in this transaction...
        with pytest.raises(PendingRollbackError):
            uow.commit()  # ...and it does not commit, even if the error was swallowed
    assert _revealed(database) == 0


def test_after_a_parse_error_nothing_runs_outside_a_transaction(
    database: Database, play_id: int
) -> None:
    broken = Prepared(text("SELEC 1"))  # not even BEGIN runs: the query does not parse
    with database.unit_of_work() as uow:
        with pytest.raises(DBAPIError):
            broken.first(uow.connection, {})
        with pytest.raises(PendingRollbackError):
            uow.plays.advance(play_id, 7)  # refused, instead of running without BEGIN
        with pytest.raises(PendingRollbackError):
            uow.plays.get(NUMBER)
        with pytest.raises(PendingRollbackError):
            uow.connection.execute(select(plays.c.id))  # SQLAlchemy's own statements too
    assert _revealed(database) == 0


def test_a_commit_on_a_lost_connection_raises(database: Database, play_id: int) -> None:
    with database.unit_of_work() as uow:
        uow.plays.advance(play_id, 9)
        uow.connection.invalidate()
        with pytest.raises(DBAPIError) as lost:
            uow.commit()
    assert lost.value.connection_invalidated
    assert _revealed(database) == 0


def test_failed_queries_leave_no_prepared_statements_behind(
    database: Database, play_id: int
) -> None:
    def prepared_here() -> list[str]:
        with database.unit_of_work() as uow:
            names: list[str] = list(
                uow.connection.execute(text("SELECT name FROM pg_prepared_statements")).scalars()
            )
        return names

    _step(database, play_id, 1)
    before = len(prepared_here())
    for _ in range(3):
        with database.unit_of_work() as uow:
            uow.plays.advance(play_id, 4)
            CLASH.send(uow.connection, {"id": play_id})
            with pytest.raises(IntegrityError):
                uow.commit()
        _step(database, play_id, 1)
    assert len(prepared_here()) <= before  # dropped after each failure, prepared again once


def test_a_queued_error_is_not_taken_for_a_play_clash(database: Database, play_id: int) -> None:
    with database.unit_of_work() as uow:
        play = uow.plays.get(NUMBER)
        assert play is not None
        uow.ledger.add_later(
            account_id=play.account_id + 1000, amount_pence=-500, kind=MovementKind.STAKE,
            reference=None, created_at=WHEN,
        )  # fmt: skip  # no such account: fails when sent, with the insert below
        with pytest.raises(IntegrityError, match="ledger"):
            uow.plays.add(replace(play, play_number="CC-BBBB-BBBB-B"))


def _kept(database: Database) -> StoredPlay:
    """The play as a server process keeps it, with a live session of its owner ("live")."""
    with database.unit_of_work() as uow:
        play = uow.plays.get(NUMBER)
        assert play is not None
        uow.sessions.add(
            token_hash="live", account_id=play.account_id, created_at=WHEN,
            expires_at=WHEN + dt.timedelta(hours=1),
        )  # fmt: skip
        uow.commit()
    return play


def _kept_step(database: Database, play: StoredPlay) -> bool:
    entry = audit.new_entry(AuditKind.REVEAL, play.account_id, {"step": play.revealed}, now=WHEN)
    with database.unit_of_work() as uow:
        written = uow.plays.advance_kept(
            play, token_hash="live", now=WHEN, record=None, entry=entry
        )
        uow.commit()
    return written


def test_a_step_from_the_kept_play_is_one_round_trip(database: Database, play_id: int) -> None:
    play = _kept(database)
    CountingCursor.sent.clear()
    assert _kept_step(database, play)  # prepares its statement, in the same query
    first = _sent()
    assert len(first) == 1 and first[0].startswith("PREPARE cc_"), first
    CountingCursor.sent.clear()
    assert _kept_step(database, replace(play, revealed=1))
    sent = _sent()
    # No BEGIN or COMMIT: PostgreSQL runs the one statement as its own transaction.
    assert len(sent) == 1 and sent[0].startswith("EXECUTE cc_") and ";" not in sent[0], sent
    assert _revealed(database) == 2
    assert audit.verify_chain(database).entries == 3  # the registration and two steps
    with database.engine.connect() as connection:
        stuck = connection.execute(
            text("SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'")
        ).scalar_one()
    assert stuck == 0
    CountingCursor.sent.clear()
    assert not _kept_step(database, play)  # kept at 0, stored at 2: nothing written
    assert len(_sent()) == 1
    assert _revealed(database) == 2
    assert audit.verify_chain(database).entries == 3


def test_a_statement_run_alone_is_the_whole_transaction(database: Database, play_id: int) -> None:
    with database.unit_of_work() as uow:
        uow.plays.advance(play_id, 5)  # queued
        with pytest.raises(RuntimeError, match="first statement"):
            _ADVANCE_ALONE.first_alone(uow.connection, {"id": play_id})
    with database.unit_of_work() as uow:
        assert _ADVANCE_ALONE.first_alone(uow.connection, {"id": play_id}) is not None
        with pytest.raises(PendingRollbackError, match="already committed"):
            uow.plays.get(NUMBER)  # it would run outside any transaction
        uow.rollback()  # cannot undo it: PostgreSQL committed it with the statement
    assert _revealed(database) == 1


def test_a_failed_statement_run_alone_leaves_the_connection_clean(
    database: Database, play_id: int
) -> None:
    with database.unit_of_work() as uow, pytest.raises(IntegrityError):
        CLASH_RETURNING.first_alone(uow.connection, {"id": play_id})
    _step(database, play_id, 1)  # the kept connection works, its statements prepared again
    assert _revealed(database) == 1
    with database.unit_of_work() as uow:
        count = uow.connection.execute(select(func.count()).select_from(plays)).scalar_one()
    assert count == 1


_ADVANCE_ALONE = Prepared(
    update(plays)
    .where(plays.c.id == bindparam("id"))
    .values(revealed=plays.c.revealed + 1)
    .returning(plays.c.revealed)
)


def test_a_kept_step_locks_the_play_before_the_chain_head(
    database: Database, play_id: int, database_url: str
) -> None:
    """The one-statement step locks the play's row, then the audit chain's head, like every
    other writer (no deadlock between them); one that finds the play moved on locks nothing."""
    play = _kept(database)
    dsn = database_url.replace("postgresql+psycopg2://", "postgresql://")
    holder, probe = psycopg2.connect(dsn), psycopg2.connect(dsn)
    try:
        with holder.cursor() as cursor:  # another writer holds the chain's head
            cursor.execute("SELECT seq FROM audit_head WHERE id = 1 FOR UPDATE")
        with ThreadPoolExecutor(1) as pool:
            missed = pool.submit(_kept_step, database, replace(play, revealed=3))
            assert missed.result(timeout=10) is False  # did not wait for the head
            written = pool.submit(_kept_step, database, play)
            for _ in range(100):  # until it waits for the head
                if not written.done() and _waiting_for_a_lock(probe) > 0:
                    break
                time.sleep(0.05)
            with probe.cursor() as cursor, pytest.raises(psycopg2.errors.LockNotAvailable):
                cursor.execute("SELECT 1 FROM plays WHERE id = %s FOR UPDATE NOWAIT", (play_id,))
            probe.rollback()
            assert not written.done()
            holder.rollback()  # the head is free: the step goes on
            assert written.result(timeout=10) is True
    finally:
        holder.close()
        probe.close()
    assert _revealed(database) == 1
    assert audit.verify_chain(database).entries == 2


def _waiting_for_a_lock(connection: Any) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
        (count,) = cursor.fetchone()
    connection.rollback()
    return int(count)


def test_a_statement_to_run_alone_that_fails_before_it_is_sent_ends_the_transaction(
    database: Database, play_id: int
) -> None:
    naive = Prepared(
        select(plays.c.id).where(plays.c.purchased_at < bindparam("at", type_=UtcDateTime()))
    )
    with database.unit_of_work() as uow:
        with pytest.raises(ValueError, match="naive"):
            naive.first_alone(uow.connection, {"at": dt.datetime(2026, 1, 1)})  # refused at bind
        with pytest.raises(PendingRollbackError):
            uow.plays.advance(play_id, 4)  # not run without BEGIN, nor queued to be dropped
        with pytest.raises(PendingRollbackError):
            uow.commit()
    _step(database, play_id, 1)
    assert _revealed(database) == 1


def test_a_statement_run_alone_outside_a_unit_of_work_commits(
    database: Database, play_id: int
) -> None:
    with database.engine.connect() as connection:
        assert _ADVANCE_ALONE.first_alone(connection, {"id": play_id}) is not None
        assert not connection.connection.driver_connection.info.transaction_status  # idle
    assert _revealed(database) == 1
