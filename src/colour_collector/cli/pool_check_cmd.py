"""``colour-collector pool check``: any play of a pool regenerated from its published secret and
checked against the commitment published before the sale (docs/pools.md), by a player or a lab
with nothing but the pool's description."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from colour_collector.cli.base import FAILED, stop_command
from colour_collector.cli.pool_base import (
    pool_app,
    read_pool_file,
    read_sha256,
    read_source,
    refuse,
    require_versions,
)
from colour_collector.cli.progress import progress_bar
from colour_collector.game.money import pounds

if TYPE_CHECKING:
    from colour_collector.game.pool_parameters import PoolParameters

MAX_INFO_BYTES = 1 << 20
"""Largest pool description read from a file or a server."""


@dataclass(frozen=True, slots=True)
class PublishedPool:
    """What ``check`` needs of a pool: its commitment and parameters, and any secret known."""

    commitment: str
    """The commitment published before the sale."""
    parameters: PoolParameters
    """Its parameters."""
    secret: str | None
    """The published secret (or the pool file's), if known."""
    dealt: int | None = None
    """Plays sold from it, as the server describes it (None from a pool file)."""


def _published(source: str) -> PublishedPool:
    from colour_collector.game.pool_file import FORMAT  # noqa: PLC0415
    from colour_collector.game.pool_parameters import PoolDealError, PoolParameters  # noqa: PLC0415

    data = read_source(source, "check", MAX_INFO_BYTES + 1)
    if len(data) > MAX_INFO_BYTES:
        stop_command("pool check", f"{source!r} is too large to be a pool's description")
    try:
        info = json.loads(data)
    except RecursionError:
        stop_command("pool check", f"{source!r} cannot be read: it is nested too deeply")
    except ValueError:
        stop_command("pool check", f"{source!r} is not JSON")
    if isinstance(info, dict) and info.get("format") == FORMAT:
        pool = read_pool_file(source, "check")
        return PublishedPool(pool.commitment, pool.parameters, pool.secret.hex())
    if not isinstance(info, dict) or not {"commitment", "parameters"} <= set(info):
        stop_command(
            "pool check",
            f"{source!r} is neither a pool file nor a pool as the server describes it"
            " (GET /api/pools/ID)",
        )
    commitment, parameters, secret = info["commitment"], info["parameters"], info.get("secret")
    if not isinstance(commitment, str) or not isinstance(parameters, str):
        stop_command("pool check", f"{source!r}: 'commitment' and 'parameters' must be strings")
    if secret is not None and not isinstance(secret, str):
        stop_command("pool check", f"{source!r}: 'secret' must be hex text or null, not {secret!r}")
    try:
        read = PoolParameters.from_text(parameters)
    except PoolDealError as error:
        stop_command("pool check", f"{source!r}: {error}")
    dealt = info.get("dealt")
    if dealt is not None and (isinstance(dealt, bool) or not isinstance(dealt, int) or dealt < 0):
        stop_command("pool check", f"{source!r}: 'dealt' must be a whole number, not {dealt!r}")
    return PublishedPool(commitment.strip().lower(), read, secret, dealt)


@pool_app.command("check")
def check(
    pool: Annotated[
        str,
        typer.Option(
            "--pool",
            help="The pool as the server publishes it: the address of GET /api/pools/ID, or that"
            " answer saved to a file (a pool file works too).",
        ),
    ],
    *,
    position: Annotated[int, typer.Option(min=0, help="The play's position in the pool.")],
    secret_text: Annotated[
        str | None,
        typer.Option(
            "--secret", help="The pool's secret (default: the one the pool description holds)."
        ),
    ] = None,
    expect_sha256: Annotated[
        str | None,
        typer.Option(help="Also check the play is this one: its record SHA-256, from recall."),
    ] = None,
    expected_commitment: Annotated[
        str | None,
        typer.Option(
            "--commitment",
            help="The commitment you saw before the sale (the lobby, the start screen, a"
            " newspaper): the pool must still publish this one.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Regenerate the play at a position from the pool's secret, and check the secret against
    the commitment the pool publishes (with --commitment, also that this is the commitment
    published before the sale).

    Exits 1 if the commitment is not the one given, the secret does not match it, the play does
    not replay to its outcome, or it is not the play with --expect-sha256; 2 if it cannot check
    (among others, a --commitment or --expect-sha256 that is not a SHA-256, or a pool whose
    secret is not published yet).
    """
    import hashlib  # noqa: PLC0415

    from colour_collector.game import codec  # noqa: PLC0415
    from colour_collector.game.errors import GameError  # noqa: PLC0415
    from colour_collector.game.pool_deal import (  # noqa: PLC0415
        Dealer,
        commitment,
        outcome_of,
        play_at,
        remaining_at,
        secret_from_hex,
    )
    from colour_collector.game.pool_parameters import PoolDealError  # noqa: PLC0415
    from colour_collector.game.replay import replay  # noqa: PLC0415

    seen = read_sha256(expected_commitment, "check")
    wanted_sha256 = read_sha256(expect_sha256, "check", "--expect-sha256")
    published = _published(pool)
    text = published.secret if secret_text is None else secret_text
    if text is None:
        stop_command(
            "pool check",
            "the pool's secret is not published yet (it is once the pool is closed and every"
            " play of it is finished)",
        )
    try:
        secret = secret_from_hex(text)
    except PoolDealError as error:
        stop_command("pool check", f"--secret: {error}")
    parameters = published.parameters
    if seen is not None and seen != published.commitment:
        refuse(
            f"the pool publishes the commitment {published.commitment}, not the one you saw"
            f" before the sale ({seen!r})",
            as_json,
            commitment=published.commitment,
            position=position,
        )
    if commitment(secret, parameters) != published.commitment:
        refuse(
            f"this secret and these parameters do not match the commitment"
            f" {published.commitment}: one of them is not what the pool was fixed with before"
            " its sale",
            as_json,
            commitment=published.commitment,
            position=position,
        )
    require_versions(parameters, "check")
    if position >= parameters.size:
        stop_command(
            "pool check", f"--position must be 0 to {parameters.size - 1:,}, not {position:,}"
        )
    with progress_bar("dealing", position, unit="positions") as advance:
        remaining = remaining_at(secret, parameters, position, advance)
    category = Dealer(secret, remaining, position).deal()
    tier = outcome_of(category)
    record = play_at(secret, position, category)
    digest = hashlib.sha256(codec.dumps(record).encode("utf-8")).hexdigest()
    problems = []
    try:
        replayed = replay(record).tier
    except GameError as error:
        problems.append(f"the play breaks a rule: {error}")
    else:
        if replayed != tier:
            problems.append("the play does not replay to the outcome dealt to its position")
    if wanted_sha256 is not None and wanted_sha256 != digest:
        problems.append(
            f"the play at position {position:,} has record SHA-256 {digest}, not"
            f" {wanted_sha256!r}: it is not that play"
        )
    prize = 0 if tier is None else tier.prize_pence
    if as_json:
        payload = {
            "ok": not problems,
            "problems": problems,
            "commitment": published.commitment,
            "commitment_seen_before_sale": expected_commitment is not None,
            "position": position,
            "sold": None if published.dealt is None else position < published.dealt,
            "tier": None if tier is None else tier.name,
            "prize_pence": prize,
            "steps": len(record.steps),
            "record_sha256": digest,
            "record": codec.to_json(record),
        }
        typer.echo(json.dumps(payload, ensure_ascii=False))
    else:
        seen = " and it is the one you saw" if expected_commitment is not None else ""
        typer.echo(f"Commitment:     {published.commitment} (the secret matches it{seen})")
        typer.echo(
            f"Position:       {position:,} of {parameters.size:,}:"
            f" {'no win' if tier is None else tier.name} ({pounds(prize)}),"
            f" {len(record.steps)} steps"
        )
        if published.dealt is not None and position >= published.dealt:
            typer.echo(
                f"Sold:           no: the pool sold {published.dealt:,}"
                f" play{'s' if published.dealt != 1 else ''} (positions 0 to"
                f" {published.dealt - 1:,}); this is the play the position holds, never sold"
                if published.dealt
                else "Sold:           no: the pool sold no play; this is the play the position"
                " holds, never sold"
            )
        typer.echo(f"Record SHA-256: {digest}")
        typer.echo(f"Start grid:     {' '.join(codec.to_json(record)['grid'])}")
        for problem in problems:
            typer.echo(f"FAILED: {problem}")
        if not problems:
            typer.echo(
                "OK: this play is the one the pool's secret fixes at this position"
                + (" and is the play you saw" if wanted_sha256 else "")
                + (
                    "; the secret was fixed before the sale by the commitment you saw"
                    if expected_commitment is not None
                    else "; to know the secret was fixed before the sale, check this"
                    " commitment is the one published then (--commitment)"
                )
            )
    if problems:
        raise typer.Exit(FAILED)
