"""``colour-collector db``: the database's schema and its roles."""

from __future__ import annotations

from typing import Annotated

import typer

from colour_collector.cli.base import app, stop_command
from colour_collector.cli.database import open_database, shown_url

db_app = typer.Typer(help="Database tools.", no_args_is_help=True)
app.add_typer(db_app, name="db")


@db_app.command("migrate")
def migrate(
    database_url: Annotated[
        str | None,
        typer.Option(
            help="The database, as its tables' owner (default: the server's,"
            " COLOUR_COLLECTOR_DATABASE_URL or the SQLite file in the data directory)."
        ),
    ] = None,
) -> None:
    """Create or migrate the database's tables to the latest schema (as the tables' owner)."""
    with open_database("db migrate", database_url, create=True) as database:
        shown = shown_url(database)  # opening with ``create`` was the migration
    typer.echo(f"{shown}: migrated to the latest schema")


@db_app.command("grants")
def grants(
    app_role: Annotated[str, typer.Option(help="The PostgreSQL role the server connects as.")],
) -> None:
    """Print the SQL giving the server's role what it needs and no more (PostgreSQL; run it as
    the tables' owner after each migration)."""
    from colour_collector.store.roles import least_privilege_sql  # noqa: PLC0415

    try:
        typer.echo(least_privilege_sql(app_role), nl=False)
    except ValueError as error:
        stop_command("db grants", str(error))
