"""The Typer application that every command module registers itself on, and what the commands
that open a database share."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from pydantic import ValidationError
    from sqlalchemy import URL

app = typer.Typer(
    name="colour-collector",
    help="Colour Collector: operator and player tools.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Colour Collector: operator and player tools."""


def first_line(error: BaseException) -> str:
    """The first line of ``error``'s message (SQLAlchemy adds the statement, a link...), or the
    name of its type if it says nothing."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def missing_database_file(url: URL) -> str | None:
    """The file an SQLite ``url`` names when there is no such file, else ``None`` (another
    database, an in-memory one, or a file that is there). A command that only reads refuses it
    rather than let SQLite create an empty database there."""
    database = url.database or ""
    if url.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return None
    if database.startswith("file:") or Path(database).is_file():
        return None
    return database


def settings_error(error: ValidationError) -> str:
    """What is wrong with the settings, each problem under the environment variable to change
    (a problem of several settings together names them in its message)."""
    from colour_collector.server.settings import Settings  # noqa: PLC0415

    prefix = Settings.model_config.get("env_prefix") or ""
    lines = []
    for item in error.errors():
        location = item.get("loc", ())
        where = f"{prefix}{location[0]}".upper() if location else "settings"
        message = str(item.get("msg", "invalid")).removeprefix("Value error, ")
        lines.append(f"  {where}: {message}")
    return "invalid settings:\n" + "\n".join(lines)
