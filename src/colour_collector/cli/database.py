"""The database a command works on, opened the same way by every command.

It is the server's (``COLOUR_COLLECTOR_DATABASE_URL``, or the SQLite file in the data directory)
unless ``--database-url`` names another. A command that only reads refuses an SQLite file that is
not there rather than let SQLite create an empty database; a command that writes (``create``)
makes it and migrates it to the latest schema first, as the server does when it starts. Every
way the database can fail the command (not a URL, not there, not reachable, not migrated, a role
that may not read) stops it with one line saying so and exit status 2; a row the command cannot
read (altered by hand, or damaged: ``DamagedRowError``) stops it with one line naming the row and
exit status 1, as a failed check.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from colour_collector.cli.base import FAILED, first_line, server_settings, stop_command

if TYPE_CHECKING:
    from sqlalchemy import URL

    from colour_collector.server.settings import Settings
    from colour_collector.store import Database

DatabaseUrl = Annotated[
    str | None,
    typer.Option(
        help="The database (default: the server's, COLOUR_COLLECTOR_DATABASE_URL or the SQLite"
        " file in the data directory).",
    ),
]
"""The ``--database-url`` option of every command that works on the server's database."""


def missing_database_file(url: URL) -> str | None:
    """The file an SQLite ``url`` names when there is no such file, else ``None`` (another
    database, an in-memory one, or a file that is there)."""
    database = url.database or ""
    if url.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return None
    if database.startswith("file:") or Path(database).is_file():
        return None
    return database


def shown_url(database: Database) -> str:
    """The database's URL as a command prints it: without its password."""
    return database.engine.url.render_as_string(hide_password=True)


@contextmanager
def open_database(
    command: str,
    url: str | None = None,
    *,
    create: bool = False,
    settings: Settings | None = None,
) -> Iterator[Database]:
    """The database ``url`` names (by default the server's, from ``settings`` or the
    environment), answering a query; with ``create``, made and migrated first. A database error
    inside the block stops the command too."""
    # The database stack is imported here so that the commands without one start fast.
    from sqlalchemy import make_url  # noqa: PLC0415
    from sqlalchemy.exc import SQLAlchemyError  # noqa: PLC0415

    from colour_collector.service.errors import DamagedRowError  # noqa: PLC0415
    from colour_collector.store import Database, upgrade_to_head  # noqa: PLC0415
    from colour_collector.store.migrate import current_revision  # noqa: PLC0415

    target = url or (settings or server_settings(command)).resolved_database_url
    try:
        parsed = make_url(target)
    except Exception:  # SQLAlchemy raises several kinds for a bad URL
        stop_command(command, f"not a database URL: {target!r}")
    missing = missing_database_file(parsed)
    if missing is not None:
        if not create:
            stop_command(
                command,
                f"no database file {missing} (the server makes it when it first starts, and so"
                " does colour-collector db migrate)",
            )
        Path(missing).parent.mkdir(parents=True, exist_ok=True)
        typer.echo(
            f"colour-collector {command}: no database file {missing}: making a new one (is"
            " COLOUR_COLLECTOR_DATA_DIR or --database-url the server's?)",
            err=True,
        )
    try:
        database = Database(target)
    except Exception as error:  # an unknown driver, a driver not installed...
        stop_command(command, f"cannot open the database: {first_line(error)}")
    try:
        try:
            database.ping()
        except Exception as error:  # a server that does not answer, a login refused...
            stop_command(command, f"cannot open the database: {first_line(error)}")
        if create:
            try:
                upgrade_to_head(target)
            except Exception as error:  # a role that may not create tables, a later schema...
                stop_command(command, f"cannot migrate the database: {first_line(error)}")
        elif current_revision(database.engine) is None:
            shown = shown_url(database)
            stop_command(
                command,
                f"the database {shown} has no tables of the game: it was never migrated (the"
                " server migrates it when it starts, and so does colour-collector db migrate)",
            )
        yield database
    except SQLAlchemyError as error:  # a database never migrated, a role that may not read...
        stop_command(command, f"cannot read the database: {first_line(error)}")
    except DamagedRowError as error:
        stop_command(command, str(error), FAILED)
    finally:
        database.dispose()
