"""``colour-collector operator add|list|disable``: operator accounts for the console.

Operators are created here only, by someone who can reach the database, never over HTTP::

    colour-collector operator add alice --role manager          # asks for the password twice
    printf '%s\\n' "$PASSWORD" | colour-collector operator add bob --role support --password-stdin
    colour-collector operator list
    colour-collector operator disable bob      # bob can no longer log in; his sessions end

The database is the server's (``COLOUR_COLLECTOR_DATABASE_URL`` or the SQLite file in the data
directory): ``add`` creates and migrates it first if needed, ``list`` only reads one that is
there. The password is hashed with the server's settings.
Creating and disabling an operator are audited.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from colour_collector.cli.base import FAILED, app, server_settings, stop_command
from colour_collector.cli.database import DatabaseUrl, open_database, shown_url
from colour_collector.service.protection_models import OperatorRole

operator_app = typer.Typer(help="Operator accounts for the console.", no_args_is_help=True)
app.add_typer(operator_app, name="operator")


def _password(password_stdin: bool) -> str:
    if password_stdin:
        entered = sys.stdin.readline().rstrip("\r\n")
    elif not sys.stdin.isatty():  # a prompt would echo the password, and warn that it might
        stop_command(
            "operator add", "no terminal to ask the password on: pipe it with --password-stdin"
        )
    else:
        entered = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    try:
        entered.encode("utf-8")  # bytes that are not UTF-8 arrive as lone surrogates
    except UnicodeEncodeError:
        stop_command("operator add", "the password is not UTF-8 text")
    return entered


@operator_app.command("add")
def add(
    name: Annotated[
        str, typer.Argument(help="Login name: 3 to 64 of a-z 0-9 . - _, starting with a letter")
    ],
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

    settings = server_settings("operator add")
    try:
        cleaned = operators.check_name(name)
    except ServiceError as error:
        stop_command("operator add", str(error))
    password = _password(password_stdin)
    if not operators.MIN_PASSWORD_LENGTH <= len(password) <= operators.MAX_PASSWORD_LENGTH:
        stop_command(
            "operator add",
            f"the password must be {operators.MIN_PASSWORD_LENGTH} to"
            f" {operators.MAX_PASSWORD_LENGTH} characters",
        )
    passwords = Passwords(
        time_cost=settings.password_hash_time_cost,
        memory_kib=settings.password_hash_memory_kib,
        parallelism=settings.password_hash_parallelism,
    )
    with open_database("operator add", database_url, create=True, settings=settings) as database:
        shown = shown_url(database)
        try:
            made = operators.add(database, passwords, name=cleaned, password=password, role=role)
        except ServiceError as error:
            stop_command("operator add", str(error), FAILED)
    typer.echo(f"Operator {made.name!r} created with the role {made.role.value!r} in {shown}.")


@operator_app.command("list")
def list_operators(database_url: DatabaseUrl = None) -> None:
    """List the operator accounts and their roles (creates nothing: the database must be there)."""
    with open_database("operator list", database_url) as database, database() as uow:
        found = uow.operators.all()
    if not found:
        typer.echo("No operators yet: colour-collector operator add NAME --role manager")
        return
    for operator in found:
        disabled = operator.disabled_at
        typer.echo(
            f"{operator.name}\t{operator.role.value}\tcreated {operator.created_at:%Y-%m-%d}"
            + ("" if disabled is None else f"\tdisabled {disabled:%Y-%m-%d %H:%M}")
        )


@operator_app.command("disable")
def disable(
    name: Annotated[str, typer.Argument(help="The operator's login name.")],
    database_url: DatabaseUrl = None,
) -> None:
    """Disable an operator account: it can no longer log in to the console, and its console
    sessions end now. The account stays, as the audit log names it."""
    from colour_collector.service import operators  # noqa: PLC0415
    from colour_collector.service.errors import NotFoundError, ServiceError  # noqa: PLC0415

    try:
        cleaned = operators.check_name(name)
    except ServiceError as error:
        stop_command("operator disable", str(error))
    with open_database("operator disable", database_url) as database:
        try:
            done = operators.disable(database, cleaned)
        except NotFoundError as error:  # a name that names nothing: a bad argument
            stop_command("operator disable", str(error))
    since = "" if done.disabled_at is None else f" (since {done.disabled_at:%Y-%m-%d %H:%M} UTC)"
    typer.echo(
        f"Operator {done.name!r} is disabled{since}: it can no longer log in to the console."
    )
