"""The SQLAlchemy unit of work: one connection, one transaction, rolled back unless committed.

It works on a Core :class:`~sqlalchemy.Connection`, not an ORM ``Session``: the repositories
run prepared Core statements and map rows themselves, and a ``Session`` only added its own
bookkeeping to every statement.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any, Self

from sqlalchemy import Connection

from colour_collector.store import batch
from colour_collector.store.play_repositories import (
    SqlPlayRepository,
    SqlPoolRepository,
    SqlTryRepository,
)
from colour_collector.store.repositories import (
    SqlAccountRepository,
    SqlAuditRepository,
    SqlLedgerRepository,
    SqlLoginAttemptRepository,
    SqlSessionRepository,
)


class SqlUnitOfWork:
    """Implements :class:`colour_collector.service.ports.UnitOfWork`.

    Use as ``with db.unit_of_work() as uow: ...; uow.commit()``. Leaving the block without
    ``commit()`` (or with an exception) rolls everything back. ``uow.connection`` is there for
    repositories added later that must share the transaction.
    """

    accounts: SqlAccountRepository
    sessions: SqlSessionRepository
    login_attempts: SqlLoginAttemptRepository
    ledger: SqlLedgerRepository
    audit: SqlAuditRepository
    plays: SqlPlayRepository
    tries: SqlTryRepository
    pool: SqlPoolRepository
    connection: Connection

    def __init__(
        self,
        connect: Callable[[], Connection],
        release: Callable[[Connection], None],
        execution_options: Mapping[str, Any],
        gate: AbstractContextManager[None] | None = None,
        *,
        batched: bool = False,
    ) -> None:
        self._connect = connect
        self._release = release
        self._execution_options = dict(execution_options)
        self._gate = gate
        self._batched = batched

    def __enter__(self) -> Self:
        if self._gate is not None:
            self._gate.__enter__()
        try:
            self.connection = self._connect()
            try:
                if self._execution_options:
                    self.connection.execution_options(**self._execution_options)
                if self._batched:  # PostgreSQL: BEGIN is queued, sent with the first read
                    batch.start(self.connection)
                else:  # open the transaction now, with the right BEGIN on SQLite
                    self.connection.begin()
            except BaseException:
                self.connection.close()  # not kept for reuse: it may be broken
                raise
        except BaseException:
            if self._gate is not None:
                self._gate.__exit__(None, None, None)
            raise
        connection = self.connection
        self.accounts = SqlAccountRepository(connection)
        self.sessions = SqlSessionRepository(connection)
        self.login_attempts = SqlLoginAttemptRepository(connection)
        self.ledger = SqlLedgerRepository(connection)
        self.audit = SqlAuditRepository(connection)
        self.plays = SqlPlayRepository(connection)
        self.tries = SqlTryRepository(connection)
        self.pool = SqlPoolRepository(connection)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            try:
                self.rollback()
            except BaseException:
                self.connection.close()  # it may be broken: not kept for reuse
                raise
            self._release(self.connection)
        finally:
            if self._gate is not None:
                self._gate.__exit__(None, None, None)

    def commit(self) -> None:
        """Commit the transaction; later writes in the block start a new one."""
        batch.end(self.connection, commit=True)
        if self.connection.in_transaction():  # SQLAlchemy's own, or not batched
            self.connection.commit()

    def rollback(self) -> None:
        """Roll the transaction back."""
        batch.end(self.connection, commit=False)
        if self.connection.in_transaction():
            self.connection.rollback()
