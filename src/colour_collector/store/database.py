"""Engines and the :class:`Database` handle the server and CLI hold.

SQLite is made safe for several writers: WAL journal, a busy timeout, foreign keys on, and
every write transaction opened with ``BEGIN IMMEDIATE`` so writers queue for the lock up front
instead of failing with "database is locked" when they first write, after queueing at a
:class:`~colour_collector.store.write_gate.WriteGate` so they never poll. Read-only units of work
open with a plain ``BEGIN`` and are not blocked by writers (WAL). A database file's log is
checkpointed by a :class:`~colour_collector.store.checkpoint.Checkpointer` thread, outside the
write gate.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, make_url, text

from colour_collector.store import batch
from colour_collector.store.checkpoint import (
    BACKSTOP_PAGES,
    EVERY_COMMITS,
    LIMIT_PAGES,
    Checkpointer,
)
from colour_collector.store.unit_of_work import SqlUnitOfWork
from colour_collector.store.write_gate import WriteGate, lock_file_for

SQLITE_BUSY_TIMEOUT_MS = 30_000
"""How long an SQLite connection waits for the write lock before giving up."""

_BEGIN_OPTION = "colour_collector_sqlite_begin"


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url`` with the SQLite settings above (PostgreSQL: pre-ping on)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            parsed,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
            **kwargs,
        )
        _configure_sqlite(engine)
        return engine
    if parsed.get_backend_name() != "postgresql":
        raise ValueError(
            f"only SQLite and PostgreSQL databases are supported, not {parsed.drivername}://"
        )
    if parsed.get_driver_name() != "psycopg2":
        raise ValueError(
            "PostgreSQL is reached through the psycopg2 driver: use a postgresql:// or"
            f" postgresql+psycopg2:// URL, not {parsed.drivername}://"
        )
    # Up to 40 connections: one for each of the server's 40 worker threads (AnyIO's default), so
    # a request never queues for a connection behind others that wait for a lock.
    options: dict[str, Any] = {"pool_pre_ping": True, "pool_size": 20, "max_overflow": 20}
    return create_engine(parsed, **{**options, **kwargs})


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        # Take transaction control away from the sqlite3 module; BEGIN is emitted below.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        mode = connection.get_execution_options().get(_BEGIN_OPTION, "IMMEDIATE")
        # Straight on the driver: nothing to convert, and it runs before every transaction.
        connection.connection.driver_connection.execute(
            "BEGIN" if mode == "DEFERRED" else "BEGIN IMMEDIATE"
        )


def _checkpoint_aside(engine: Engine, checkpointer: Checkpointer) -> None:
    """Leave checkpoints to ``checkpointer`` (SQLite's own only as a backstop) and count commits."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        dbapi_connection.execute(f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES}").close()

    @event.listens_for(engine, "commit")
    def _on_commit(_connection: Any) -> None:
        checkpointer.committed()


_IMMEDIATE = {_BEGIN_OPTION: "IMMEDIATE"}
_DEFERRED = {_BEGIN_OPTION: "DEFERRED"}
_MAX_IDLE = 8
"""Idle connections a :class:`Database` keeps (one per thread that uses it, at most)."""
PING_AFTER_IDLE_S = 1.0
"""A kept PostgreSQL connection idle longer than this is pinged before it is used again."""


def _alive(connection: Connection) -> bool:
    """Whether a kept connection still answers (the pool's own ping); one that does not is
    invalidated."""
    try:
        dbapi_connection = connection.connection.dbapi_connection
        if dbapi_connection is None:  # already closed
            return False
        connection.dialect.do_ping(dbapi_connection)
    except Exception as error:
        connection.invalidate(error)
        return False
    return True


class Database:
    """An engine; opens units of work.

    On an SQLite file, ``checkpoint_every`` and ``checkpoint_limit`` set its
    :class:`~colour_collector.store.checkpoint.Checkpointer`.
    """

    def __init__(
        self,
        url: str,
        *,
        checkpoint_every: int = EVERY_COMMITS,
        checkpoint_limit: int = LIMIT_PAGES,
        **engine_kwargs: Any,
    ) -> None:
        self.url = url
        self.engine = make_engine(url, **engine_kwargs)
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        self._gate: WriteGate | None = None
        self._idle: list[tuple[Connection, float]] = []
        self.checkpointer: Checkpointer | None = None
        if self.is_sqlite:
            path = self.engine.url.database or ""
            lock_file = lock_file_for(path)
            self._gate = WriteGate(lock_file)
            if lock_file is not None:  # a database file (not in memory): checkpoint it aside
                self.checkpointer = Checkpointer(
                    path, self._gate, every=checkpoint_every, limit=checkpoint_limit
                )
                _checkpoint_aside(self.engine, self.checkpointer)
        else:  # PostgreSQL, through psycopg2 (``make_engine`` refuses other drivers)
            batch.install(self.engine)

    def unit_of_work(self, *, write: bool = True) -> SqlUnitOfWork:
        """A new unit of work; ``write=False`` reads without taking SQLite's write lock.

        SQLite write units of work first pass the :class:`WriteGate`, so writers queue without
        polling.
        """
        if not self.is_sqlite:
            return SqlUnitOfWork(self._connect_checked, self._release, {}, batched=True)
        if write:
            return SqlUnitOfWork(self._connect, self._release, _IMMEDIATE, self._gate)
        return SqlUnitOfWork(self._connect, self._release, _DEFERRED)

    __call__ = unit_of_work

    def _connect(self) -> Connection:
        # An idle connection kept by this handle, else a new one from the pool. Taking a
        # connection from the pool and giving it back costs more than a statement on SQLite, and
        # as much as a step's own statements on PostgreSQL.
        try:
            return self._idle.pop()[0]
        except IndexError:
            return self.engine.connect()

    def _connect_checked(self) -> Connection:
        # PostgreSQL: the pool pings a connection when it hands it out (``pool_pre_ping``); a
        # kept one is pinged only after PING_AFTER_IDLE_S idle. One in use when the server went
        # away fails its statement, is invalidated and is not kept (see ``batch.driver_error``).
        while True:
            try:
                connection, since = self._idle.pop()
            except IndexError:
                return self.engine.connect()
            if time.monotonic() - since <= PING_AFTER_IDLE_S or _alive(connection):
                return connection
            connection.close()

    def _release(self, connection: Connection) -> None:
        # Called after the unit of work rolled back: the connection holds no transaction (one
        # that does anyway goes back to the pool, which rolls it back).
        if (
            connection.invalidated
            or len(self._idle) >= _MAX_IDLE
            or batch.in_transaction_on_server(connection)
        ):
            connection.close()
        else:
            self._idle.append((connection, time.monotonic()))

    def ping(self) -> None:
        """Run ``SELECT 1``; raises if the database cannot be reached."""
        with self.engine.connect() as connection:
            connection.execution_options(**{_BEGIN_OPTION: "DEFERRED"}).execute(text("SELECT 1"))

    def dispose(self) -> None:
        """Stop the checkpoint thread; close every pooled connection and the write gate's file."""
        if self.checkpointer is not None:
            self.checkpointer.close()
        while self._idle:
            self._idle.pop()[0].close()
        self.engine.dispose()
        if self._gate is not None:
            self._gate.close()
