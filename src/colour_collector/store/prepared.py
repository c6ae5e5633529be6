"""Statements built with SQLAlchemy, compiled once per dialect, run on the DBAPI cursor.

Every request runs the same dozen statements (session look-up, play by Play Number, play update,
audit append ...). Through ``Connection.execute`` each run builds an execution context, fires
events and wraps the result, which on SQLite costs several times the statement itself. A
:class:`Prepared` statement keeps what SQLAlchemy compiled for the connection's dialect (the SQL
text, the order of its parameters, each parameter's and each column's type conversion, all got
through SQLAlchemy's public type API) and runs it straight on the connection's DBAPI cursor, in the
transaction the unit of work opened. Rows come back as named tuples with the same conversions
``Connection.execute`` would have applied; driver errors are raised as SQLAlchemy's
``DBAPIError`` subclasses, as ``Connection.execute`` raises them.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.types import NullType

from colour_collector.store.batch import Batch, batch_of, batched, driver_error, send, start

Processor = Callable[[Any], Any]
_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    positional: tuple[str, ...] | None
    """Parameter names in order (positional paramstyles), None for named paramstyles."""
    defaults: Mapping[str, Any]
    """Values of binds fixed in the statement (literals in ``where``)."""
    binds: Mapping[str, Processor]
    """Type conversions of parameters, by name (only those that have one)."""
    results: tuple[Processor | None, ...]
    """Type conversion of each result column (None: as the driver returns it)."""
    row: Callable[..., tuple[Any, ...]] | None
    """Named tuple type of a result row (None: no result columns)."""
    server: _ServerForm | None
    """The statement as PostgreSQL prepares it (named paramstyles only)."""


@dataclass(frozen=True, slots=True)
class _ServerForm:
    """A statement as ``PREPARE name (types) AS ...`` and ``EXECUTE name(values)``."""

    body: bytes
    """What follows ``PREPARE name``: parameter types, ``AS``, the SQL with ``$1``..."""
    arguments: str
    """What follows ``EXECUTE name``: the parameters in the driver's paramstyle."""


class Prepared:
    """A SQLAlchemy statement run straight on the DBAPI cursor (see the module docstring)."""

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        self._compiled: dict[str, _Compiled] = {}
        self._lock = threading.Lock()
        self._id = next(_ids)  # its name among the statements prepared on a connection

    def __repr__(self) -> str:
        return f"Prepared({self.statement})"

    def _for(self, dialect: Dialect) -> _Compiled:
        key = f"{dialect.name}+{dialect.driver}"
        found = self._compiled.get(key)
        if found is None:
            with self._lock:
                found = self._compiled.get(key)
                if found is None:
                    found = self._compiled[key] = _compile(self.statement, dialect)
        return found

    def _run(
        self, connection: Connection, params: Mapping[str, Any], *, queue: bool = False
    ) -> Any:
        """Run the statement; return the cursor (None when queued) and the compiled statement.

        In a batched transaction (PostgreSQL, :mod:`batch`) it is sent with what is queued,
        or, with ``queue``, only queued.
        """
        batch = batch_of(connection)
        if batch is not None:
            batch.check()
        elif batched(connection):
            batch = start(connection)
        elif not connection.in_transaction():
            connection.begin()  # as Connection.execute would autobegin (BEGIN on SQLite)
        compiled = self._for(connection.dialect)
        values = {**compiled.defaults, **params}
        for name, process in compiled.binds.items():
            values[name] = process(values[name])
        arguments: Sequence[Any] | Mapping[str, Any] = values
        if compiled.positional is not None:
            arguments = tuple(values[name] for name in compiled.positional)
        cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            if batch is None:
                cursor.execute(compiled.sql, arguments)
            else:
                statement = self._statement(batch, cursor, compiled, arguments)
                if queue:
                    batch.queued.append(statement)
                    cursor.close()
                    return None, compiled
                send(batch, cursor, statement)
        except Exception as error:
            cursor.close()
            raise driver_error(connection, error, compiled.sql) from error
        return cursor, compiled

    def _statement(self, batch: Batch, cursor: Any, compiled: _Compiled, arguments: Any) -> bytes:
        """The statement with its values bound, to send in ``batch``.

        On PostgreSQL it is prepared on the connection the first time (the ``PREPARE`` goes in
        the same query), then run with ``EXECUTE``: PostgreSQL parses and plans it once, which
        would otherwise cost it more than running it.
        """
        server = compiled.server
        if server is None:
            statement: bytes = cursor.mogrify(compiled.sql, arguments)
            return statement
        name = batch.prepare(self._id, server.body).decode()
        statement = cursor.mogrify("EXECUTE " + name + server.arguments, arguments)
        return statement

    def _fetch(self, connection: Connection, params: Mapping[str, Any], one: bool) -> Any:
        cursor, compiled = self._run(connection, params)
        try:
            fetched = cursor.fetchone() if one else cursor.fetchall()
        except Exception as error:
            raise driver_error(connection, error, compiled.sql) from error
        finally:
            cursor.close()
        return fetched, compiled

    def rows(self, connection: Connection, params: Mapping[str, Any]) -> list[Any]:
        """Every result row, converted, as named tuples."""
        fetched, compiled = self._fetch(connection, params, one=False)
        return [_convert(compiled, raw) for raw in fetched]

    def first(self, connection: Connection, params: Mapping[str, Any]) -> Any | None:
        """The first result row (converted, a named tuple) or None."""
        raw, compiled = self._fetch(connection, params, one=True)
        return None if raw is None else _convert(compiled, raw)

    def first_alone(self, connection: Connection, params: Mapping[str, Any]) -> Any | None:
        """:meth:`first`, as the whole of the transaction, which must not have run anything yet.

        In a batched transaction (PostgreSQL) the statement goes without ``BEGIN``, and
        PostgreSQL commits it by itself: one round trip, and the commit that follows has
        nothing to do (nor can a rollback undo it). Elsewhere it runs in the transaction as
        usual, and the caller commits.
        """
        batch = batch_of(connection)
        if batch is None and batched(connection):
            batch = start(connection)  # outside a unit of work: alone all the same
        if batch is None:
            return self.first(connection, params)
        batch.go_alone()
        try:
            return self.first(connection, params)
        except BaseException:
            batch.failed = True  # whether or not it was sent: nothing more runs in it
            raise

    def scalar(self, connection: Connection, params: Mapping[str, Any]) -> Any | None:
        """The first column of the first row, or None."""
        row = self.first(connection, params)
        return None if row is None else row[0]

    def execute(self, connection: Connection, params: Mapping[str, Any]) -> int:
        """Run a statement without results now; return the driver's row count."""
        cursor, _ = self._run(connection, params)
        try:
            count: int = cursor.rowcount
        finally:
            cursor.close()
        return count

    def send(self, connection: Connection, params: Mapping[str, Any]) -> None:
        """Run a statement whose answer nobody reads.

        In a batched transaction (PostgreSQL) it is only queued: it is sent with the next
        statement whose answer is read, or with ``COMMIT``, and its error, if any, is raised
        there. Elsewhere it runs now.
        """
        cursor, _ = self._run(connection, params, queue=True)
        if cursor is not None:
            cursor.close()


def _convert(compiled: _Compiled, raw: Sequence[Any]) -> Any:
    assert compiled.row is not None  # a statement with no columns returns no rows
    return compiled.row(
        *(
            value if process is None else process(value)
            for process, value in zip(compiled.results, raw, strict=True)
        )
    )


def _compile(statement: ClauseElement, dialect: Dialect) -> _Compiled:
    compiled = statement.compile(dialect=dialect)
    if not isinstance(compiled, SQLCompiler):
        raise TypeError(f"not a SQL statement: {statement!r}")
    defaults: dict[str, Any] = {}
    binds: dict[str, Processor] = {}
    for name, bind in compiled.binds.items():
        if not bind.required:
            defaults[name] = bind.effective_value
        process = bind.type.dialect_impl(dialect).bind_processor(dialect)
        if process is not None:
            binds[name] = process
    positional = tuple(compiled.positiontup or ()) if dialect.positional else None
    columns = list(getattr(statement, "exported_columns", ()))
    results = tuple(
        column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns
    )
    make_row: Any = namedtuple  # field names are only known here
    row = make_row("Row", [column.key for column in columns], rename=True) if columns else None
    server = _server_form(compiled, dialect) if dialect.paramstyle == "pyformat" else None
    return _Compiled(compiled.string, positional, defaults, binds, results, row, server)


_PYFORMAT = re.compile(r"%\((\w+)\)s|%%")


def _server_form(compiled: SQLCompiler, dialect: Dialect) -> _ServerForm | None:
    """``compiled`` (pyformat) as PostgreSQL's ``PREPARE`` takes it, or None if it cannot be."""
    if dialect.name != "postgresql":
        return None
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:
            return "%"  # a literal percent sign, doubled for the driver
        if name not in names:
            names.append(name)
        return f"${names.index(name) + 1}"

    sql = _PYFORMAT.sub(number, compiled.string)
    types = []
    for name in names:
        bind = compiled.binds.get(name)
        kind = None if bind is None else bind.type.dialect_impl(dialect)
        if kind is None or isinstance(kind, NullType):
            types.append("unknown")  # PostgreSQL infers it from where it is used
        else:
            types.append(dialect.type_compiler_instance.process(kind))
    declared = f" ({', '.join(types)})" if types else ""
    arguments = f"({', '.join(f'%({name})s' for name in names)})" if names else ""
    return _ServerForm(f"{declared} AS {sql}".encode(), arguments)
