"""Storage: SQLAlchemy tables, repositories, the unit of work and the Alembic migrations.

Public entry points: :class:`Database` (``db.unit_of_work()``), :func:`upgrade_to_head`.
"""

from colour_collector.store.database import Database, make_engine
from colour_collector.store.migrate import upgrade_to_head
from colour_collector.store.unit_of_work import SqlUnitOfWork

__all__ = ["Database", "SqlUnitOfWork", "make_engine", "upgrade_to_head"]
