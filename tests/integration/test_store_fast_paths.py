"""The store's fast paths: prepared statements, reused SQLite connections, the schema of the
migrations against the tables, on SQLite and on PostgreSQL."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import bindparam, insert, select
from sqlalchemy.exc import IntegrityError

from colour_collector.service import accounts, audit
from colour_collector.service.models import AuditKind
from colour_collector.service.play_models import PlayStatus, StoredPlay
from colour_collector.store import Database, upgrade_to_head
from colour_collector.store.prepared import Prepared
from colour_collector.store.tables import ledger, metadata, plays

WHEN = dt.datetime(2026, 12, 2, 14, 7, 15, 123456, tzinfo=dt.UTC)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    upgrade_to_head(database_url)
    db = Database(database_url)
    yield db
    db.dispose()


@pytest.fixture
def account_id(database: Database) -> int:
    return accounts.register(
        database, email="p@example.com", password="a long enough password",
        date_of_birth=dt.date(1980, 1, 1),
    ).id  # fmt: skip


@pytest.fixture
def other(database: Database, account_id: int) -> int:
    """A second account (registered after ``account_id``)."""
    return accounts.register(
        database, email="q@example.com", password="another long password",
        date_of_birth=dt.date(1981, 2, 3),
    ).id  # fmt: skip


LIVE = WHEN + dt.timedelta(hours=1)


def _store(
    database: Database,
    plays_of: Sequence[tuple[int, str]],
    sessions_of: Sequence[tuple[str, int, dt.datetime]],
) -> None:
    """Store plays in progress ``(owner, Play Number)`` and sessions ``(token hash, owner,
    expires at)``."""
    with database.unit_of_work() as uow:
        for owner, number in plays_of:
            uow.connection.execute(insert(plays).values(_play_values(owner, number)))
        for token, owner, expires in sessions_of:
            uow.sessions.add(
                token_hash=token, account_id=owner, created_at=WHEN, expires_at=expires
            )
        uow.commit()


def _play_values(account_id: int, number: str) -> dict[str, object]:
    return {
        "play_number": number,
        "account_id": account_id,
        "status": "in_progress",
        "record": '{"x": "£5 ✓"}',
        "revealed": 0,
        "steps": 7,
        "tier_index": None,
        "prize_pence": 0,
        "price_pence": 500,
        "idempotency_key": None,
        "balance_before_pence": 1000,
        "balance_after_pence": None,
        "purchased_at": WHEN,
        "finish_by": WHEN + dt.timedelta(days=1),
        "finished_at": None,
    }


def test_migrations_build_exactly_the_tables(database: Database) -> None:
    with database.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), metadata)
    assert differences == []


def test_prepared_rows_match_connection_execute(database: Database, account_id: int) -> None:
    by_number = select(plays).where(plays.c.play_number == bindparam("n"))
    with database.unit_of_work() as uow:
        uow.connection.execute(insert(plays).values(_play_values(account_id, "CC-AAAA-AAAA-A")))
        expected = uow.connection.execute(by_number, {"n": "CC-AAAA-AAAA-A"}).one()
        found = Prepared(by_number).first(uow.connection, {"n": "CC-AAAA-AAAA-A"})
        missing = Prepared(by_number).first(uow.connection, {"n": "CC-BBBB-BBBB-B"})
    assert found is not None and missing is None
    assert tuple(found) == tuple(expected)
    assert found._fields == tuple(expected._fields)
    assert found.purchased_at == WHEN and found.purchased_at.tzinfo is not None
    assert found.record == '{"x": "£5 ✓"}'


def test_prepared_binds_convert_like_sqlalchemy(database: Database, account_id: int) -> None:
    """A datetime bound through a prepared insert reads back equal through SQLAlchemy."""
    add = Prepared(
        insert(ledger)
        .values(
            account_id=bindparam("a"),
            amount_pence=bindparam("p"),
            kind="deposit",
            reference=bindparam("r"),
            created_at=bindparam("t"),
        )
        .returning(ledger.c.id)
    )
    with database.unit_of_work() as uow:
        new_id = add.scalar(uow.connection, {"a": account_id, "p": 250, "r": None, "t": WHEN})
        row = uow.connection.execute(select(ledger).where(ledger.c.id == new_id)).one()
        uow.commit()
    assert (row.amount_pence, row.kind, row.reference, row.created_at) == (
        250,
        "deposit",
        None,
        WHEN,
    )


def test_prepared_errors_are_sqlalchemy_errors(database: Database, account_id: int) -> None:
    add = Prepared(
        insert(plays).values({c.name: bindparam(c.name) for c in plays.c if c.name != "id"})
    )
    with database.unit_of_work() as uow:
        add.execute(uow.connection, _play_values(account_id, "CC-CCCC-CCCC-C"))
        with pytest.raises(IntegrityError):
            add.execute(uow.connection, _play_values(account_id, "CC-CCCC-CCCC-C"))


def test_prepared_opens_a_transaction_after_a_commit(database: Database, account_id: int) -> None:
    """Work after ``commit()`` in the same unit of work is still rolled back at its end."""
    add = Prepared(
        insert(plays).values({c.name: bindparam(c.name) for c in plays.c if c.name != "id"})
    )
    with database.unit_of_work() as uow:
        uow.commit()
        add.execute(uow.connection, _play_values(account_id, "CC-DDDD-DDDD-D"))
    with database.unit_of_work(write=False) as uow:
        assert uow.plays.get("CC-DDDD-DDDD-D") is None


@pytest.mark.parametrize("backend", ["sqlite"])
def test_sqlite_connections_are_reused_and_never_shared(database: Database) -> None:
    with database.unit_of_work() as first:
        outer = first.connection
        with database.unit_of_work(write=False) as nested:
            assert nested.connection is not outer  # in use: a nested unit gets another
    with database.unit_of_work(write=False) as again:
        assert again.connection in (outer, nested.connection)  # kept, not a new one
    # A reused connection opens its transaction the way the new unit asks: a read does not
    # take the write lock, so a writer on another connection is not blocked by it.
    with database.unit_of_work(write=False) as reader:
        assert reader.connection.get_execution_options()["colour_collector_sqlite_begin"] == (
            "DEFERRED"
        )
        with database.unit_of_work() as writer:
            writer.connection.exec_driver_sql("UPDATE audit_head SET seq = seq")
            writer.commit()


def test_play_locked_for_session_only_for_its_live_owner(
    database: Database, account_id: int, other: int
) -> None:
    _store(
        database,
        [(account_id, "CC-MINE"), (other, "CC-THEIRS")],
        [("live", account_id, LIVE), ("dead", account_id, WHEN), ("theirs", other, LIVE)],
    )
    with database.unit_of_work() as uow:
        found = uow.plays.locked_for_session("live", "CC-MINE", WHEN)
        assert found is not None
        assert (found.play_number, found.account_id) == ("CC-MINE", account_id)
        assert found == uow.plays.get("CC-MINE")
        # Expired at exactly its time, someone else's play, an unknown play or token: nothing.
        assert uow.plays.locked_for_session("dead", "CC-MINE", WHEN) is None
        assert uow.plays.locked_for_session("live", "CC-THEIRS", WHEN) is None
        assert uow.plays.locked_for_session("theirs", "CC-MINE", WHEN) is None
        assert uow.plays.locked_for_session("live", "CC-NONE", WHEN) is None
        assert uow.plays.locked_for_session("none", "CC-MINE", WHEN) is None


def test_a_known_record_is_not_read_again(database: Database, account_id: int) -> None:
    """A step passes the record it holds for the play; it is used only while the stored play is
    in progress at that step, and otherwise the stored record is read."""
    _store(database, [(account_id, "CC-MINE")], [("live", account_id, LIVE)])
    stored = '{"x": "£5 ✓"}'

    def record_seen(known: tuple[int, str] | None) -> str:
        with database.unit_of_work() as uow:
            found = uow.plays.locked_for_session("live", "CC-MINE", WHEN, known)
        assert found is not None
        return found.record

    assert record_seen(None) == stored
    assert record_seen((0, "held")) == "held"  # in progress at step 0: not read
    assert record_seen((1, "held")) == stored  # moved on elsewhere, or never there: read
    with database.unit_of_work() as uow:
        play = uow.plays.get("CC-MINE")
        assert play is not None
        uow.plays.update(
            play.id, record=stored, revealed=0, status=PlayStatus.FINISHED,
            balance_after_pence=1000, finished_at=WHEN,
        )  # fmt: skip
        uow.commit()
    assert record_seen((0, "held")) == stored  # finished: read


def test_a_kept_step_is_written_only_while_the_play_is_as_kept(
    database: Database, account_id: int, other: int
) -> None:
    """``advance_kept`` moves the play on and appends the audit entry, both or neither: only
    for a play still in progress at the kept step, asked by a live session of its owner."""
    _store(
        database,
        [(account_id, "CC-MINE")],
        [("live", account_id, LIVE), ("dead", account_id, WHEN), ("theirs", other, LIVE)],
    )
    with database.unit_of_work(write=False) as uow:
        kept = uow.plays.get("CC-MINE")
    assert kept is not None

    def step(play: StoredPlay, token: str, record: str | None = None) -> bool:
        entry = audit.new_entry(AuditKind.REVEAL, play.account_id, {"n": play.revealed}, now=WHEN)
        with database.unit_of_work() as uow:
            written = uow.plays.advance_kept(
                play, token_hash=token, now=WHEN, record=record, entry=entry
            )
            uow.commit()
        return written

    def stored() -> StoredPlay:
        with database.unit_of_work(write=False) as uow:
            play = uow.plays.get("CC-MINE")
        assert play is not None
        return play

    entries = audit.verify_chain(database).entries
    for token in ("dead", "theirs", "none"):  # expired at exactly its time, another's, unknown
        assert not step(kept, token)
    assert not step(replace(kept, revealed=1), "live")  # not where the stored play is
    assert (stored(), audit.verify_chain(database).entries) == (kept, entries)

    assert step(kept, "live")  # a spin: the record is left as it is
    assert stored() == replace(kept, revealed=1)
    assert step(replace(kept, revealed=1), "live", record='{"picked": true}')  # a bonus pick
    assert stored() == replace(kept, revealed=2, record='{"picked": true}')
    assert not step(kept, "live")  # kept at 0 by another process: behind, nothing written
    assert audit.verify_chain(database).entries == entries + 2

    with database.unit_of_work() as uow:
        uow.plays.update(
            kept.id, record=kept.record, revealed=2, status=PlayStatus.FINISHED,
            balance_after_pence=1000, finished_at=WHEN,
        )  # fmt: skip
        uow.commit()
    assert not step(replace(kept, revealed=2), "live")  # finished (by FINISH, or the server)
    assert stored().revealed == 2
    assert audit.verify_chain(database).entries == entries + 2
    with pytest.raises(ValueError, match="account"), database.unit_of_work() as uow:
        entry = audit.new_entry(AuditKind.REVEAL, other, {}, now=WHEN)
        uow.plays.advance_kept(kept, token_hash="live", now=WHEN, record=None, entry=entry)


def test_racing_steps_from_one_kept_play_write_once(database: Database, account_id: int) -> None:
    """Four server processes holding the same kept play, asked for the same step at once: one
    writes it, the others write nothing (and would read the play and answer from the store)."""
    _store(database, [(account_id, "CC-MINE")], [("live", account_id, LIVE)])
    with database.unit_of_work(write=False) as uow:
        kept = uow.plays.get("CC-MINE")
    assert kept is not None
    entries = audit.verify_chain(database).entries
    start = threading.Barrier(4)

    def step(_: int) -> bool:
        entry = audit.new_entry(AuditKind.REVEAL, account_id, {"n": 0}, now=WHEN)
        start.wait()
        with database.unit_of_work() as uow:
            written = uow.plays.advance_kept(
                kept, token_hash="live", now=WHEN, record=None, entry=entry
            )
            uow.commit()
        return written

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(step, range(4)))
    assert sorted(results) == [False, False, False, True]
    with database.unit_of_work(write=False) as uow:
        play = uow.plays.get("CC-MINE")
    assert play is not None and play.revealed == 1
    assert audit.verify_chain(database).entries == entries + 1


def test_before_purchase_reads_the_key_the_unfinished_play_and_the_balance(
    database: Database, account_id: int, other: int
) -> None:

    def state(owner: int, key: str | None) -> tuple[str | None, str | None, int]:
        with database.unit_of_work(write=False) as uow:
            found = uow.plays.before_purchase(owner, key)
        return (
            None if found.earlier is None else found.earlier.play_number,
            None if found.unfinished is None else found.unfinished.play_number,
            found.balance_pence,
        )

    assert state(account_id, None) == (None, None, 0)
    assert state(account_id, "k1") == (None, None, 0)
    with database.unit_of_work() as uow:
        for number, owner, key, status in (
            ("CC-OLD", account_id, "k1", "finished"),
            ("CC-NOW", account_id, "k3", "in_progress"),
            ("CC-THEIRS", other, "k2", "in_progress"),
        ):
            values = {**_play_values(owner, number), "idempotency_key": key, "status": status}
            uow.connection.execute(insert(plays).values(values))
        for owner, amount in ((account_id, 2000), (account_id, -500), (other, 700)):
            uow.connection.execute(
                insert(ledger).values(
                    account_id=owner,
                    amount_pence=amount,
                    kind="deposit",
                    reference=None,
                    created_at=WHEN,
                )
            )
        uow.commit()
    assert state(account_id, "k1") == ("CC-OLD", "CC-NOW", 1500)
    assert state(account_id, "k2") == (None, "CC-NOW", 1500)  # another account's key
    assert state(account_id, None) == (None, "CC-NOW", 1500)
    assert state(other, "k2") == ("CC-THEIRS", "CC-THEIRS", 700)
    assert state(account_id, "k3") == ("CC-NOW", "CC-NOW", 1500)  # a retry of the play in progress
    with database.unit_of_work(write=False) as uow:
        full = uow.plays.before_purchase(account_id, "k1").earlier
        assert full == uow.plays.get("CC-OLD")  # read in full
        retried = uow.plays.before_purchase(account_id, "k3")
        assert retried.earlier == uow.plays.get("CC-NOW")
        assert retried.unfinished is retried.earlier  # read once
