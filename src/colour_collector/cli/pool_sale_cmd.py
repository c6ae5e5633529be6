"""``colour-collector pool load``, ``list``, ``close`` and ``check``: a pool on sale in the server,
closed, and any of its plays checked against the commitment (docs/pools.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from colour_collector.cli.base import FAILED, PENDING, first_line, server_settings, stop_command
from colour_collector.cli.database import DatabaseUrl, open_database, shown_url
from colour_collector.cli.pool_base import (
    describe,
    pool_app,
    read_pool_file,
    read_sha256,
    read_source,
    require_versions,
    warm_generator,
)
from colour_collector.cli.progress import progress_bar
from colour_collector.game.money import pounds
from colour_collector.service.models import LARGEST_ID

if TYPE_CHECKING:
    from colour_collector.game.pool_deal import PoolParameters

MAX_INFO_BYTES = 1 << 20
"""Largest pool description read from a file or a server."""

# -- the server's pools ----------------------------------------------------------------------------


_LIST_HEADER = f"{'id':>4}  {'status':<9} {'sold':>12}   {'of':<12} {'commitment':<19}  when"


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

    from colour_collector.server.settings import DEFAULT_SECRET_KEY  # noqa: PLC0415
    from colour_collector.service import pools  # noqa: PLC0415
    from colour_collector.service.errors import PoolRefusedError  # noqa: PLC0415

    pool = read_pool_file(str(pool_file), "load")
    settings = server_settings("pool load")
    warm_generator()  # loading checks the pool's generator by a play of every outcome
    # Not ``create``: a mistyped path must not make a database the server never reads.
    with open_database("pool load", database_url, settings=settings) as database:
        shown = shown_url(database)
        try:
            loaded = pools.load(
                database,
                pool,
                pools.seal_key(settings.secret_key.get_secret_value()),
                published_only=settings.published_pools_only,
            )
        except PoolRefusedError as error:
            stop_command("pool load", str(error), FAILED)
        except SQLAlchemyError as error:
            stop_command("pool load", f"cannot load the pool: {first_line(error)}")
    stored = loaded.pool
    if not loaded.created:
        typer.echo(
            f"Pool {stored.id} was loaded before; its secret is sealed again with the key in use."
        )
    if stored.sold_out:
        where = "sold out"
    elif loaded.ahead == 0:
        where = "on sale now" if settings.sells_pools else "first in line"
    else:
        where = f"on sale after {loaded.ahead} pool(s)"
    typer.echo(f"Loaded pool {stored.id}: {describe(pool.parameters)}; {where}.")
    typer.echo(f"Commitment:  {stored.commitment}")
    typer.echo(f"Database:    {shown}")
    if settings.secret_key.get_secret_value() == DEFAULT_SECRET_KEY:
        typer.echo(
            "Sealed with the development placeholder key (COLOUR_COLLECTOR_SECRET_KEY is not"
            " set): a server with its own key cannot sell it; load it again with the server's."
        )
    if not settings.sells_pools:
        typer.echo(
            "Sold only by a server with COLOUR_COLLECTOR_DRAW_MODE=pool (this shell's is"
            f" {settings.draw_mode.value}): the console says whether the server sells it."
        )


@pool_app.command("list")
def listing(
    database_url: DatabaseUrl = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """The pools loaded, newest first: status, plays sold, commitment. A pool is ``on_sale``
    only as a server with this shell's settings would sell it (``DRAW_MODE``, the environment),
    as ``GET /api/pools`` says."""
    from colour_collector.service import pool_views  # noqa: PLC0415

    settings = server_settings("pool list")
    with open_database("pool list", database_url) as database:
        shown = pool_views.newest(
            database,
            selling=settings.sells_pools,
            published_only=settings.published_pools_only,
        )
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
        return
    typer.echo(_LIST_HEADER)
    for item in shown:
        typer.echo(_pool_line(item))


@pool_app.command("close")
def close(
    pool_id: Annotated[
        int, typer.Argument(min=1, max=LARGEST_ID, metavar="POOL_ID", help="The pool's id.")
    ],
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
    """Close a pool and publish its secret: anyone can then check every play of it.

    While a play of the pool is in progress its secret would tell that play's prize: the close
    then stops the sale but keeps the secret sealed, and exits 3; run it again once those plays
    are finished (by their players, or by the server) to publish it.

    Exits 0 when the secret is published (now, or before), 1 when the close is refused (plays
    unsold without --withdraw, a sale that does not follow the secret, a secret that is not the
    pool's, a damaged row), 2 when it cannot run (no such pool, a database that cannot be used),
    3 when the sale is stopped and the secret is not published yet.
    """
    from colour_collector.service import pools  # noqa: PLC0415
    from colour_collector.service.errors import (  # noqa: PLC0415
        PoolNotFoundError,
        PoolRefusedError,
        PoolSecretError,
    )

    secret = None if pool_file is None else read_pool_file(str(pool_file), "close").secret
    settings = server_settings("pool close")
    with open_database("pool close", database_url, settings=settings) as database:
        shown = shown_url(database)
        with database() as uow:
            found = uow.pools.get(pool_id)
        total = 0 if found is None else found.size
        try:
            sold = 0 if found is None else found.dealt
            # One bar (Rich shows one at a time): the checkpoints' pass, then the sold plays'.
            with progress_bar("checking the sale", total + sold, unit="positions") as advance:
                closed = pools.close(
                    database,
                    pool_id,
                    pools.seal_key(settings.secret_key.get_secret_value()),
                    withdraw=withdraw,
                    secret=secret,
                    progress=advance,
                    checking=lambda done: advance(total + done),
                )
        except PoolNotFoundError as error:  # an id that names nothing: a bad argument
            stop_command("pool close", str(error))
        except (PoolRefusedError, PoolSecretError) as error:
            stop_command("pool close", str(error), FAILED)
        waiting, last = (0, None) if closed.secret else pools.unfinished(database, pool_id)
    sales = f"{closed.dealt:,} of {closed.size:,} plays sold"
    if found is not None and found.secret is not None:
        closed_at = f"{found.closed_at:%Y-%m-%d %H:%M}" if found.closed_at else "before"
        typer.echo(f"Pool {closed.id} was closed before ({closed_at}; {sales}): nothing changed.")
    elif closed.secret is None:
        by = "" if last is None else f", the last by {last:%Y-%m-%d %H:%M} UTC at the latest"
        typer.echo(
            f"Closed pool {closed.id} ({sales}): no more sales. Its secret is not published yet:"
            f" {_in_progress(waiting)}, and it would tell their prizes. They are"
            f" finished by their players or by the server{by}; run pool close {closed.id}"
            " again then."
        )
    elif found is not None and found.closed_at is not None:
        typer.echo(f"Published the secret of pool {closed.id} ({sales}): every play is finished.")
    else:
        typer.echo(f"Closed pool {closed.id} ({sales}).")
    typer.echo(f"Commitment:  {closed.commitment}")
    if closed.secret is not None:
        typer.echo(f"Secret:      {closed.secret}")
    typer.echo(f"Database:    {shown}")
    if closed.secret is None:
        raise typer.Exit(PENDING)


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
    return PublishedPool(commitment.strip().lower(), read, secret)


def _refuse_check(commitment: str, position: int, problem: str, as_json: bool) -> NoReturn:
    """Stop ``pool check`` with ``problem`` (exit 1), as one JSON object with ``--json``."""
    if as_json:
        payload = {"ok": False, "problems": [problem], "commitment": commitment}
        typer.echo(json.dumps({**payload, "position": position}, ensure_ascii=False))
    else:
        typer.echo(f"FAILED: {problem}")
    raise typer.Exit(FAILED)


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
        PoolDealError,
        commitment,
        outcome_of,
        play_at,
        remaining_at,
        secret_from_hex,
    )
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
        _refuse_check(
            published.commitment,
            position,
            f"the pool publishes the commitment {published.commitment}, not the one you saw"
            f" before the sale ({seen!r})",
            as_json,
        )
    if commitment(secret, parameters) != published.commitment:
        _refuse_check(
            published.commitment,
            position,
            f"this secret does not match the commitment {published.commitment}: it is not the"
            " secret the pool was fixed with before its sale",
            as_json,
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


def _in_progress(waiting: int) -> str:
    if waiting == 1:
        return "1 of its plays is in progress"
    return f"{waiting:,} of its plays are in progress"
