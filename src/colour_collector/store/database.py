"""The database a server process (or a command) works on: an engine, and units of work on it.

Two databases are supported, each configured to be durable: a transaction the player has seen
committed survives a power cut.

- **SQLite** (the embedded default, one server process): WAL journal with ``synchronous=FULL``
  (every commit is flushed to disk before it returns), foreign keys on, and every transaction
  opened with ``BEGIN IMMEDIATE`` (SQLAlchemy's documented recipe for pysqlite), so a writer takes
  the write lock up front. The process holds exactly one connection (SQLAlchemy's ``QueuePool``
  of size 1): SQLite has one writer at a time anyway, and threads wait for the connection in the
  pool's queue rather than in SQLite's sleep-and-retry busy handler. Another process (an
  operator's command) waits up to ``SQLITE_BUSY_TIMEOUT_S`` for the lock. Each transaction
  first checks that the file at the database's path is still the one the connection opened: an
  SQLite file removed or replaced while open (a restore copied in under the server) would
  otherwise take every later commit into a file no one opens again; the server answers 503
  until it is restarted.
- **PostgreSQL** (several server processes or machines): SQLAlchemy on psycopg 3
  (``postgresql+psycopg``), SQLAlchemy's pool with a ping when a connection is checked out,
  psycopg's own prepared statements (a statement run five times on a connection is prepared),
  ``synchronous_commit`` as the server has it (on by default).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import URL, Engine, create_engine, event, make_url, text
from sqlalchemy.exc import OperationalError

from colour_collector.store.audit_log import HASH_FUNCTION, sha256_hex
from colour_collector.store.unit_of_work import SqlUnitOfWork

SQLITE_BUSY_TIMEOUT_S = 30.0
"""How long an SQLite connection waits for another process's write lock."""
POOL_TIMEOUT_S = 30.0
"""How long a request waits for a free connection before it is answered 503."""
DEFAULT_PG_POOL_SIZE = 8
"""PostgreSQL connections a server process keeps (see ``Settings.database_pool_size``)."""


def database_url(url: str) -> URL:
    """``url`` parsed, with ``postgresql://`` meaning psycopg 3; raises ``ValueError`` for a
    database or driver this project does not run on."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return parsed
    if backend != "postgresql":
        raise ValueError(
            f"only SQLite and PostgreSQL databases are supported, not {parsed.drivername}://"
        )
    if "+" not in parsed.drivername:
        return parsed.set(drivername="postgresql+psycopg")
    # Only now: for a URL naming no driver, get_driver_name() loads the backend's dialect.
    if parsed.get_driver_name() != "psycopg":
        raise ValueError(
            "PostgreSQL is reached through psycopg 3: use a postgresql:// or"
            f" postgresql+psycopg:// URL, not {parsed.drivername}://"
        )
    return parsed


def make_engine(url: str, *, pool_size: int = DEFAULT_PG_POOL_SIZE) -> Engine:
    """An engine for ``url`` configured as described above (``pool_size``: PostgreSQL only)."""
    parsed = database_url(url)
    if parsed.get_backend_name() == "postgresql":
        return create_engine(
            parsed,
            pool_size=pool_size,
            max_overflow=0,
            pool_timeout=POOL_TIMEOUT_S,
            pool_pre_ping=True,
            pool_reset_on_return=None,  # every unit of work ends its transaction itself
        )
    database = parsed.database or ""
    in_memory = database in ("", ":memory:") or database.startswith("file:")
    if not in_memory:
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    options: dict[str, Any] = {"connect_args": {"timeout": SQLITE_BUSY_TIMEOUT_S}}
    if not in_memory:
        options.update(
            pool_size=1,
            max_overflow=0,
            pool_timeout=POOL_TIMEOUT_S,
            pool_reset_on_return=None,  # every unit of work ends its transaction itself
        )
    engine = create_engine(parsed, **options)
    _make_durable_and_serial(engine, None if in_memory else Path(database).resolve())
    return engine


FILE_IDENTITY = "colour_collector_file"
"""Key of a connection's ``info``: the (device, inode) of the SQLite file it opened."""


def _file_identity(path: Path) -> tuple[int, int] | None:
    """The (device, inode) of the file at ``path``; ``None`` when there is none."""
    try:
        found = path.stat()
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino


def _check_same_file(path: Path, opened: object) -> None:
    """Raise ``OperationalError`` (503 ``unavailable``) unless ``path`` is still the file a
    connection opened (``opened``, its identity then)."""
    if _file_identity(path) != opened:
        # Not invalidated: a new connection would make an empty database where the file was.
        raise OperationalError(
            "BEGIN IMMEDIATE",
            None,
            sqlite3.OperationalError(
                f"the database file {os.fspath(path)!r} was removed or replaced since the server"
                " opened it: nothing is written until the server is restarted"
            ),
        )


def _make_durable_and_serial(engine: Engine, path: Path | None) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, record: Any) -> None:
        # The sqlite3 module's own transaction handling is turned off; "begin" below opens them.
        dbapi_connection.isolation_level = None
        for pragma in (
            f"busy_timeout = {int(SQLITE_BUSY_TIMEOUT_S * 1000)}",
            "journal_mode = WAL",
            "synchronous = FULL",
            "foreign_keys = ON",
        ):
            dbapi_connection.execute(f"PRAGMA {pragma}").close()
        dbapi_connection.create_function(HASH_FUNCTION, 1, sha256_hex, deterministic=True)
        if path is not None:
            record.info[FILE_IDENTITY] = _file_identity(path)

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        if path is not None:
            _check_same_file(path, connection.connection.info.get(FILE_IDENTITY))
        connection.exec_driver_sql("BEGIN IMMEDIATE")


class Database:
    """A database: ``database()`` opens a unit of work (see ``service.ports``)."""

    def __init__(self, url: str, *, pool_size: int = DEFAULT_PG_POOL_SIZE) -> None:
        self.engine = make_engine(url, pool_size=pool_size)
        self.url = self.engine.url.render_as_string(hide_password=False)
        self.is_sqlite = self.engine.dialect.name == "sqlite"

    def __call__(self) -> SqlUnitOfWork:
        """A new unit of work."""
        return SqlUnitOfWork(self.engine)

    def ping(self) -> None:
        """Run ``SELECT 1``; raises if the database cannot be reached."""
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()
