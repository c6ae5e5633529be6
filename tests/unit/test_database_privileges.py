"""Every table says what the server's PostgreSQL role may do to it (``store.roles``), checked
without a database: a table added without an entry fails here, not only on PostgreSQL."""

from __future__ import annotations

from colour_collector.store.roles import PRIVILEGES, least_privilege_sql
from colour_collector.store.tables import metadata


def test_every_table_and_only_the_tables_have_privileges_listed() -> None:
    assert set(PRIVILEGES) == set(metadata.tables)
    grants = least_privilege_sql("colour_app")
    for table in metadata.tables:
        assert f" ON {table} TO colour_app;" in grants
