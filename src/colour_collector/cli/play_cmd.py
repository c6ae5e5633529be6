"""``colour-collector play``: generate one play, print its record, or play it in the terminal.

- ``--tier NAME`` asks for a play of that tier (``none`` or ``no-win`` for a losing play); without
  it the outcome is drawn from the pool (``IndependentDraw``), as at purchase.
- ``--seed S`` makes the draw and the play reproducible; without it the operating system's secure
  source is used.
- ``--json`` prints the record (``codec.dumps``, indent 2). Otherwise, when stdin and stdout are a
  terminal (or with ``--interactive``), the play is revealed step by step in the terminal;
  otherwise a one-line summary is printed.
"""

from __future__ import annotations

import random
import sys
from typing import Annotated

import typer

from colour_collector.cli.base import app
from colour_collector.game.codec import dumps
from colour_collector.game.draw import IndependentDraw, secure_rng
from colour_collector.game.generator import generate
from colour_collector.game.money import pounds
from colour_collector.game.pool import load_pool
from colour_collector.game.prize_table import Tier, UnknownTierError, tier_by_name
from colour_collector.game.replay import replay
from colour_collector.generator_cache import warm

NO_WIN_NAMES = frozenset({"none", "no-win", "no win", "nowin"})
"""Names of the losing outcome accepted by ``--tier`` (any case)."""


def parse_tier(name: str) -> Tier | None:
    """The tier called ``name``, or None for a no-win name; ``UnknownTierError`` otherwise."""
    if name.strip().lower() in NO_WIN_NAMES:
        return None
    return tier_by_name(name)


@app.command("play")
def play(
    tier_name: Annotated[
        str | None,
        typer.Option(
            "--tier",
            metavar="NAME",
            help="Prize tier exactly as printed (e.g. '£5', '£15 (£5 + £10)'), or 'none' for a "
            "losing play. Default: drawn from the pool. See `colour-collector prizes`.",
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", min=0, help="Seed (an integer >= 0) for a reproducible play."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the play record as JSON.")] = False,
    interactive: Annotated[
        bool,
        typer.Option("--interactive", help="Play in the terminal even when input is not a TTY."),
    ] = False,
) -> None:
    """Generate one play: print its record (--json) or play it in the terminal."""
    # The terminal game draws its screens with the server's presenter, about 0.2 s to import:
    # only this command pays for it, as only ``serve`` pays for the server.
    from colour_collector.cli.terminal import InputEndedError, Terminal  # noqa: PLC0415

    tier: Tier | None = None
    if tier_name is not None:
        try:
            tier = parse_tier(tier_name)
        except UnknownTierError:
            typer.echo(
                f"colour-collector play: invalid value for '--tier': no prize tier is named "
                f"{tier_name!r}. Run `colour-collector prizes` to see the tier names "
                "(or use 'none' for a losing play).",
                err=True,
            )
            raise typer.Exit(2) from None
    rng: random.Random = secure_rng() if seed is None else random.Random(seed)
    warm()  # the generator's tables from the cache on disk (a tier's own took 2 s to work out)
    if tier_name is None:
        tier = IndependentDraw(load_pool()).draw(rng)
    record = generate(tier, rng)
    if as_json:
        typer.echo(dumps(record, indent=2))
        return
    if interactive or (sys.stdin.isatty() and sys.stdout.isatty()):
        try:
            Terminal(record, rng, sys.stdin, sys.stdout).run()
        except (InputEndedError, KeyboardInterrupt):
            typer.echo("\ncolour-collector play: input ended before the play did.", err=True)
            raise typer.Exit(1) from None
        return
    result = replay(record)
    won = "no win" if result.tier is None else f"{pounds(result.prize)} ({result.tier.name})"
    typer.echo(f"Generated a play: {won}, {len(record.steps)} steps. Add --json for the record.")
