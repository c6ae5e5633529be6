"""One transaction over every aggregate, and what opens one."""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Protocol, Self

from colour_collector.service.ports.accounts import (
    Accounts,
    ConfirmationTokens,
    LoginThrottle,
    MailThrottle,
)
from colour_collector.service.ports.audit import AuditChecks, AuditLog
from colour_collector.service.ports.operators import Operators, SalesFigures, SalesSwitch
from colour_collector.service.ports.plays import Plays, TryPlays
from colour_collector.service.ports.pools import Pools
from colour_collector.service.ports.protection import PlayerProtections
from colour_collector.service.ports.wallet import Payments, Wallets


class UnitOfWork(Protocol):
    """One transaction over every aggregate. Rolls back on exit unless committed."""

    @property
    def accounts(self) -> Accounts:
        """Accounts and sessions."""
        ...

    @property
    def login_throttle(self) -> LoginThrottle:
        """Failed logins."""
        ...

    @property
    def confirmations(self) -> ConfirmationTokens:
        """The tokens of the links mailed to confirm accounts and reset passwords."""
        ...

    @property
    def mail_throttle(self) -> MailThrottle:
        """E-mails asked for, per address."""
        ...

    @property
    def wallets(self) -> Wallets:
        """The wallet ledger."""
        ...

    @property
    def plays(self) -> Plays:
        """Purchased plays."""
        ...

    @property
    def tries(self) -> TryPlays:
        """Free Try plays."""
        ...

    @property
    def audit(self) -> AuditLog:
        """The audit log."""
        ...

    @property
    def pools(self) -> Pools:
        """Prize pools."""
        ...

    @property
    def protection(self) -> PlayerProtections:
        """Players' deposit limits, exclusions and reality checks."""
        ...

    @property
    def sales(self) -> SalesSwitch:
        """The sales switch."""
        ...

    @property
    def payments(self) -> Payments:
        """Deposits and withdrawals through the payment provider."""
        ...

    @property
    def operators(self) -> Operators:
        """Operator accounts and console sessions."""
        ...

    @property
    def figures(self) -> SalesFigures:
        """What the game has sold and paid."""
        ...

    @property
    def audit_checks(self) -> AuditChecks:
        """Results of verifying the audit chain."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def commit(self) -> None:
        """Make every write of this unit of work durable, at once."""
        ...


UnitOfWorkFactory = Callable[[], UnitOfWork]
"""Opens a unit of work: ``with factory() as uow: ...; uow.commit()``."""
