"""``colour-collector audit verify``: check the hash chain of the audit log."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from colour_collector.cli.base import app

audit_app = typer.Typer(help="Audit log tools.", no_args_is_help=True)
app.add_typer(audit_app, name="audit")


def _default_url() -> str:
    from pydantic import ValidationError  # noqa: PLC0415

    from colour_collector.server.settings import Settings  # noqa: PLC0415

    try:
        return Settings().resolved_database_url
    except ValidationError as error:
        typer.echo(f"colour-collector audit verify: invalid settings: {error}", err=True)
        raise typer.Exit(2) from None


@audit_app.command("verify")
def verify(
    database_url: Annotated[
        str | None,
        typer.Option(
            help="Database to check (default: COLOUR_COLLECTOR_DATABASE_URL, or the SQLite"
            " file in the data directory).",
        ),
    ] = None,
) -> None:
    """Recompute every entry's hash and check the chain. Exit 1 on the first broken entry."""
    # The database stack is imported here so other commands start fast.
    from sqlalchemy import make_url  # noqa: PLC0415
    from sqlalchemy.exc import SQLAlchemyError  # noqa: PLC0415

    from colour_collector.service.audit import verify_chain  # noqa: PLC0415
    from colour_collector.service.errors import AuditChainBrokenError  # noqa: PLC0415
    from colour_collector.store import Database  # noqa: PLC0415

    url = database_url or _default_url()
    try:
        parsed = make_url(url)
    except Exception:
        typer.echo(f"colour-collector audit verify: not a database URL: {url!r}", err=True)
        raise typer.Exit(2) from None
    if (
        parsed.get_backend_name() == "sqlite"
        and parsed.database not in (None, "", ":memory:")
        and not Path(parsed.database or "").is_file()
    ):
        typer.echo(f"colour-collector audit verify: no database file {parsed.database}", err=True)
        raise typer.Exit(1)
    try:
        database = Database(url)
    except Exception as error:  # an unknown driver, a driver not supported...
        typer.echo(f"colour-collector audit verify: cannot open the database: {error}", err=True)
        raise typer.Exit(2) from None
    try:
        report = verify_chain(database)
    except AuditChainBrokenError as broken:
        typer.echo(f"BROKEN: audit entry seq={broken.seq}: {broken.reason}")
        raise typer.Exit(1) from None
    except SQLAlchemyError as error:
        typer.echo(
            f"colour-collector audit verify: cannot read the audit log: {error.__class__.__name__}:"
            f" {str(error).splitlines()[0]}",
            err=True,
        )
        raise typer.Exit(1) from None
    finally:
        database.dispose()
    typer.echo(f"OK: {report.entries} audit entries, chain intact (last hash {report.last_hash})")
