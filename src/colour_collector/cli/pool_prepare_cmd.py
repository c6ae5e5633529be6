"""``colour-collector pool build``, ``verify`` and ``report``: a pool prepared and certified before
its sale (docs/pools.md)."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from colour_collector.cli.base import FAILED, stop_command
from colour_collector.cli.pool_base import (
    describe,
    pool_app,
    read_pool,
    read_positions,
    read_sha256,
    refuse,
    require_versions,
    warm_generator,
)
from colour_collector.cli.prizes_cmd import two_dp
from colour_collector.cli.progress import progress_bar
from colour_collector.game.money import pounds
from colour_collector.game.pool_parameters import MAX_SIZE
from colour_collector.whole_files import write_whole

if TYPE_CHECKING:
    from colour_collector.game.certification import Certificate
    from colour_collector.game.pool_file import PoolFile

CHUNKS_AT_LEAST = 32
"""A small pool or slice is still cut into this many chunks, so that every worker gets some..."""
MIN_CHUNK = 100
"""...of at least this many positions."""


# -- build -----------------------------------------------------------------------------------------


def _counts_file(path: Path, plays: int) -> tuple[int, ...]:
    from colour_collector.game import strict_json  # noqa: PLC0415
    from colour_collector.game.prize_table import load_tiers  # noqa: PLC0415

    try:
        data = strict_json.parse(path.read_bytes())
    except OSError as error:
        stop_command("pool build", f"cannot read the counts file {str(path)!r}: {error}")
    except strict_json.StrictJsonError as error:
        stop_command("pool build", f"the counts file {str(path)!r} {error}")
    if not isinstance(data, dict):
        stop_command("pool build", "the counts file must be a JSON object {tier name: count}")
    names = {tier.name for tier in load_tiers()}
    unknown = sorted(set(data) - names)
    if unknown:
        stop_command("pool build", f"the counts file names unknown tiers: {unknown!r}")
    counts = []
    for tier in load_tiers():
        count = data.get(tier.name, 0)
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            stop_command(
                "pool build", f"the count of {tier.name!r} must be an integer >= 0, not {count!r}"
            )
        counts.append(count)
    if sum(counts) > plays:
        stop_command(
            "pool build", f"the counts file has {sum(counts):,} winners, more than {plays:,} plays"
        )
    return tuple(counts)


@pool_app.command("build")
def build(
    plays: Annotated[int, typer.Option("--plays", min=1, max=MAX_SIZE, help="Plays in the pool.")],
    out: Annotated[Path, typer.Option("--out", help="The pool file to write (must not exist).")],
    counts: Annotated[
        Path | None,
        typer.Option(
            help="A JSON object {tier name: count} for a pool of another prize structure (tests);"
            " tiers left out have none. Without it the pool has the published structure, which"
            " needs --plays 6500000."
        ),
    ] = None,
) -> None:
    """Build a pool: a fresh secret and its commitment, written to a new pool file.

    The file holds the secret: keep it as the pool is kept (docs/pools.md) until the pool is
    closed. Publish the commitment printed before the pool goes on sale.
    """
    from colour_collector.game.pool import POOL_SIZE  # noqa: PLC0415
    from colour_collector.game.pool_file import PoolFile, dumps  # noqa: PLC0415
    from colour_collector.game.pool_parameters import PoolParameters  # noqa: PLC0415
    from colour_collector.game.versions import current_versions  # noqa: PLC0415

    if counts is None and plays != POOL_SIZE:
        stop_command(
            "pool build",
            f"the published prize structure is a pool of {POOL_SIZE:,} plays, not {plays:,}: use"
            f" --plays {POOL_SIZE}, or give --counts FILE for another structure",
        )
    if out.exists():
        stop_command(
            "pool build",
            f"{str(out)!r} exists: a pool file is never overwritten (it holds a secret)",
        )
    if not (out.parent if str(out.parent) else Path(".")).is_dir():
        stop_command("pool build", f"no directory {str(out.parent)!r} to write the pool file in")
    warm_generator()  # the versions recorded include a play of every outcome
    parameters = (
        PoolParameters.published()
        if counts is None
        else PoolParameters(plays, _counts_file(counts, plays), current_versions())
    )
    pool = PoolFile.build(parameters, dt.datetime.now(dt.UTC))
    try:
        write_whole(out, dumps(pool).encode("utf-8"), overwrite=False)
    except FileExistsError:
        stop_command("pool build", f"{str(out)!r} exists: a pool file is never overwritten")
    except OSError as error:
        stop_command("pool build", f"cannot write {str(out)!r}: {error.strerror or error}")
    versions = parameters.versions
    typer.echo(f"Pool file:   {out} (it holds the secret: keep it until the pool is closed)")
    typer.echo(f"Plays:       {describe(parameters)}")
    typer.echo(
        f"Generator:   {versions.generator_sources_sha256[:16]}... (colour-collector"
        f" {versions.package}), game {versions.game_sha256[:16]}..."
    )
    typer.echo(f"Commitment:  {pool.commitment}")


# -- verify ----------------------------------------------------------------------------------------


@dataclass
class Run:
    """A certification run: what it covered and how long it took."""

    certificate: Certificate
    """The tallies."""
    seconds: float
    """Wall time of the dealing and the replays."""
    engine: str
    """Where the plays were replayed."""


def certify(
    pool: PoolFile, start: int, stop: int, *, workers: int, scheduler: str | None, command: str
) -> Run:
    """Deal positions ``start .. stop - 1`` of ``pool``, regenerate and replay each, count."""
    from colour_collector.cli.workers import WorkersError, tallies  # noqa: PLC0415
    from colour_collector.game.certification import CHUNK, Certificate, chunks  # noqa: PLC0415
    from colour_collector.game.pool_deal import categories  # noqa: PLC0415

    began = time.perf_counter()
    with progress_bar("dealing", stop, unit="positions") as advance:
        dealt = categories(pool.secret, pool.parameters, start, stop, advance)
    counted = Counter(dealt)
    certificate = Certificate(
        pool.parameters, start, stop, [counted[c] for c in range(len(pool.parameters.start))]
    )
    engine = (
        f"Dask cluster at {scheduler}"
        if scheduler
        else f"{workers} worker process(es)"
        if workers > 1
        else "this process"
    )
    size = max(MIN_CHUNK, min(CHUNK, (stop - start) // CHUNKS_AT_LEAST))
    try:
        with progress_bar("replaying", stop - start) as advance:
            for tally in tallies(chunks(pool.secret, start, dealt, size), workers, scheduler):
                certificate.add(tally)
                advance(certificate.plays)
    except WorkersError as error:
        stop_command(f"pool {command}", str(error))
    return Run(certificate, time.perf_counter() - began, engine)


def _verify_json(pool: PoolFile, run: Run, problems: list[str]) -> dict[str, Any]:
    from colour_collector.game.prize_table import load_tiers  # noqa: PLC0415

    certificate = run.certificate
    names = [*(t.name for t in load_tiers()), "no win"]
    return {
        "ok": not problems,
        "problems": problems,
        "commitment": pool.commitment,
        "size": pool.parameters.size,
        "published_structure": pool.parameters.is_published,
        "start": certificate.start,
        "stop": certificate.stop,
        "whole": certificate.whole,
        "plays": certificate.plays,
        "invalid": certificate.invalid,
        "invalid_examples": certificate.examples,
        "observed": dict(zip(names, certificate.observed, strict=True)),
        "winners": certificate.plays - certificate.invalid - certificate.observed[-1],
        "prize_pence": certificate.prize_pence,
        "plays_sha256": certificate.plays_sha256,
        "engine": run.engine,
        "seconds": run.seconds,
    }


def _verify_text(
    pool: PoolFile, run: Run, problems: list[str], seen: str = "", *, compared: bool = False
) -> str:
    """The verdict as text; ``seen`` ends an OK (for a pool as a server describes it: whether
    its commitment was compared with the one published before the sale); ``compared``: the
    pool's commitment is the one given with ``--commitment`` (a line says so)."""
    from colour_collector.game.pool import STAKE_PENCE  # noqa: PLC0415

    certificate = run.certificate
    versions = pool.parameters.versions
    covered = (
        "the whole pool"
        if certificate.whole
        else f"{certificate.stop - certificate.start:,} of {pool.parameters.size:,}"
    )
    winners = certificate.plays - certificate.invalid - certificate.observed[-1]
    stakes = certificate.plays * STAKE_PENCE
    lines = [
        f"Pool:          {pool.commitment} ({describe(pool.parameters)})",
        f"Positions:     {certificate.start:,} to {certificate.stop - 1:,} ({covered})",
        f"Generator:     {versions.generator_sources_sha256[:16]}..., game"
        f" {versions.game_sha256[:16]}... (colour-collector {versions.package})",
        f"Plays:         {certificate.plays:,} regenerated and replayed, {certificate.invalid:,}"
        " invalid",
    ]
    if compared:
        lines.insert(
            1, "Commitment:    the pool's commitment equals the one given with --commitment"
        )
    if certificate.plays:
        lines.append(
            f"Winners:       {winners:,}"
            + (f" (1 in {two_dp(Fraction(certificate.plays, winners))})" if winners else "")
            + f"; no win {certificate.observed[-1]:,}"
        )
        lines.append(
            f"Prize money:   {pounds(certificate.prize_pence)} ="
            f" {two_dp(Fraction(100 * certificate.prize_pence, stakes))}% of the stakes"
        )
    if certificate.whole and not problems:
        lines.append("Tier counts:   every tier's count is the prize structure's, exactly")
    lines.append(f"Plays SHA-256: {certificate.plays_sha256}")
    lines.append(f"Time:          {run.seconds:,.1f} s on {run.engine}")
    lines.extend(f"FAILED: {problem}" for problem in problems)
    if not problems and not certificate.whole:
        lines.append(f"OK: these positions verify (certify the whole pool before its sale){seen}")
    elif not problems and pool.parameters.is_published:
        lines.append(f"OK: the pool is certified, with the published prize structure{seen}")
    elif not problems:
        lines.append(
            "OK: the pool holds together, with another prize structure (for tests): it is not"
            f" the published game, and a production server refuses to sell it{seen}"
        )
    return "\n".join(lines)


PoolArgument = Annotated[
    str,
    typer.Argument(
        metavar="POOL",
        help="The pool file, or a closed pool as the server publishes it: the address of"
        " GET /api/pools/ID, or that answer saved to a file.",
    ),
]
"""What ``verify`` and ``report`` read: a pool file or a closed pool's published description."""


@pool_app.command("verify")
def verify(
    pool_file: PoolArgument,
    *,
    workers: Annotated[
        int, typer.Option(min=1, max=256, help="Local worker processes replaying plays.")
    ] = 1,
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Replay on a Dask cluster instead: its scheduler's address (tcp://host:8786)."
            " Needs the extra 'distributed' here and colour-collector on every worker."
        ),
    ] = None,
    positions: Annotated[
        str | None,
        typer.Option(help="Only positions START:STOP (STOP not included), e.g. 0:200000."),
    ] = None,
    expected: Annotated[
        str | None,
        typer.Option("--commitment", help="Also check the file against this commitment."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Regenerate and replay every play of a pool and check every tier's count exactly.

    Exits 1 if the file was altered, does not match --commitment, or any play or count does not
    verify.
    """
    from colour_collector.game.pool_file import PoolFileError  # noqa: PLC0415

    wanted = read_sha256(expected, "verify")
    pool, described = read_pool(
        pool_file,
        "verify",
        published=True,
        refuse=lambda problem: refuse(problem, as_json, commitment=None),
    )
    try:
        pool.check()
    except PoolFileError as error:
        refuse(str(error), as_json, commitment=pool.commitment)
    if wanted is not None and wanted != pool.commitment:
        refuse(
            f"the pool file's commitment {pool.commitment} is not {wanted!r}",
            as_json,
            commitment=pool.commitment,
        )
    require_versions(pool.parameters, "verify")
    start, stop = read_positions(positions, pool.parameters.size, "verify")
    run = certify(pool, start, stop, workers=workers, scheduler=scheduler, command="verify")
    problems = run.certificate.problems()
    if as_json:
        answer = {**_verify_json(pool, run, problems), "commitment_checked": wanted is not None}
        typer.echo(json.dumps(answer, ensure_ascii=False))
    else:
        seen = (
            ""
            if not described
            else "; it is the pool of the commitment given"
            if wanted is not None
            else "; to know the pool was fixed before the sale, check this commitment is the one"
            " published then (--commitment)"
        )
        typer.echo(_verify_text(pool, run, problems, seen, compared=wanted is not None))
    if problems:
        raise typer.Exit(FAILED)


# -- report ----------------------------------------------------------------------------------------


@pool_app.command("report")
def report(
    pool_file: PoolArgument,
    out: Annotated[
        Path, typer.Option("--out", help="Directory to write the report in (must not exist).")
    ],
    positions: Annotated[
        str | None,
        typer.Option(
            help="Order statistics over positions START:STOP only (default: the whole pool)."
        ),
    ] = None,
    naturalness_plays: Annotated[
        int,
        typer.Option(min=50, max=100_000, help="Plays of each outcome in the naturalness tables."),
    ] = 2_000,
) -> None:
    """Write the certification report: an HTML page with plots, and the PAR sheet (xlsx, CSV).

    Needs the extra 'report' (matplotlib, openpyxl, numpy, scipy).
    """
    from colour_collector.game.pool_file import PoolFileError  # noqa: PLC0415

    try:
        from colour_collector.report import write_report  # noqa: PLC0415
    except ImportError as error:
        stop_command(
            "pool report",
            f"the report needs matplotlib, openpyxl, numpy and scipy ({error.name} is missing):"
            " pip install 'colour-collector[report]'",
        )
    pool, from_server = read_pool(pool_file, "report", published=True)
    try:
        pool.check()
    except PoolFileError as error:
        typer.echo(f"FAILED: {error}")
        raise typer.Exit(FAILED) from None
    require_versions(pool.parameters, "report")
    if not any(pool.parameters.counts):
        stop_command(
            "pool report",
            "the pool has no winning plays: it has no odds, prizes or payout to report"
            " (pool verify still certifies it)",
        )
    start, stop = read_positions(positions, pool.parameters.size, "report")
    if out.exists():
        stop_command(
            "pool report", f"{str(out)!r} exists: the report is written to a new directory"
        )
    if not out.parent.is_dir():
        stop_command("pool report", f"no directory {str(out.parent)!r} to write the report in")
    try:
        with progress_bar("dealing", stop, unit="positions") as advance:
            written = write_report(
                pool, out, start=start, stop=stop, naturalness_plays=naturalness_plays,
                progress=advance, from_server=from_server,
            )  # fmt: skip
    except OSError as error:
        stop_command(
            "pool report", f"cannot write the report in {str(out)!r}: {error.strerror or error}"
        )
    typer.echo(f"Report:      {written / 'index.html'}")
    typer.echo("PAR sheet:   " + ", ".join(str(written / n) for n in ("par.xlsx", "par.csv")))
    if from_server:
        typer.echo(
            "Read from the server's description of the closed pool: that its commitment is the"
            " one published before the sale, compare (pool verify POOL --commitment C)."
        )
