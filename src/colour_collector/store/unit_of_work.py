"""The SQLAlchemy unit of work: one session, one transaction, rolled back unless committed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, Self

from sqlalchemy.orm import Session

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
    ``commit()`` (or with an exception) rolls everything back. ``uow.session`` is there for
    repositories added later (plays, reveals) that must share the transaction.
    """

    accounts: SqlAccountRepository
    sessions: SqlSessionRepository
    login_attempts: SqlLoginAttemptRepository
    ledger: SqlLedgerRepository
    audit: SqlAuditRepository
    plays: SqlPlayRepository
    tries: SqlTryRepository
    pool: SqlPoolRepository
    session: Session

    def __init__(
        self, session_factory: Callable[[], Session], execution_options: Mapping[str, Any]
    ) -> None:
        self._session_factory = session_factory
        self._execution_options = dict(execution_options)

    def __enter__(self) -> Self:
        self.session = self._session_factory()
        # Open the transaction now, with the right BEGIN on SQLite.
        self.session.connection(execution_options=self._execution_options)
        self.accounts = SqlAccountRepository(self.session)
        self.sessions = SqlSessionRepository(self.session)
        self.login_attempts = SqlLoginAttemptRepository(self.session)
        self.ledger = SqlLedgerRepository(self.session)
        self.audit = SqlAuditRepository(self.session)
        self.plays = SqlPlayRepository(self.session)
        self.tries = SqlTryRepository(self.session)
        self.pool = SqlPoolRepository(self.session)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.session.rollback()
        finally:
            self.session.close()

    def commit(self) -> None:
        """Commit the transaction; later writes in the block start a new one."""
        self.session.commit()

    def rollback(self) -> None:
        """Roll the transaction back."""
        self.session.rollback()
