"""The Typer application that every command module registers itself on."""

from __future__ import annotations

import typer

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
