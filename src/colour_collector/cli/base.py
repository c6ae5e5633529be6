"""The Typer application that every command module registers itself on, and how every command
stops: its exit statuses, its message, the server's settings it reads.

Exit status, for every command: 0 done; 1 the command ran and the answer is no (a check failed, an
operation was refused); 2 the command could not run (bad arguments, among them an id or a name
that names nothing, unreadable files, settings, a database or server that is not there or cannot
be used), as ``cmp`` and ``diff`` do. A script can tell "broken" from "not checked". 3 (``pool
close`` only): done in part, the rest must wait; run the command again later.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

import typer

if TYPE_CHECKING:
    from pydantic import ValidationError

    from colour_collector.server.settings import Settings

FAILED = 1
"""Exit status of a command that ran and found something wrong or refused."""
UNUSABLE = 2
"""Exit status of a command that could not run."""
PENDING = 3
"""Exit status of a command that did part of what was asked and must be run again later for the
rest (``pool close`` while plays of the pool are in progress: the sale is stopped, the secret not
published yet)."""

app = typer.Typer(
    name="colour-collector",
    help="Colour Collector: operator and player tools.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Markdown joins a docstring's lines into paragraphs (Rich markup kept each line break of
    # every paragraph after the first, cutting sentences in the middle of the help).
    rich_markup_mode="markdown",
)


@app.callback()
def _root() -> None:
    """Colour Collector: operator and player tools."""


def first_line(error: BaseException) -> str:
    """The first line of ``error``'s message (SQLAlchemy adds the statement, a link...), or the
    name of its type if it says nothing."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def stop_command(command: str, message: str, status: int = UNUSABLE) -> NoReturn:
    """Say on stderr why ``colour-collector <command>`` stops, and exit with ``status``."""
    typer.echo(f"colour-collector {command}: {message}", err=True)
    raise typer.Exit(status)


def server_settings(command: str) -> Settings:
    """The server's settings (its environment variables), or stop naming what is wrong."""
    from pydantic import ValidationError  # noqa: PLC0415

    from colour_collector.server.settings import Settings  # noqa: PLC0415

    try:
        return Settings()
    except ValidationError as error:
        stop_command(command, settings_error(error))


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
