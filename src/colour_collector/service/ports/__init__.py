"""What the use cases ask of storage, one port per aggregate, in the domain's words, and of the
services outside the game (mail, payments: ``outside``).

Each aggregate's ports are in a module of their own (``accounts``, ``wallet``, ``plays``,
``audit``, ``pools``, ``protection``, ``operators``), the unit of work over all of them in
``unit_of_work``. The use cases import them from here.

``colour_collector.store`` implements these on SQLite and PostgreSQL; ``tests/fakes.py`` in
memory. A unit of work is one database transaction: it rolls back unless
:meth:`UnitOfWork.commit` is called, and nothing in it commits by itself. A use case that moves
money or appends to the audit log does all its writes through one unit of work, so a purchase
debits the wallet, stores the play and appends the audit entry atomically.

Locks: a ``..._for_update`` read holds its row until the end of the transaction. Writers lock in
one order, everywhere: the account, then the pool on sale, then the play, then the audit chain's
head (appending to the audit log is the last write of a unit of work), so two units of work never
deadlock.
"""

from colour_collector.service.ports.accounts import (
    Accounts,
    ConfirmationTokens,
    LoginThrottle,
    MailThrottle,
)
from colour_collector.service.ports.audit import AuditChecks, AuditLog, CheckpointStore
from colour_collector.service.ports.operators import Operators, SalesFigures, SalesSwitch
from colour_collector.service.ports.outside import Mailer, PaymentProvider
from colour_collector.service.ports.plays import Plays, TryPlays
from colour_collector.service.ports.pools import Pools
from colour_collector.service.ports.protection import PlayerProtections
from colour_collector.service.ports.unit_of_work import UnitOfWork, UnitOfWorkFactory
from colour_collector.service.ports.wallet import Payments, Wallets

__all__ = [
    "Accounts",
    "AuditChecks",
    "AuditLog",
    "CheckpointStore",
    "ConfirmationTokens",
    "LoginThrottle",
    "MailThrottle",
    "Mailer",
    "Operators",
    "PaymentProvider",
    "Payments",
    "PlayerProtections",
    "Plays",
    "Pools",
    "SalesFigures",
    "SalesSwitch",
    "TryPlays",
    "UnitOfWork",
    "UnitOfWorkFactory",
    "Wallets",
]
