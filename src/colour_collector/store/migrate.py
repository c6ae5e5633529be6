"""Run the Alembic migrations shipped inside the package."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
"""Where the migration scripts live (inside the installed package)."""


def alembic_config(url: str) -> Config:
    """An Alembic configuration for ``url`` without needing an ``alembic.ini``."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # ConfigParser interpolation: a literal % in a password must be doubled.
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade_to_head(url: str) -> None:
    """Create or migrate the database at ``url`` to the latest schema (idempotent)."""
    command.upgrade(alembic_config(url), "head")


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
