"""Alembic environment: online migrations only, with the engine settings of the store."""

from __future__ import annotations

from alembic import context

from colour_collector.store.database import make_engine
from colour_collector.store.migrate import render_item
from colour_collector.store.tables import metadata

config = context.config
url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
    "sqlalchemy.url"
)
if not url:
    raise RuntimeError("no database URL: set sqlalchemy.url or pass -x url=...")

engine = make_engine(url)
try:
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
            render_item=render_item,
        )
        with context.begin_transaction():
            context.run_migrations()
finally:
    engine.dispose()
