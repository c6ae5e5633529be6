"""Run the Alembic migrations shipped inside the package."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path
from typing import Literal

from alembic import command
from alembic.autogenerate.api import AutogenContext
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Engine, create_engine

from colour_collector.store.database import database_url
from colour_collector.store.tables import UtcDateTime

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
"""Where the migration scripts live (inside the installed package)."""


def render_item(kind: str, item: object, context: AutogenContext) -> str | Literal[False]:
    """Alembic's ``render_item`` hook: autogenerate writes our own column types by their name and
    imports them, where it would write ``colour_collector.store.tables.UtcDateTime(timezone=True)``
    without an import (``False``: Alembic's own rendering for everything else)."""
    if kind == "type" and isinstance(item, UtcDateTime):
        context.imports.add("from colour_collector.store.tables import UtcDateTime")
        return "UtcDateTime()"
    return False


def alembic_config(url: str) -> Config:
    """An Alembic configuration for ``url`` without needing an ``alembic.ini``."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # ConfigParser interpolation: a literal % in a password must be doubled.
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


class LaterSchemaError(RuntimeError):
    """The database is at a revision these migrations do not know: a later version of the game
    made or migrated it."""


def upgrade_to_head(url: str) -> None:
    """Create or migrate the database at ``url`` to the latest schema (idempotent). Raises
    :class:`LaterSchemaError` for a database of a later version of the game, which is never
    migrated down."""
    config = alembic_config(url)
    try:
        command.upgrade(config, "head")
    except CommandError as error:
        script = ScriptDirectory.from_config(config)
        engine = create_engine(database_url(url))
        try:
            found = current_revision(engine)
        finally:
            engine.dispose()
        known = {revision.revision for revision in script.walk_revisions()}
        if found is not None and found not in known:
            raise LaterSchemaError(
                f"the database is at schema revision {found!r}, which this version of"
                f" colour-collector ({version('colour-collector')}) does not know: a later"
                " version made or migrated it; run that version (a database is never migrated"
                " down)"
            ) from error
        raise


def head_revision() -> str:
    """The revision the shipped migrations end at."""
    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    if head is None:
        raise RuntimeError(f"no migrations found in {MIGRATIONS_DIR}")
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at (``None`` for an empty database)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
