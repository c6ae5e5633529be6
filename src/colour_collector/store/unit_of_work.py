"""The SQLAlchemy unit of work: one connection, one transaction, rolled back unless committed.

It works on a Core :class:`~sqlalchemy.Connection`: the repositories run Core statements and map
rows to the service's frozen records themselves, so no ORM identity map sits between a request
and the rows it reads.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self

from sqlalchemy import Connection, Engine

from colour_collector.store.accounts import SqlAccounts, SqlLoginThrottle
from colour_collector.store.audit_checks import SqlAuditChecks
from colour_collector.store.audit_log import SqlAuditLog
from colour_collector.store.operators import SqlOperators
from colour_collector.store.payments import SqlPayments
from colour_collector.store.plays import SqlPlays, SqlTryPlays
from colour_collector.store.prize_pools import SqlPrizePools
from colour_collector.store.protection import SqlPlayerProtections
from colour_collector.store.sales import SqlSalesFigures, SqlSalesSwitch
from colour_collector.store.wallets import SqlWallets


class SqlUnitOfWork:
    """Implements :class:`colour_collector.service.ports.UnitOfWork`.

    ``with database() as uow: ...; uow.commit()``: leaving the block without ``commit()`` (or
    with an exception) rolls everything back.
    """

    accounts: SqlAccounts
    login_throttle: SqlLoginThrottle
    wallets: SqlWallets
    plays: SqlPlays
    tries: SqlTryPlays
    audit: SqlAuditLog
    pool: SqlPrizePools
    protection: SqlPlayerProtections
    sales: SqlSalesSwitch
    payments: SqlPayments
    operators: SqlOperators
    figures: SqlSalesFigures
    audit_checks: SqlAuditChecks

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def __enter__(self) -> Self:
        connection = self._engine.connect()
        try:
            connection.begin()
        except BaseException:
            connection.close()
            raise
        self.connection: Connection = connection
        self.accounts = SqlAccounts(connection)
        self.login_throttle = SqlLoginThrottle(connection)
        self.wallets = SqlWallets(connection)
        self.plays = SqlPlays(connection)
        self.tries = SqlTryPlays(connection)
        self.audit = SqlAuditLog(connection)
        self.pool = SqlPrizePools(connection)
        self.protection = SqlPlayerProtections(connection)
        self.sales = SqlSalesSwitch(connection)
        self.payments = SqlPayments(connection)
        self.operators = SqlOperators(connection)
        self.figures = SqlSalesFigures(connection)
        self.audit_checks = SqlAuditChecks(connection)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self.connection.in_transaction():
                self.connection.rollback()
        finally:
            self.connection.close()

    def commit(self) -> None:
        """Commit the transaction (durably: see ``store.database``)."""
        self.connection.commit()
