"""Storage: SQLAlchemy tables, one repository per aggregate, the unit of work and the Alembic
migrations.

Public entry points: :class:`Database` (``database()`` opens a unit of work),
:func:`upgrade_to_head`.
"""

from colour_collector.store.database import Database, database_url, make_engine
from colour_collector.store.migrate import upgrade_to_head
from colour_collector.store.unit_of_work import SqlUnitOfWork

__all__ = ["Database", "SqlUnitOfWork", "database_url", "make_engine", "upgrade_to_head"]
