"""``colour-collector operator add|list``: operator accounts for the console.

Operators are created here only, by someone who can reach the database, never over HTTP::

    colour-collector operator add alice --role manager          # asks for the password twice
    printf '%s\\n' "$PASSWORD" | colour-collector operator add bob --role support --password-stdin
    colour-collector operator list

The database is the server's (``COLOUR_COLLECTOR_DATABASE_URL`` or the SQLite file in the data
directory): ``add`` creates and migrates it first if needed, ``list`` only reads one that is
there. The password is hashed with the server's settings.
Creating an operator is audited.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from colour_collector.cli.base import app, first_line, missing_database_file, settings_error
from colour_collector.service.protection_models import OperatorRole

if TYPE_CHECKING:
    from colour_collector.server.settings import Settings
    from colour_collector.store import Database

operator_app = typer.Typer(help="Operator accounts for the console.", no_args_is_help=True)
app.add_typer(operator_app, name="operator")

DatabaseUrl = Annotated[
    str | None,
    typer.Option(
        help="Database (default: COLOUR_COLLECTOR_DATABASE_URL, or the SQLite file in the data"
        " directory).",
    ),
]


def _fail(command: str, message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"colour-collector operator {command}: {message}", err=True)
    return typer.Exit(code)


def _settings(command: str) -> Settings:
    from pydantic import ValidationError  # noqa: PLC0415

    from colour_collector.server.settings import Settings  # noqa: PLC0415

    try:
        return Settings()
    except ValidationError as error:
        raise _fail(command, settings_error(error)) from None


def _database(command: str, settings: Settings, url: str | None, *, create: bool) -> Database:
    """The database, created and migrated first with ``create``; without, one that is there
    already (an SQLite file that is not is refused, not made)."""
    from sqlalchemy import make_url  # noqa: PLC0415

    from colour_collector.store import Database, upgrade_to_head  # noqa: PLC0415

    target = url or settings.resolved_database_url
    try:
        missing = missing_database_file(make_url(target))
    except Exception as error:  # SQLAlchemy raises several kinds for a bad URL
        raise _fail(command, f"cannot open the database: {first_line(error)}", 1) from None
    if missing is not None and not create:
        raise _fail(command, f"no database file {missing}", 1)
    if create and not url and not settings.database_url:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    try:
        if create:
            upgrade_to_head(target)
        database = Database(target)
    except Exception as error:  # a bad URL, an unknown driver, an unreachable server...
        raise _fail(command, f"cannot open the database: {first_line(error)}", 1) from None
    try:
        database.ping()
    except Exception as error:  # a server that cannot be reached, a login refused...
        database.dispose()
        raise _fail(command, f"cannot open the database: {first_line(error)}", 1) from None
    return database


def _password(password_stdin: bool) -> str:
    if password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if not sys.stdin.isatty():  # a prompt would echo the password, and warn that it might
        raise _fail("add", "no terminal to ask the password on: pipe it with --password-stdin")
    entered: str = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    return entered


@operator_app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="Login name: 3 to 64 of a-z 0-9 . - _")],
    role: Annotated[
        OperatorRole,
        typer.Option(
            case_sensitive=False,
            help="viewer: the game's state and figures; support: also player look-up and the"
            " tables; manager: also the sales switch and audit verification.",
        ),
    ],
    password_stdin: Annotated[
        bool, typer.Option(help="Read the password from the first line of standard input.")
    ] = False,
    database_url: DatabaseUrl = None,
) -> None:
    """Create an operator account (the password is asked for twice, or read from stdin)."""
    from colour_collector.service import operators  # noqa: PLC0415
    from colour_collector.service.accounts import Passwords  # noqa: PLC0415
    from colour_collector.service.errors import ServiceError  # noqa: PLC0415

    settings = _settings("add")
    try:
        cleaned = operators.check_name(name)
    except ServiceError as error:
        raise _fail("add", str(error)) from None
    password = _password(password_stdin)
    if not operators.MIN_PASSWORD_LENGTH <= len(password) <= operators.MAX_PASSWORD_LENGTH:
        raise _fail(
            "add",
            f"the password must be {operators.MIN_PASSWORD_LENGTH} to"
            f" {operators.MAX_PASSWORD_LENGTH} characters",
        )
    passwords = Passwords(
        time_cost=settings.password_hash_time_cost,
        memory_kib=settings.password_hash_memory_kib,
        parallelism=settings.password_hash_parallelism,
    )
    database = _database("add", settings, database_url, create=True)
    try:
        made = operators.add(database, passwords, name=cleaned, password=password, role=role)
    except ServiceError as error:
        raise _fail("add", str(error), 1) from None
    finally:
        database.dispose()
    typer.echo(f"Operator {made.name!r} created with the role {made.role.value!r}.")


@operator_app.command("list")
def list_operators(database_url: DatabaseUrl = None) -> None:
    """List the operator accounts and their roles (creates nothing: the database must be there)."""
    from sqlalchemy.exc import SQLAlchemyError  # noqa: PLC0415

    database = _database("list", _settings("list"), database_url, create=False)
    try:
        with database() as uow:
            found = uow.operators.all()
    except SQLAlchemyError as error:  # a database never migrated, a role that may not read...
        raise _fail("list", f"cannot read the database: {first_line(error)}", 1) from None
    finally:
        database.dispose()
    if not found:
        typer.echo("No operators yet: colour-collector operator add NAME --role manager")
        return
    for operator in found:
        typer.echo(
            f"{operator.name}\t{operator.role.value}\tcreated {operator.created_at:%Y-%m-%d}"
        )
