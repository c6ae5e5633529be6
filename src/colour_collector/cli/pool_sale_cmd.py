"""``colour-collector pool load``, ``list`` and ``close``: a pool put on sale in the server,
listed, and closed, its secret published once every play of it is finished (docs/pools.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from colour_collector.cli.base import FAILED, PENDING, first_line, server_settings, stop_command
from colour_collector.cli.database import DatabaseUrl, open_database, shown_url
from colour_collector.cli.pool_base import describe, pool_app, read_pool_file, warm_generator
from colour_collector.cli.progress import progress_bar
from colour_collector.service.models import LARGEST_ID

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
                settings.pool_key,
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
    if stored.id in loaded.other_keys:
        typer.echo(
            f"Pool {stored.id} was sealed with another COLOUR_COLLECTOR_SECRET_KEY before: a"
            " server with that key no longer sells it. Load it again from a shell with the"
            " server's key if this shell's is not."
        )
    others = [str(p) for p in loaded.other_keys if p != stored.id]
    if others:
        typer.echo(
            f"Pool{'s' if len(others) > 1 else ''} {', '.join(others)}, waiting to sell,"
            f" {'were' if len(others) > 1 else 'was'} sealed with another"
            " COLOUR_COLLECTOR_SECRET_KEY than this shell's: a server sells only the pools sealed"
            " with its own key. Is this shell's key the server's?"
        )
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
    only as a server with this shell's settings would sell it (``DRAW_MODE``, the environment,
    ``SECRET_KEY``), as ``GET /api/pools`` says; when such a server would refuse a pool waiting
    to sell (on sale or queued), or draws independently, the last line says why."""
    from colour_collector.service import pool_views, pools  # noqa: PLC0415

    sale = server_settings("pool list").pool_sale
    with open_database("pool list", database_url) as database:
        shown = pool_views.newest(database, sale)
        problem = pools.sale_problem(database, sale)
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
                    ],
                    "sale_problem": problem,
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
    if problem is not None:
        typer.echo(f"With this shell's settings, {problem}.")


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
                    settings.pool_key,
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
            f" {_in_progress(waiting)}, and it would tell"
            f" {'its prize. It is' if waiting == 1 else 'their prizes. They are'}"
            f" finished by {'its player' if waiting == 1 else 'their players'} or by the"
            f" server{by}; run pool close {closed.id} again then."
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


def _in_progress(waiting: int) -> str:
    if waiting == 1:
        return "1 of its plays is in progress"
    return f"{waiting:,} of its plays are in progress"
