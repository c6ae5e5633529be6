"""``colour-collector pool``: build, verify, report on, load, list, close and check prize pools.

A pool is fixed by a secret (``game.pool_deal``, docs/pools.md). The operator builds a pool file,
certifies it (``verify``, ``report``), publishes its commitment and loads it into the server,
which sells it; when it is sold out the operator closes it, which publishes the secret, and
anyone can check any of its plays (``check``).

Exit status: 0 done; 1 a check failed (an altered file, a secret that does not match, a play or
count that does not verify); 2 the command could not run (bad arguments, unreadable files,
another version of the game, an unreachable database or cluster).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from colour_collector.cli.base import app
from colour_collector.cli.prizes_cmd import pounds, two_dp
from colour_collector.cli.progress import progress_bar

if TYPE_CHECKING:
    from colour_collector.game.certification import Certificate
    from colour_collector.game.pool_deal import PoolParameters
    from colour_collector.game.pool_file import PoolFile
    from colour_collector.server.settings import Settings
    from colour_collector.store import Database

pool_app = typer.Typer(
    help="Prize pools: build, certify, load, close and check.", no_args_is_help=True
)
app.add_typer(pool_app, name="pool")

FAILED = 1
"""Exit status of a check that failed."""
UNUSABLE = 2
"""Exit status of a command that could not run."""
MAX_INFO_BYTES = 1 << 20
"""Largest pool description read from a file or a server."""
FETCH_TIMEOUT_S = 20
"""How long ``check`` waits for a server's pool description."""
CHUNKS_AT_LEAST = 32
"""A small pool or slice is still cut into this many chunks, so that every worker gets some..."""
MIN_CHUNK = 100
"""...of at least this many positions."""

DatabaseUrl = Annotated[
    str | None,
    typer.Option(
        help="The server's database (default: COLOUR_COLLECTOR_DATABASE_URL, or the SQLite file"
        " in the data directory)."
    ),
]


def _stop(command: str, message: str, status: int = UNUSABLE) -> NoReturn:
    typer.echo(f"colour-collector pool {command}: {message}", err=True)
    raise typer.Exit(status)


def _read_pool_file(path: Path, command: str, *, published: bool = False) -> PoolFile:
    """The pool file at ``path``; with ``published``, also a closed pool as the server
    describes it (``GET /api/pools/ID``: its commitment, parameters and published secret)."""
    from colour_collector.game.pool_deal import (  # noqa: PLC0415
        PoolDealError,
        PoolParameters,
        secret_from_hex,
    )
    from colour_collector.game.pool_file import (  # noqa: PLC0415
        MAX_BYTES,
        PoolFile,
        PoolFileError,
        loads,
    )

    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except OSError as error:
        _stop(command, f"cannot read the pool file {str(path)!r}: {error.strerror or error}")
    try:
        return loads(data)
    except PoolFileError as error:
        problem = error
    try:
        info = json.loads(data)
    except ValueError:
        info = None
    if published and isinstance(info, dict) and {"commitment", "parameters", "secret"} <= set(info):
        if not isinstance(info["secret"], str):
            _stop(command, f"{str(path)!r} describes a pool that is not closed: no secret yet")
        try:
            parameters = PoolParameters.from_text(str(info["parameters"]))
            secret = secret_from_hex(info["secret"])
        except PoolDealError as error:
            _stop(command, f"{str(path)!r}: {error}")
        return PoolFile(secret, parameters, str(info["commitment"]), dt.datetime.now(dt.UTC))
    _stop(command, f"{str(path)!r} is not a pool file: {problem}")


def _positions(text: str | None, size: int, command: str) -> tuple[int, int]:
    if text is None:
        return 0, size
    start_text, colon, stop_text = text.partition(":")
    try:
        if not colon:
            raise ValueError(text)
        start = int(start_text) if start_text.strip() else 0
        stop = int(stop_text) if stop_text.strip() else size
    except ValueError:
        start, stop = -1, -1
    if not 0 <= start < stop <= size:
        _stop(
            command,
            f"--positions must be START:STOP with 0 <= START < STOP <= {size:,} (STOP not"
            f" included), not {text!r}",
        )
    return start, stop


def _describe(parameters: PoolParameters) -> str:
    structure = (
        "the published prize structure"
        if parameters.is_published
        else "another prize structure, for tests"
    )
    return f"{parameters.size:,} plays, {structure}"


def _warm_generator() -> None:
    from colour_collector.generator_cache import warm  # noqa: PLC0415

    warm()


def _check_versions(parameters: PoolParameters, command: str) -> None:
    from colour_collector.game.pool_deal import PoolVersionError, check_versions  # noqa: PLC0415

    _warm_generator()  # the check generates a play of every outcome
    try:
        check_versions(parameters)
    except PoolVersionError as error:
        _stop(command, str(error))


# -- build -----------------------------------------------------------------------------------------


def _counts_file(path: Path, plays: int) -> tuple[int, ...]:
    from colour_collector.game.prize_table import load_tiers  # noqa: PLC0415

    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        _stop("build", f"cannot read the counts file {str(path)!r}: {error}")
    except ValueError as error:
        _stop("build", f"the counts file {str(path)!r} is not JSON: {error}")
    if not isinstance(data, dict):
        _stop("build", "the counts file must be a JSON object {tier name: count}")
    names = {tier.name for tier in load_tiers()}
    unknown = sorted(set(data) - names)
    if unknown:
        _stop("build", f"the counts file names unknown tiers: {unknown!r}")
    counts = []
    for tier in load_tiers():
        count = data.get(tier.name, 0)
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            _stop("build", f"the count of {tier.name!r} must be an integer >= 0, not {count!r}")
        counts.append(count)
    if sum(counts) > plays:
        _stop("build", f"the counts file has {sum(counts):,} winners, more than {plays:,} plays")
    return tuple(counts)


def _write_exclusive(path: Path, text: str) -> None:
    """Write ``text`` to a new file at ``path``, readable by its owner only, whole or not at all."""
    folder = path.parent if str(path.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(prefix=".pool-", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.link(temporary, path)  # fails if the path exists: a pool file is never overwritten
    finally:
        os.unlink(temporary)


@pool_app.command("build")
def build(
    plays: Annotated[int, typer.Option("--plays", min=1, help="Plays in the pool.")],
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
    from colour_collector.game.pool_deal import PoolParameters  # noqa: PLC0415
    from colour_collector.game.pool_file import PoolFile, dumps  # noqa: PLC0415
    from colour_collector.game.versions import current_versions  # noqa: PLC0415

    if counts is None and plays != POOL_SIZE:
        _stop(
            "build",
            f"the published prize structure is a pool of {POOL_SIZE:,} plays, not {plays:,}: use"
            f" --plays {POOL_SIZE}, or give --counts FILE for another structure",
        )
    if out.exists():
        _stop("build", f"{str(out)!r} exists: a pool file is never overwritten (it holds a secret)")
    if not (out.parent if str(out.parent) else Path(".")).is_dir():
        _stop("build", f"no directory {str(out.parent)!r} to write the pool file in")
    _warm_generator()  # the versions recorded include a play of every outcome
    parameters = (
        PoolParameters.published()
        if counts is None
        else PoolParameters(plays, _counts_file(counts, plays), current_versions())
    )
    pool = PoolFile.build(parameters, dt.datetime.now(dt.UTC))
    try:
        _write_exclusive(out, dumps(pool))
    except FileExistsError:
        _stop("build", f"{str(out)!r} exists: a pool file is never overwritten")
    except OSError as error:
        _stop("build", f"cannot write {str(out)!r}: {error.strerror or error}")
    versions = parameters.versions
    typer.echo(f"Pool file:   {out} (it holds the secret: keep it until the pool is closed)")
    typer.echo(f"Plays:       {_describe(parameters)}")
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
        _stop(command, str(error))
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


def _verify_text(pool: PoolFile, run: Run, problems: list[str]) -> str:
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
        f"Pool:          {pool.commitment} ({_describe(pool.parameters)})",
        f"Positions:     {certificate.start:,} to {certificate.stop - 1:,} ({covered})",
        f"Generator:     {versions.generator_sources_sha256[:16]}..., game"
        f" {versions.game_sha256[:16]}... (colour-collector {versions.package})",
        f"Plays:         {certificate.plays:,} regenerated and replayed, {certificate.invalid:,}"
        " invalid",
    ]
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
    if not problems:
        lines.append(
            "OK: the pool is certified"
            if certificate.whole
            else "OK: these positions verify (certify the whole pool before its sale)"
        )
    return "\n".join(lines)


@pool_app.command("verify")
def verify(
    pool_file: Annotated[
        Path,
        typer.Argument(
            metavar="POOL",
            help="The pool file, or a closed pool as the server publishes it (GET /api/pools/ID).",
        ),
    ],
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

    pool = _read_pool_file(pool_file, "verify", published=True)
    try:
        pool.check()
    except PoolFileError as error:
        typer.echo(f"FAILED: {error}")
        raise typer.Exit(FAILED) from None
    if expected is not None and expected.strip().lower() != pool.commitment:
        typer.echo(
            f"FAILED: the pool file's commitment {pool.commitment} is not {expected.strip()!r}"
        )
        raise typer.Exit(FAILED)
    _check_versions(pool.parameters, "verify")
    start, stop = _positions(positions, pool.parameters.size, "verify")
    run = certify(pool, start, stop, workers=workers, scheduler=scheduler, command="verify")
    problems = run.certificate.problems()
    if as_json:
        typer.echo(json.dumps(_verify_json(pool, run, problems), ensure_ascii=False))
    else:
        typer.echo(_verify_text(pool, run, problems))
    if problems:
        raise typer.Exit(FAILED)


# -- report ----------------------------------------------------------------------------------------


@pool_app.command("report")
def report(
    pool_file: Annotated[Path, typer.Argument(metavar="POOL", help="The pool file.")],
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
        _stop(
            "report",
            f"the report needs matplotlib, openpyxl, numpy and scipy ({error.name} is missing):"
            " pip install 'colour-collector[report]'",
        )
    pool = _read_pool_file(pool_file, "report")
    try:
        pool.check()
    except PoolFileError as error:
        typer.echo(f"FAILED: {error}")
        raise typer.Exit(FAILED) from None
    _check_versions(pool.parameters, "report")
    start, stop = _positions(positions, pool.parameters.size, "report")
    if out.exists():
        _stop("report", f"{str(out)!r} exists: the report is written to a new directory")
    if not out.parent.is_dir():
        _stop("report", f"no directory {str(out.parent)!r} to write the report in")
    try:
        with progress_bar("dealing", stop, unit="positions") as advance:
            written = write_report(
                pool, out, start=start, stop=stop, naturalness_plays=naturalness_plays,
                progress=advance,
            )  # fmt: skip
    except OSError as error:
        _stop("report", f"cannot write the report in {str(out)!r}: {error.strerror or error}")
    typer.echo(f"Report:      {written / 'index.html'}")
    typer.echo("PAR sheet:   " + ", ".join(str(written / n) for n in ("par.xlsx", "par.csv")))


# -- the server's pools ----------------------------------------------------------------------------


def _settings(command: str) -> Settings:
    from pydantic import ValidationError  # noqa: PLC0415

    from colour_collector.cli.serve_cmd import _settings_error  # noqa: PLC0415
    from colour_collector.server.settings import Settings  # noqa: PLC0415

    try:
        return Settings()
    except ValidationError as error:
        _stop(command, _settings_error(error))


def _open(url: str, command: str, *, create: bool = False) -> Database:
    from sqlalchemy import make_url  # noqa: PLC0415

    from colour_collector.store import Database, upgrade_to_head  # noqa: PLC0415

    try:
        parsed = make_url(url)
    except Exception:  # SQLAlchemy raises several kinds for a bad URL
        _stop(command, f"not a database URL: {url!r}")
    is_file = parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "")
    if is_file and not create and not Path(parsed.database or "").is_file():
        _stop(command, f"no database file {parsed.database}", FAILED)
    try:
        if create:
            if is_file:
                Path(parsed.database or "").parent.mkdir(parents=True, exist_ok=True)
            upgrade_to_head(url)
        return Database(url)
    except Exception as error:  # an unknown driver, a database that cannot be reached...
        _stop(command, f"cannot open the database: {str(error).splitlines()[0]}")


def _pool_line(shown: Any) -> str:
    pool = shown.pool
    return (
        f"{pool.id:>4}  {shown.status.value:<9} {pool.dealt:>12,} / {pool.size:<12,}"
        f" {pool.commitment[:16]}...  loaded {pool.loaded_at:%Y-%m-%d %H:%M}"
        + (f", closed {pool.closed_at:%Y-%m-%d %H:%M}" if pool.closed_at else "")
    )


@pool_app.command("load")
def load(
    pool_file: Annotated[Path, typer.Argument(metavar="POOL", help="The pool file.")],
    database_url: DatabaseUrl = None,
) -> None:
    """Load a pool into the server's database: it goes on sale after the pools loaded before it.

    The secret is stored sealed with a key derived from COLOUR_COLLECTOR_SECRET_KEY (the server's
    must be the same). Loading a pool again seals it again with the key in use.
    """
    from sqlalchemy.exc import SQLAlchemyError  # noqa: PLC0415

    from colour_collector.server.settings import Environment  # noqa: PLC0415
    from colour_collector.service import pools  # noqa: PLC0415
    from colour_collector.service.errors import PoolRefusedError  # noqa: PLC0415

    pool = _read_pool_file(pool_file, "load")
    settings = _settings("load")
    _warm_generator()  # loading checks the pool's generator by a play of every outcome
    database = _open(database_url or settings.resolved_database_url, "load", create=True)
    try:
        loaded = pools.load(
            database,
            pool,
            pools.seal_key(settings.secret_key.get_secret_value()),
            published_only=settings.environment is Environment.PRODUCTION,
        )
    except PoolRefusedError as error:
        _stop("load", str(error), FAILED)
    except SQLAlchemyError as error:
        _stop("load", f"cannot load the pool: {str(error).splitlines()[0]}")
    finally:
        database.dispose()
    stored = loaded.pool
    if not loaded.created:
        typer.echo(
            f"Pool {stored.id} was loaded before; its secret is sealed again with the key in use."
        )
    where = "on sale now" if loaded.ahead == 0 else f"on sale after {loaded.ahead} pool(s)"
    typer.echo(f"Loaded pool {stored.id}: {_describe(pool.parameters)}; {where}.")
    typer.echo(f"Commitment:  {stored.commitment}")


@pool_app.command("list")
def listing(
    database_url: DatabaseUrl = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """The pools loaded, newest first: status, plays sold, commitment."""
    from colour_collector.service import pools  # noqa: PLC0415

    database = _open(database_url or _settings("list").resolved_database_url, "list")
    try:
        shown = pools.newest(database)
    finally:
        database.dispose()
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "pools": [
                        {
                            "id": s.pool.id,
                            "status": s.status.value,
                            "size": s.pool.size,
                            "dealt": s.pool.dealt,
                            "commitment": s.pool.commitment,
                            "secret": s.pool.secret,
                        }
                        for s in shown
                    ]
                }
            )
        )
        return
    if not shown:
        typer.echo("No pool is loaded.")
    for item in shown:
        typer.echo(_pool_line(item))


@pool_app.command("close")
def close(
    pool_id: Annotated[int, typer.Argument(min=1, metavar="POOL_ID", help="The pool's id.")],
    withdraw: Annotated[
        bool,
        typer.Option(help="Close a pool that still has plays unsold: it stops selling."),
    ] = False,
    pool_file: Annotated[
        Path | None,
        typer.Option(
            help="Take the secret from the pool file (when the server's key changed since the"
            " pool was loaded)."
        ),
    ] = None,
    database_url: DatabaseUrl = None,
) -> None:
    """Close a pool and publish its secret: anyone can then check every play of it."""
    from colour_collector.service import pools  # noqa: PLC0415
    from colour_collector.service.errors import (  # noqa: PLC0415
        PoolNotFoundError,
        PoolRefusedError,
        PoolSecretError,
    )

    secret = None if pool_file is None else _read_pool_file(pool_file, "close").secret
    settings = _settings("close")
    database = _open(database_url or settings.resolved_database_url, "close")
    try:
        with database() as uow:
            found = uow.pools.get(pool_id)
        total = 0 if found is None else found.size
        with progress_bar("checkpoints", total, unit="positions") as advance:
            closed = pools.close(
                database,
                pool_id,
                pools.seal_key(settings.secret_key.get_secret_value()),
                withdraw=withdraw,
                secret=secret,
                progress=advance,
            )
    except PoolNotFoundError as error:
        _stop("close", str(error))
    except (PoolRefusedError, PoolSecretError) as error:
        _stop("close", str(error), FAILED)
    finally:
        database.dispose()
    typer.echo(f"Closed pool {closed.id} ({closed.dealt:,} of {closed.size:,} plays sold).")
    typer.echo(f"Commitment:  {closed.commitment}")
    typer.echo(f"Secret:      {closed.secret}")


# -- check -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PublishedPool:
    """What ``check`` needs of a pool: its commitment and parameters, and any secret known."""

    commitment: str
    """The commitment published before the sale."""
    parameters: PoolParameters
    """Its parameters."""
    secret: str | None
    """The published secret (or the pool file's), if known."""


def _published(source: str) -> PublishedPool:
    from colour_collector.game.pool_deal import PoolDealError, PoolParameters  # noqa: PLC0415
    from colour_collector.game.pool_file import FORMAT  # noqa: PLC0415

    if source.startswith(("http://", "https://")):
        try:
            with urllib.request.urlopen(source, timeout=FETCH_TIMEOUT_S) as answer:
                data = answer.read(MAX_INFO_BYTES + 1)
        except (urllib.error.URLError, OSError, ValueError) as error:
            _stop("check", f"cannot fetch the pool from {source!r}: {error}")
    else:
        try:
            with Path(source).open("rb") as stream:
                data = stream.read(MAX_INFO_BYTES + 1)
        except OSError as error:
            _stop("check", f"cannot read {source!r}: {error.strerror or error}")
    if len(data) > MAX_INFO_BYTES:
        _stop("check", f"{source!r} is too large to be a pool's description")
    try:
        info = json.loads(data)
    except ValueError:
        _stop("check", f"{source!r} is not JSON")
    if isinstance(info, dict) and info.get("format") == FORMAT:
        pool = _read_pool_file(Path(source), "check")
        return PublishedPool(pool.commitment, pool.parameters, pool.secret.hex())
    if not isinstance(info, dict) or not {"commitment", "parameters"} <= set(info):
        _stop(
            "check",
            f"{source!r} is neither a pool file nor a pool as the server describes it"
            " (GET /api/pools/ID)",
        )
    commitment, parameters, secret = info["commitment"], info["parameters"], info.get("secret")
    if not isinstance(commitment, str) or not isinstance(parameters, str):
        _stop("check", f"{source!r}: 'commitment' and 'parameters' must be strings")
    try:
        read = PoolParameters.from_text(parameters)
    except PoolDealError as error:
        _stop("check", f"{source!r}: {error}")
    return PublishedPool(
        commitment.strip().lower(), read, secret if isinstance(secret, str) else None
    )


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
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Regenerate the play at a position from the pool's secret and check the secret against
    the commitment published before the sale.

    Exits 1 if the secret does not match the commitment, the play does not replay to its
    outcome, or it is not the play with --expect-sha256.
    """
    import hashlib  # noqa: PLC0415

    from colour_collector.game import codec  # noqa: PLC0415
    from colour_collector.game.errors import GameError  # noqa: PLC0415
    from colour_collector.game.pool_deal import (  # noqa: PLC0415
        Dealer,
        PoolDealError,
        commitment,
        outcome_of,
        play_at,
        remaining_at,
        secret_from_hex,
    )
    from colour_collector.game.replay import replay  # noqa: PLC0415

    published = _published(pool)
    text = secret_text or published.secret
    if text is None:
        _stop("check", "the pool's secret is not published yet (it is when the pool closes)")
    try:
        secret = secret_from_hex(text)
    except PoolDealError as error:
        _stop("check", f"--secret: {error}")
    parameters = published.parameters
    if commitment(secret, parameters) != published.commitment:
        typer.echo(
            f"FAILED: this secret does not match the commitment {published.commitment}: it is"
            " not the secret the pool was fixed with before its sale"
        )
        raise typer.Exit(FAILED)
    _check_versions(parameters, "check")
    if position >= parameters.size:
        _stop("check", f"--position must be 0 to {parameters.size - 1:,}, not {position:,}")
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
    if expect_sha256 is not None and expect_sha256.strip().lower() != digest:
        problems.append(
            f"the play at position {position:,} has record SHA-256 {digest}, not"
            f" {expect_sha256.strip()!r}: it is not that play"
        )
    prize = 0 if tier is None else tier.prize_pence
    if as_json:
        payload = {
            "ok": not problems,
            "problems": problems,
            "commitment": published.commitment,
            "position": position,
            "tier": None if tier is None else tier.name,
            "prize_pence": prize,
            "steps": len(record.steps),
            "record_sha256": digest,
            "record": codec.to_json(record),
        }
        typer.echo(json.dumps(payload, ensure_ascii=False))
    else:
        typer.echo(f"Commitment:     {published.commitment} (the secret matches it)")
        typer.echo(
            f"Position:       {position:,} of {parameters.size:,}:"
            f" {'no win' if tier is None else tier.name} ({pounds(prize)}),"
            f" {len(record.steps)} steps"
        )
        typer.echo(f"Record SHA-256: {digest}")
        typer.echo(f"Start grid:     {' '.join(codec.to_json(record)['grid'])}")
        for problem in problems:
            typer.echo(f"FAILED: {problem}")
        if not problems:
            typer.echo(
                "OK: this play was fixed by the pool's secret before the sale"
                + (" and is the play you saw" if expect_sha256 else "")
            )
    if problems:
        raise typer.Exit(FAILED)
