"""The store's repositories on SQLite and on PostgreSQL: what the ports promise, the schema of
the migrations against the tables, the durable settings, and the lock a ``..._for_update``
read takes."""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text

from colour_collector.service import audit, pools
from colour_collector.service.errors import DuplicatePlayError, EmailTakenError, PlayChangedError
from colour_collector.service.models import (
    AccountId,
    AuditKind,
    ConfirmationToken,
    MovementKind,
    Session,
    TokenPurpose,
)
from colour_collector.service.play_models import PlayStatus, StoredPlay, TryPlay
from colour_collector.service.protection_models import (
    ExclusionKind,
    OperatorRole,
    OperatorSession,
    ProtectionSettings,
)
from colour_collector.store import Database
from colour_collector.store.migrate import alembic_config
from colour_collector.store.tables import metadata
from pool_support import small_pool
from support import fund, sign_up

WHEN = dt.datetime(2026, 12, 2, 14, 7, 15, 123456, tzinfo=dt.UTC)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


@pytest.fixture
def account_id(database: Database) -> int:
    return sign_up(database, "p@example.com")[0].id


@contextlib.contextmanager
def opened(url: str) -> Iterator[Database]:
    """The database at ``url``, disposed of afterwards (the migration tests open it between
    steps)."""
    database = Database(url)
    try:
        yield database
    finally:
        database.dispose()


def a_play(account_id: int, number: str, key: str | None = None) -> StoredPlay:
    return StoredPlay(
        id=0,
        play_number=number,
        account_id=account_id,
        status=PlayStatus.IN_PROGRESS,
        record='{"x": "£5 ✓"}',
        revealed=0,
        steps=7,
        tier_index=None,
        prize_pence=0,
        price_pence=500,
        idempotency_key=key,
        balance_before_pence=1000,
        balance_after_pence=None,
        purchased_at=WHEN,
        finish_by=WHEN + dt.timedelta(days=1),
        finished_at=None,
    )


def test_migrations_build_exactly_the_tables(database: Database) -> None:
    with database.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), metadata)
    assert differences == []


def test_commits_are_durable(database: Database) -> None:
    with database.engine.connect() as connection:
        if database.is_sqlite:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        else:
            assert connection.exec_driver_sql("SHOW synchronous_commit").scalar() == "on"
            assert connection.dialect.driver == "psycopg"


def test_a_play_is_stored_read_back_and_saved_only_over_what_was_read(
    database: Database, account_id: int
) -> None:
    with database() as uow:
        stored = uow.plays.add(a_play(account_id, "CC-0000-0001-1", key="k1"))
        uow.commit()
    assert stored.id > 0
    with database() as uow:
        assert uow.plays.get(stored.play_number) == stored
        assert uow.plays.get_for_update(stored.play_number) == stored
        assert uow.plays.by_idempotency_key(account_id, "k1") == stored
        assert uow.plays.by_idempotency_key(account_id, "k2") is None
        assert uow.plays.unfinished(account_id) == stored
        assert uow.plays.count(account_id) == 1
        assert uow.plays.page(account_id, 0, 10) == [stored]
        assert uow.plays.due(WHEN, 10) == []
        assert uow.plays.due(WHEN + dt.timedelta(days=2), 10) == [stored.play_number]
        moved = replace(stored, revealed=1, record='{"x": "picked"}')
        uow.plays.save(moved, was=stored)
        uow.commit()
    with database() as uow:
        assert uow.plays.get(stored.play_number) == moved
        with pytest.raises(PlayChangedError):  # a copy read before the save is stale
            uow.plays.save(replace(stored, revealed=1), was=stored)
        closed = replace(
            moved,
            revealed=7,
            status=PlayStatus.FINISHED,
            balance_after_pence=900,
            finished_at=WHEN,
        )
        uow.plays.save(closed, was=moved)
        uow.commit()
    with database() as uow:
        assert uow.plays.get(stored.play_number) == closed
        assert uow.plays.unfinished(account_id) is None


def test_play_numbers_and_keys_are_unique(database: Database, account_id: int) -> None:
    with database() as uow:
        uow.plays.add(a_play(account_id, "CC-0000-0001-1", key="k"))
        uow.commit()
    for clash in (a_play(account_id, "CC-0000-0001-1"), a_play(account_id, "CC-0000-0002-2", "k")):
        with database() as uow, pytest.raises(DuplicatePlayError):
            uow.plays.add(clash)
    other = sign_up(database, "q@example.com")[0].id
    with database() as uow:  # another account may use the same key
        uow.plays.add(a_play(other, "CC-0000-0003-3", key="k"))
        uow.commit()


def test_sessions_live_until_they_expire(database: Database, account_id: int) -> None:
    hour = dt.timedelta(hours=1)
    with database() as uow:
        uow.accounts.add_session(Session("live", account_id, WHEN, WHEN + hour))
        uow.accounts.add_session(Session("over", account_id, WHEN - hour, WHEN))
        uow.commit()
    with database() as uow:
        assert uow.accounts.session("live", WHEN) == Session("live", account_id, WHEN, WHEN + hour)
        assert uow.accounts.session("over", WHEN) is None
        assert uow.accounts.session("live", WHEN + hour) is None
        assert uow.accounts.remove_expired_sessions(WHEN) == 1
        assert uow.accounts.remove_session("live") is not None
        assert uow.accounts.remove_session("live") is None
        uow.commit()


def test_every_session_of_an_account_ends_together(database: Database, account_id: int) -> None:
    other = sign_up(database, "q@example.com")[0].id
    hour = dt.timedelta(hours=1)
    with database() as uow:
        uow.accounts.add_session(Session("mine", account_id, WHEN, WHEN + hour))
        uow.accounts.add_session(Session("theirs", other, WHEN, WHEN + hour))
        uow.protection.record_reality_check("mine", WHEN)  # goes with its session
        uow.commit()
    with database() as uow:
        assert uow.accounts.remove_sessions(account_id) == 2  # sign_up's and "mine"
        assert uow.accounts.session("mine", WHEN) is None
        assert uow.protection.last_reality_check("mine") is None
        assert uow.accounts.session("theirs", WHEN) is not None
        uow.accounts.set_password(account_id, password_hash="new hash")
        uow.commit()
    with database() as uow:
        stored = uow.accounts.by_email("p@example.com")
        assert stored is not None and stored.password_hash == "new hash"
        assert uow.accounts.remove_sessions(account_id) == 0


def test_links_are_found_and_used_up_by_their_purpose(database: Database, account_id: int) -> None:
    hour = dt.timedelta(hours=1)
    confirm = ConfirmationToken("c" * 64, account_id, WHEN, WHEN + hour)
    reset = ConfirmationToken("r" * 64, account_id, WHEN, WHEN + hour, purpose=TokenPurpose.RESET)
    with database() as uow:
        uow.confirmations.add(confirm)
        uow.confirmations.add(reset)
        uow.commit()
    with database() as uow:
        assert uow.confirmations.get(confirm.token_hash, TokenPurpose.CONFIRM) == confirm
        assert uow.confirmations.get(confirm.token_hash, TokenPurpose.RESET) is None
        assert uow.confirmations.get(reset.token_hash, TokenPurpose.RESET) == reset
        assert uow.confirmations.get(reset.token_hash, TokenPurpose.CONFIRM) is None
        assert uow.confirmations.use_all(account_id, WHEN + hour, TokenPurpose.RESET) == 1
        uow.commit()
    with database() as uow:
        assert uow.confirmations.get(confirm.token_hash, TokenPurpose.CONFIRM) == confirm
        used = uow.confirmations.get(reset.token_hash, TokenPurpose.RESET)
        assert used == replace(reset, used_at=WHEN + hour)
        assert uow.confirmations.use_all(account_id, WHEN, TokenPurpose.CONFIRM) == 1


def test_links_mailed_before_resets_existed_are_confirmation_links(
    empty_database_url: str,
) -> None:
    config = alembic_config(empty_database_url)
    command.upgrade(config, "0060")
    older = Database(empty_database_url)
    try:
        with older.engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO accounts (email, password_hash, date_of_birth, created_at)"
                    " VALUES ('old@example.com', 'x', :born, :at)"
                ),
                {"born": dt.date(1990, 1, 1), "at": WHEN.replace(tzinfo=None)},
            )
            connection.execute(
                text(
                    "INSERT INTO confirmation_tokens (token_hash, account_id, created_at,"
                    " expires_at) SELECT :hash, id, :at, :at FROM accounts"
                ),
                {"hash": "o" * 64, "at": WHEN.replace(tzinfo=None)},
            )
    finally:
        older.dispose()
    command.upgrade(config, "head")
    with opened(empty_database_url) as database, database() as uow:
        found = uow.confirmations.get("o" * 64, TokenPurpose.CONFIRM)
        assert found is not None and found.purpose is TokenPurpose.CONFIRM
        reset = ConfirmationToken(
            "r" * 64, found.account_id, WHEN, WHEN, purpose=TokenPurpose.RESET
        )
        uow.confirmations.add(reset)
        uow.commit()
    # Going back forgets the reset links: without the column they would read as confirmations.
    command.downgrade(config, "0060")
    with opened(empty_database_url) as database, database.engine.connect() as connection:
        kept = connection.execute(text("SELECT token_hash FROM confirmation_tokens")).scalars()
        assert list(kept) == ["o" * 64]


def test_operators_disabled_stay_out_across_a_downgrade(empty_database_url: str) -> None:
    """Migration 0080 adds ``operators.disabled_at``; going back below it removes the sessions
    of the disabled operators (their accounts could log in again, but have no session left)."""
    config = alembic_config(empty_database_url)
    command.upgrade(config, "head")
    session = OperatorSession("s" * 64, 0, WHEN, WHEN + dt.timedelta(days=1))
    with opened(empty_database_url) as database:
        with database() as uow:
            kept = uow.operators.add(
                name="kept", password_hash="x", role=OperatorRole.VIEWER, created_at=WHEN
            )
            gone = uow.operators.add(
                name="gone", password_hash="x", role=OperatorRole.MANAGER, created_at=WHEN
            )
            uow.operators.add_session(replace(session, operator_id=kept.id))
            uow.operators.add_session(replace(session, token_hash="t" * 64, operator_id=gone.id))
            assert uow.operators.disable(gone.id, WHEN) == 1
            uow.operators.add_session(replace(session, token_hash="u" * 64, operator_id=gone.id))
            uow.commit()
        with database() as uow:
            assert uow.operators.get(gone.id) == replace(gone, disabled_at=WHEN)
            assert uow.operators.get(kept.id) == kept
    command.downgrade(config, "0070")
    with opened(empty_database_url) as database, database.engine.connect() as connection:
        left = connection.execute(text("SELECT token_hash FROM operator_sessions")).scalars()
        assert list(left) == ["s" * 64]
    command.upgrade(config, "head")


def test_no_downgrade_below_0090_reopens_a_held_self_exclusion(empty_database_url: str) -> None:
    """Before 0090 a self-exclusion ended by itself: going back while one whose term is over
    still holds is refused, with nothing changed; once its player has asked and a day has
    passed, the downgrade goes through."""
    config = alembic_config(empty_database_url)
    command.upgrade(config, "head")
    ended = dt.datetime.now(dt.UTC) - dt.timedelta(days=3)
    with opened(empty_database_url) as database:
        account_id = sign_up(database, "held@example.com")[0].id
        with database() as uow:
            uow.protection.add_exclusion(
                account_id=AccountId(account_id),
                kind=ExclusionKind.SELF_EXCLUSION,
                starts_at=ended - dt.timedelta(days=183),
                ends_at=ended,
            )
            uow.commit()
    with pytest.raises(RuntimeError, match=r"1 self-exclusion.*still hold"):
        command.downgrade(config, "0080")
    with opened(empty_database_url) as database, database() as uow:
        assert uow.protection.exclusions(AccountId(account_id))  # nothing changed
        asked = ended + dt.timedelta(hours=1)
        uow.protection.save_settings(ProtectionSettings(AccountId(account_id), None, 60, asked))
        uow.commit()
    command.downgrade(config, "0080")
    command.upgrade(config, "head")


def test_every_migration_goes_down_and_up_again_with_rows(empty_database_url: str) -> None:
    """Down to the base and up to head again, with rows in every table another points at: a
    migration that copies such a table (SQLite's batch mode) fails here, not in an operator's
    rollback (docs/operations.md, migrations)."""
    config = alembic_config(empty_database_url)
    command.upgrade(config, "head")
    with opened(empty_database_url) as database:
        account, token = sign_up(database, "p@example.com")
        fund(database, token, 1000)
        pools.load(database, small_pool(6, {"£5": 2}), pools.seal_key("k"), published_only=False)
        with database() as uow:
            uow.plays.add(a_play(account.id, "CC-0000-0001-1"))
            operator = uow.operators.add(
                name="mia", password_hash="x", role=OperatorRole.VIEWER, created_at=WHEN
            )
            uow.operators.add_session(
                OperatorSession("s" * 64, operator.id, WHEN, WHEN + dt.timedelta(days=1))
            )
            uow.commit()
        pointed_at = {
            fk.column.table.name for table in metadata.tables.values() for fk in table.foreign_keys
        }
        with database.engine.connect() as connection:
            empty = [
                name
                for name in sorted(pointed_at | {"plays", "operator_sessions", "audit_log"})
                if not connection.execute(text(f"SELECT count(*) FROM {name}")).scalar_one()
            ]
        assert not empty, f"seed these tables too: {empty}"
    command.downgrade(config, "base")
    command.upgrade(config, "head")
    with opened(empty_database_url) as database, database() as uow:
        # Back from the base, which has no tables: every table made again, empty.
        assert uow.accounts.by_email("p@example.com") is None


def test_an_email_is_registered_once(database: Database, account_id: int) -> None:
    with database() as uow, pytest.raises(EmailTakenError):
        uow.accounts.add(
            email="p@example.com", password_hash="x", date_of_birth=dt.date(1990, 1, 1),
            created_at=WHEN,
        )  # fmt: skip


def test_wallet_totals_and_recent_movements(database: Database, account_id: int) -> None:
    with database() as uow:
        for amount, kind in ((1000, MovementKind.DEPOSIT), (-500, MovementKind.STAKE)):
            uow.wallets.add(
                account_id=account_id, amount_pence=amount, kind=kind, reference="r",
                created_at=WHEN,
            )  # fmt: skip
        uow.wallets.add(
            account_id=account_id, amount_pence=700, kind=MovementKind.PRIZE, reference=None,
            created_at=WHEN + dt.timedelta(minutes=1),
        )  # fmt: skip
        uow.commit()
    with database() as uow:
        assert uow.wallets.balance(account_id) == 1200
        assert uow.wallets.balance(account_id + 99) == 0
        recent = uow.wallets.recent(account_id, 2)
        assert [m.amount_pence for m in recent] == [700, -500]
        assert uow.wallets.get(recent[0].id) == recent[0]
        assert uow.wallets.totals_since(account_id, WHEN) == {
            MovementKind.DEPOSIT: 1000, MovementKind.STAKE: -500, MovementKind.PRIZE: 700,
        }  # fmt: skip
        later = WHEN + dt.timedelta(seconds=30)
        assert uow.wallets.totals_since(account_id, later) == {MovementKind.PRIZE: 700}


def test_try_plays_are_found_by_token_hash_and_saved_over_what_was_read(
    database: Database,
) -> None:
    start = TryPlay(0, "{}", 0, 5, 0, WHEN, None)
    with database() as uow:
        stored = uow.tries.add("hash", start, "127.0.0.1")
        uow.commit()
    with database() as uow:
        assert uow.tries.get("hash") == stored
        assert uow.tries.get("other") is None
        assert uow.tries.started_after("127.0.0.1", WHEN - dt.timedelta(seconds=1)) == 1
        moved = replace(stored, revealed=1)
        uow.tries.save(moved, was=stored)
        with pytest.raises(PlayChangedError):
            uow.tries.save(moved, was=stored)
        uow.commit()
    with database() as uow:
        assert uow.tries.get_for_update("hash") == moved
        assert uow.tries.remove_before(WHEN + dt.timedelta(seconds=1)) == 1
        uow.commit()


def test_the_audit_log_stores_entries_as_chained(database: Database, account_id: int) -> None:
    with database() as uow:
        before = uow.audit.head()
        entry = audit.append(uow, AuditKind.DEPOSIT, account_id, {"n": 1})
        uow.commit()
    with database() as uow:
        assert uow.audit.head().seq == before.seq + 1 == entry.seq == uow.audit.last_seq()
        assert uow.audit.head().hash == entry.hash
        assert uow.audit.entries(after_seq=entry.seq - 1) == [entry]


def test_a_read_for_update_holds_the_row_until_the_transaction_ends(
    database: Database, account_id: int
) -> None:
    """The lock a ``..._for_update`` read takes: a second writer of the same account waits for
    the first to commit (SQLite: the whole database is locked by BEGIN IMMEDIATE; PostgreSQL:
    the row, ``SELECT ... FOR UPDATE``)."""
    # SQLite: one connection per process, so the other writer is another engine.
    other = Database(database.url) if database.is_sqlite else database
    order: list[str] = []
    locked = threading.Event()

    def first() -> None:
        with database() as uow:
            uow.accounts.get_for_update(account_id)
            locked.set()
            time.sleep(0.3)
            order.append("first commits")
            uow.commit()

    thread = threading.Thread(target=first)
    thread.start()
    locked.wait()
    try:
        with other() as uow:
            uow.accounts.get_for_update(account_id)
            order.append("second has the lock")
            uow.commit()
    finally:
        thread.join()
        if other is not database:
            other.dispose()
    assert order == ["first commits", "second has the lock"]


def test_the_sqlite_process_holds_one_connection(database: Database) -> None:
    if not database.is_sqlite:
        assert database.engine.pool.size() >= 1
        return
    assert database.engine.pool.size() == 1
    with database() as uow:
        uow.connection.execute(text("SELECT 1"))
        assert database.engine.pool.checkedout() == 1
    assert database.engine.pool.checkedout() == 0
