"""``colour-collector pool audit``: every sold play of a closed pool checked against its published
secret and the audit log, by the operator and the testing lab (docs/pools.md)."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Annotated, Any

import typer

from colour_collector.cli.base import FAILED, stop_command
from colour_collector.cli.database import DatabaseUrl, open_database, shown_url
from colour_collector.cli.pool_base import pool_app, require_versions
from colour_collector.cli.progress import progress_bar
from colour_collector.service.models import LARGEST_ID

if TYPE_CHECKING:
    from colour_collector.service.pool_sale_audit import Mismatch, SaleAudit


def _line(mismatch: Mismatch) -> str:
    if mismatch.position is None:
        return mismatch.problem
    play = "" if mismatch.play_number is None else f" ({mismatch.play_number})"
    return f"position {mismatch.position:,}{play}: {mismatch.problem}"


def _engine(workers: int) -> str:
    return f"{workers} worker process(es)" if workers > 1 else "this process"


def _as_json(audit: SaleAudit, workers: int, seconds: float, database: str) -> dict[str, Any]:
    pool = audit.pool
    listed = audit.listed
    return {
        "ok": audit.ok,
        "problems": [_line(m) for m in listed],
        "mismatches": [
            {"position": m.position, "play_number": m.play_number, "problem": m.problem}
            for m in listed
        ],
        "mismatch_count": audit.found,
        "pool": pool.id,
        "commitment": pool.commitment,
        "size": pool.size,
        "dealt": pool.dealt,
        "checked": audit.checked,
        "engine": _engine(workers),
        "seconds": seconds,
        "database": database,
    }


def _as_text(audit: SaleAudit, workers: int, seconds: float, database: str) -> str:
    pool = audit.pool
    closed = f"closed {pool.closed_at:%Y-%m-%d %H:%M}; " if pool.closed_at else ""
    rate = f", {audit.checked / seconds:,.0f} plays/s" if seconds > 0 and audit.checked else ""
    lines = [
        f"Pool:        {pool.id} ({closed}{pool.dealt:,} of {pool.size:,} plays sold)",
        f"Commitment:  {pool.commitment}",
        f"Checked:     {audit.checked:,} sold plays regenerated from the published secret and"
        " compared with their records and purchase entries",
        f"Time:        {seconds:,.1f} s on {_engine(workers)}{rate}",
        f"Database:    {database}",
    ]
    listed = audit.listed
    lines.extend(f"FAILED: {_line(m)}" for m in listed)
    if audit.found > len(listed):
        lines.append(
            f"FAILED: and {audit.found - len(listed):,} more ({audit.found:,} in all; the first"
            f" {len(listed):,} by position are listed)"
        )
    if audit.ok:
        lines.append(
            "OK: every position sold holds the play the published secret gives it, sold once with"
            " its tier and prize, and its purchase entry holds its record SHA-256"
        )
    return "\n".join(lines)


@pool_app.command("audit")
def audit(
    pool_id: Annotated[
        int, typer.Argument(min=1, max=LARGEST_ID, metavar="POOL_ID", help="The pool's id.")
    ],
    *,
    workers: Annotated[
        int, typer.Option(min=1, max=256, help="Local worker processes regenerating plays.")
    ] = 1,
    database_url: DatabaseUrl = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Check every sold play of a closed pool against its published secret and the audit log.

    Each position sold is regenerated from the secret and compared with the stored play's record
    (as sold: the Bonus Game's picks left out), and that record's SHA-256 with the one in the
    purchase's audit entry; positions 0 to dealt - 1 must each be sold once, with the tier and
    prize the secret deals, to the play its purchase entry names. Run it after pool close, with
    audit verify (which checks the audit log's chain and the money).

    Exits 0 when every sold play matches, 1 when any does not (each is named, by position and
    Play Number), 2 when it cannot run (no such pool, its secret not published yet, another
    version of the game, a database that cannot be used).
    """
    from colour_collector.cli.workers import results  # noqa: PLC0415
    from colour_collector.service.errors import (  # noqa: PLC0415
        PoolNotClosedError,
        PoolNotFoundError,
    )
    from colour_collector.service.pool_sale_audit import audit_sale  # noqa: PLC0415
    from colour_collector.service.pools import parameters_of, published  # noqa: PLC0415

    with open_database("pool audit", database_url) as database:
        shown = shown_url(database)
        with database() as uow:
            try:
                found, _ = published(uow.pools.get(pool_id), pool_id)
            except (PoolNotFoundError, PoolNotClosedError) as error:
                stop_command("pool audit", str(error))
        require_versions(parameters_of(found), "audit")
        began = time.perf_counter()
        try:
            with progress_bar("checking the sale", found.dealt) as advance:
                checked = audit_sale(
                    database,
                    pool_id,
                    run=lambda compare, chunks: results(compare, chunks, workers),
                    progress=advance,
                )
        except (PoolNotFoundError, PoolNotClosedError) as error:  # changed since it was read
            stop_command("pool audit", str(error))
        seconds = time.perf_counter() - began
    if as_json:
        typer.echo(json.dumps(_as_json(checked, workers, seconds, shown), ensure_ascii=False))
    else:
        typer.echo(_as_text(checked, workers, seconds, shown))
    if not checked.ok:
        raise typer.Exit(FAILED)
