"""PostgreSQL (psycopg2): a transaction's statements sent together, as few round trips as it needs.

Without this every statement is a round trip from the server's Python to PostgreSQL and back,
and so are ``BEGIN`` and ``COMMIT``: six for a step. psycopg2 binds parameters itself and sends
a query as text, so several statements can go as one query, separated by semicolons; PostgreSQL
runs them in order and stops at the first error. A :class:`Batch` keeps the statements whose
answer nobody reads yet (``BEGIN`` first) and sends them in front of the next one whose answer
is read, or in front of ``COMMIT``: a step that reads the play is ``BEGIN`` with its session
and play look-up, then its update, its audit append and ``COMMIT``: two round trips, and the
audit chain's head is locked only while PostgreSQL itself works. A step from the play as the
process kept it is a single statement, sent alone (:meth:`Batch.go_alone`): one round trip.

How it is set up (:func:`install`, for a :class:`~colour_collector.store.database.Database`'s
engine):

- each psycopg2 connection is in autocommit mode, and SQLAlchemy's ``begin`` event starts a
  batch with ``BEGIN`` (psycopg2 would send its own ``BEGIN`` and wait for it);
- :func:`end` (and SQLAlchemy's ``commit`` and ``rollback`` events) sends what is queued with
  ``COMMIT``, or ``ROLLBACK`` when something was sent (a transaction that sent nothing has
  nothing to undo);
- a unit of work starts its batch itself (:func:`start`), without SQLAlchemy's ``begin()``;
- a statement SQLAlchemy runs itself (``Connection.execute``) first sends what is queued, and
  runs on its own as usual;
- the store's frequent statements (:class:`~colour_collector.store.prepared.Prepared`) are
  prepared on each connection the first time they are used there (``PREPARE`` goes in the same
  query) and then run with ``EXECUTE``, so PostgreSQL parses and plans each once per
  connection; :class:`ServerStatements` remembers which;
- a connection never goes back to the pool inside a transaction;
- a transaction of a single statement can send it alone (:meth:`Batch.go_alone`): one round trip
  in all, PostgreSQL committing it by itself.

Errors of queued statements arrive with the query that sends them: :func:`driver_error` makes
them SQLAlchemy's ``DBAPIError`` subclasses, as ``Connection.execute`` raises them.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, event
from sqlalchemy.exc import DBAPIError, OperationalError, PendingRollbackError

_KEY = "colour_collector_batch"
"""Where a connection's open :class:`Batch` is kept, in its pool record's ``info``."""
_SERVER = "colour_collector_prepared"
"""Where a connection's :class:`ServerStatements` are kept (``info`` is emptied when the pool
connects it again, and they go with it)."""
_IDLE = 0
"""libpq's ``PQTRANS_IDLE``: no transaction open."""


@dataclass(slots=True)
class ServerStatements:
    """The statements prepared on one connection (``PREPARE``; they last as long as it does).

    ``PREPARE`` is not undone by a rollback, and a failed query leaves it unknown which of its
    statements ran: after a failure, names of a new generation are used from then on, so that
    a name is never prepared twice.
    """

    generation: int = 0
    """Part of every name; moved on after a failed query."""
    ready: set[int] = field(default_factory=set)
    """Ids of the statements prepared in this generation."""

    def name(self, statement_id: int) -> bytes:
        """The name of statement ``statement_id`` on this connection."""
        return b"cc_%d_%d" % (statement_id, self.generation)


@dataclass(slots=True)
class Batch:
    """The statements of a transaction not sent yet."""

    server: ServerStatements
    """The connection's prepared statements."""
    queued: list[bytes] = field(default_factory=lambda: [b"BEGIN"])
    """Statements, parameters bound, in order."""
    preparing: list[int] = field(default_factory=list)
    """Ids of the statements the queued ones prepare."""
    sent: bool = False
    """Whether ``BEGIN`` has been sent (the transaction is open on the server)."""
    failed: bool = False
    """Whether a query of this transaction failed: nothing more may run in it but its end."""
    alone: bool = False
    """Whether the transaction is one statement sent without ``BEGIN`` (:meth:`go_alone`)."""

    def check(self) -> None:
        """Refuse to go on after a failed query (PostgreSQL would refuse too, unless the error
        was in parsing, when not even ``BEGIN`` ran), or after a statement run alone."""
        if self.failed:
            raise PendingRollbackError(
                "a statement of this transaction failed; it can only be rolled back"
            )
        if self.alone and self.sent:
            raise PendingRollbackError("the transaction was one statement, already committed")

    def go_alone(self) -> None:
        """Make the next statement the whole transaction: it is sent without ``BEGIN`` (with the
        ``PREPARE`` it needs, if any), and PostgreSQL runs the query as one transaction of its
        own and commits it. Only before anything of the transaction was sent or queued."""
        self.check()
        if self.sent or self.queued != [b"BEGIN"]:
            raise RuntimeError("only the first statement of a transaction can run alone")
        self.queued = []
        self.alone = True

    def prepare(self, statement_id: int, body: bytes) -> bytes:
        """Queue ``PREPARE`` of a statement unless done; return its name."""
        name = self.server.name(statement_id)
        if statement_id not in self.server.ready and statement_id not in self.preparing:
            self.queued.append(b"PREPARE " + name + body)
            self.preparing.append(statement_id)
        return name


def send(batch: Batch, cursor: Any, last: bytes | None = None) -> None:
    """Send the queued statements (and ``last``) as one query on ``cursor``."""
    if last is not None:
        batch.queued.append(last)
    query = b";\n".join(batch.queued)
    batch.queued = []
    try:
        cursor.execute(query)
    except Exception:
        batch.failed = True
        if cursor.connection.info.transaction_status != _IDLE:
            batch.sent = True  # BEGIN ran before the error: the rollback must be sent
        # Which PREPAREs of the query ran is not known: new names until the clean-up.
        batch.server.generation += 1
        batch.server.ready.clear()
        batch.preparing = []
        raise
    batch.sent = True
    batch.server.ready.update(batch.preparing)
    batch.preparing = []


def install(engine: Engine) -> None:
    """Batch the statements of ``engine``'s (PostgreSQL, psycopg2) transactions."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: object) -> None:
        if dbapi_connection.info.transaction_status != _IDLE:
            dbapi_connection.rollback()
        dbapi_connection.autocommit = True  # BEGIN is queued by ``_on_begin``

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        start(connection)  # or keep the batch a unit of work started

    @event.listens_for(engine, "before_cursor_execute")
    def _before_execute(connection: Connection, cursor: Any, *_args: Any) -> None:
        found = connection.info.get(_KEY)
        if found is not None:
            found.check()
            if found.queued:
                send(found, cursor)

    @event.listens_for(engine, "commit")
    def _on_commit(connection: Connection) -> None:
        end(connection, commit=True)

    @event.listens_for(engine, "rollback")
    def _on_rollback(connection: Connection) -> None:
        end(connection, commit=False)

    @event.listens_for(engine, "checkin")
    def _on_checkin(dbapi_connection: Any, record: Any) -> None:
        record.info.pop(_KEY, None)
        if dbapi_connection is not None and dbapi_connection.info.transaction_status != _IDLE:
            try:
                with dbapi_connection.cursor() as cursor:
                    cursor.execute("ROLLBACK")
            except Exception as error:  # not fit to be used again
                record.invalidate(error)


def start(connection: Connection) -> Batch:
    """Start a batched transaction on ``connection`` (of an installed engine), unless started;
    return its batch.

    A unit of work starts it without SQLAlchemy's ``begin()`` (whose bookkeeping costs as much
    as the step's own statements); a statement SQLAlchemy runs later in it begins SQLAlchemy's
    transaction on top, which then ends with the batch.
    """
    info = connection.info
    found: Batch | None = info.get(_KEY)
    if found is None:
        server = info.get(_SERVER)
        if server is None:
            server = info[_SERVER] = ServerStatements()
        found = info[_KEY] = Batch(server)
    return found


def batched(connection: Connection) -> bool:
    """Whether ``connection`` belongs to an engine :func:`install` set up (its psycopg2
    connection is in autocommit mode, and every transaction is batched)."""
    return getattr(connection.connection.driver_connection, "autocommit", None) is True


def in_transaction_on_server(connection: Connection) -> bool:
    """Whether the server holds a transaction open on ``connection`` (psycopg2 only; a check
    of the client library's state, no round trip)."""
    info = getattr(connection.connection.driver_connection, "info", None)
    return info is not None and info.transaction_status != _IDLE


def batch_of(connection: Connection) -> Batch | None:
    """The batch of ``connection``'s open transaction (None: not batched)."""
    found: Batch | None = connection.info.get(_KEY)
    return found


def end(connection: Connection, *, commit: bool) -> None:
    """End the transaction: send what is queued and ``COMMIT``, or ``ROLLBACK`` if sent.

    A no-op when the transaction is not batched or already ended, and a rollback of one whose
    connection was lost. A commit raises when it cannot commit: the first error of the
    statements still queued (as a ``DBAPIError``, after rolling back), ``PendingRollbackError``
    after a failed query (it is rolled back), a ``DBAPIError`` when the connection was lost.
    """
    if connection.invalidated:  # its connection is gone, and its transaction with it
        if commit:
            raise OperationalError(
                "COMMIT",
                None,
                ConnectionError("the connection was lost"),
                connection_invalidated=True,
            )
        return
    found: Batch | None = connection.info.pop(_KEY, None)
    if found is None:
        return
    driver = connection.connection.driver_connection
    assert driver is not None  # a batch is only started on a live connection
    if found.failed:
        _clean_up(driver, found)
        if commit:
            found.check()  # raises: it was rolled back
        return
    if found.alone:  # committed by PostgreSQL with its statement (nothing can follow it)
        return
    if commit:
        if not found.sent and found.queued == [b"BEGIN"]:
            return  # nothing was read or written: nothing to commit
        last = b"COMMIT"
    elif found.sent:  # what is still queued is dropped, PREPAREs included
        found.queued, found.preparing, last = [], [], b"ROLLBACK"
    else:
        return  # nothing reached the server
    cursor = driver.cursor()
    try:
        send(found, cursor, last)
        status = cursor.statusmessage
    except Exception as error:
        _clean_up(driver, found)
        raise driver_error(connection, error, last.decode()) from error
    finally:
        cursor.close()
    if commit and status != "COMMIT":  # PostgreSQL answers ROLLBACK to a failed transaction
        raise PendingRollbackError(
            f"the transaction was not committed: the server answered {status!r}"
        )


def _clean_up(driver: Any, batch: Batch) -> None:
    """After a failed query: roll back, and drop every prepared statement (the names of the
    failed query's ``PREPARE``s are then free again)."""
    statements = [b"DEALLOCATE ALL"]
    if driver.info.transaction_status != _IDLE:
        statements.insert(0, b"ROLLBACK")
    with suppress(Exception), driver.cursor() as cursor:  # the first error says what went wrong
        cursor.execute(b";\n".join(statements))
        batch.server.ready.clear()


def driver_error(connection: Connection, error: Exception, statement: str) -> Exception:
    """``error`` as SQLAlchemy's ``DBAPIError`` subclass if the driver raised it.

    A lost connection is invalidated, so that it is not used again.
    """
    dialect = connection.dialect
    base = dialect.loaded_dbapi.Error
    if not isinstance(error, base):
        return error
    lost = dialect.is_disconnect(error, connection.connection.dbapi_connection, None)
    if lost:
        connection.info.pop(_KEY, None)  # nothing more can be sent on it
        connection.invalidate(error)
    return DBAPIError.instance(statement, None, error, base, connection_invalidated=lost)
