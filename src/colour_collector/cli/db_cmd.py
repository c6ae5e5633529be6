"""``colour-collector db``: the database's schema and its roles."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer

from colour_collector.cli.base import app, first_line

db_app = typer.Typer(help="Database tools.", no_args_is_help=True)
app.add_typer(db_app, name="db")


def _fail(command: str, message: str) -> NoReturn:
    typer.echo(f"colour-collector db {command}: {message}", err=True)
    raise typer.Exit(1)


@db_app.command("migrate")
def migrate(
    database_url: Annotated[str, typer.Option(help="The database, as its tables' owner.")],
) -> None:
    """Create or migrate the database's tables to the latest schema (as the tables' owner)."""
    from colour_collector.store import Database, upgrade_to_head  # noqa: PLC0415

    try:
        database = Database(database_url)
        try:
            database.ping()
        finally:
            database.dispose()
    except Exception as error:  # a bad URL, an unknown driver, an unreachable server...
        _fail("migrate", f"cannot open the database: {first_line(error)}")
    try:
        upgrade_to_head(database_url)
    except Exception as error:  # a role that may not create tables, a schema of another version...
        _fail("migrate", f"cannot migrate the database: {first_line(error)}")
    typer.echo("migrated to the latest schema")


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
        typer.echo(f"colour-collector db grants: {error}", err=True)
        raise typer.Exit(2) from None
