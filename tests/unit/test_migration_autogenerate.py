"""``alembic revision --autogenerate`` (docs/operations.md, Migrations) writes a migration that
runs as written: our own column types by their name, with their import."""

from __future__ import annotations

from alembic.autogenerate import produce_migrations, render_python_code
from alembic.autogenerate.api import AutogenContext
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Column, Integer, MetaData, Table, create_engine

from colour_collector.store.migrate import render_item
from colour_collector.store.tables import UtcDateTime


def test_a_timestamp_column_is_written_by_its_type_name_and_imported() -> None:
    metadata = MetaData()
    Table("notes", metadata, Column("id", Integer, primary_key=True), Column("at", UtcDateTime))
    engine = create_engine("sqlite://")
    with engine.connect() as connection:
        migration = MigrationContext.configure(
            connection, opts={"target_metadata": metadata, "render_item": render_item}
        )
        operations = produce_migrations(migration, metadata)
        code = render_python_code(operations.upgrade_ops, render_item=render_item)
        context = AutogenContext(migration, metadata)
    assert "sa.Column('at', UtcDateTime(), nullable=True)" in code
    assert "colour_collector" not in code
    assert render_item("type", UtcDateTime(), context) == "UtcDateTime()"
    assert context.imports == {"from colour_collector.store.tables import UtcDateTime"}


def test_other_types_are_left_to_alembic() -> None:
    with create_engine("sqlite://").connect() as connection:
        context = AutogenContext(MigrationContext.configure(connection))
    assert render_item("type", Integer(), context) is False
    assert render_item("column", Column("id", Integer), context) is False
    assert context.imports == set()
