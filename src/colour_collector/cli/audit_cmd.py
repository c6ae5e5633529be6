"""``colour-collector audit verify`` and ``audit checkpoint``: check the audit log, its anchors
outside the database, and the ledger and plays against it; sign the chain's head."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from colour_collector.cli.base import FAILED, app, stop_command
from colour_collector.cli.database import DatabaseUrl, open_database

audit_app = typer.Typer(help="Audit log tools.", no_args_is_help=True)
app.add_typer(audit_app, name="audit")

CheckpointDir = Annotated[
    Path | None,
    typer.Option(
        "--checkpoints",
        help="Directory of signed checkpoints of the chain's head (kept outside the database).",
    ),
]
KeyFile = Annotated[
    Path | None,
    typer.Option(help="File holding the checkpoint key (never stored in the database)."),
]


def _key(command: str, key_file: Path) -> bytes:
    from colour_collector.service.audit_checkpoints import read_key  # noqa: PLC0415
    from colour_collector.service.errors import InvalidInputError  # noqa: PLC0415

    try:
        return read_key(key_file)
    except InvalidInputError as error:
        stop_command(f"audit {command}", str(error))


def _unusable_checkpoints(checkpoints: Path) -> str:
    """Why ``--checkpoints`` cannot be used: it names something else than a folder, or nothing."""
    if checkpoints.exists():
        return f"--checkpoints {str(checkpoints)!r} is not a directory"
    return (
        f"no checkpoint directory {str(checkpoints)!r} (it is not made: create or mount it"
        " first, so that an unmounted mount is not taken for a local folder)"
    )


@audit_app.command("verify")
def verify(
    database_url: DatabaseUrl = None,
    checkpoints: CheckpointDir = None,
    key_file: KeyFile = None,
) -> None:
    """Check the chain (every hash, from the first entry to the head), the signed checkpoints
    (with --checkpoints and --key-file), and every ledger movement and play against the log and
    the rules. Exit 1 naming what is wrong, or when --checkpoints holds no checkpoint of a log
    that has entries."""
    from colour_collector.service import audit_checkpoints  # noqa: PLC0415
    from colour_collector.service.audit import verify_chain  # noqa: PLC0415
    from colour_collector.service.audit_reconciliation import reconcile  # noqa: PLC0415
    from colour_collector.service.errors import AuditChainBrokenError  # noqa: PLC0415
    from colour_collector.store.checkpoint_files import CheckpointDirectory  # noqa: PLC0415

    if (checkpoints is None) != (key_file is None):
        stop_command("audit verify", "--checkpoints and --key-file go together")
    key = None if key_file is None else _key("verify", key_file)
    if checkpoints is not None and not checkpoints.is_dir():
        stop_command("audit verify", _unusable_checkpoints(checkpoints))
    with open_database("audit verify", database_url) as database:
        try:
            report = verify_chain(database)
            anchored = 0
            if checkpoints is not None and key is not None:
                kept = CheckpointDirectory(checkpoints).all()
                anchored = audit_checkpoints.check(database, kept, key)
            found = reconcile(database)
        except AuditChainBrokenError as broken:
            typer.echo(f"BROKEN: {broken}")
            raise typer.Exit(FAILED) from None
    if found.problems:
        for problem in found.problems:
            typer.echo(f"BROKEN: {problem}")
        typer.echo(
            f"{len(found.problems)} discrepancies between the log and the ledger or the plays"
        )
        raise typer.Exit(FAILED)
    if checkpoints is not None and anchored == 0 and report.entries > 0:
        typer.echo(
            f"NOT ANCHORED: no checkpoint in {str(checkpoints)!r}: the {report.entries} entries"
            " hold together, but nothing kept outside the database vouches for them"
        )
        raise typer.Exit(FAILED)
    held = "1 checkpoint holds" if anchored == 1 else f"{anchored} checkpoints hold"
    anchors = f", {held}" if checkpoints is not None else ""
    typer.echo(
        f"OK: {report.entries} audit entries, chain intact (last hash {report.last_hash})"
        f"{anchors}; {found.movements} ledger movements and {found.plays} plays agree with it"
    )


@audit_app.command("checkpoint")
def checkpoint(
    checkpoints: Annotated[
        Path, typer.Option("--checkpoints", help="Directory to write the checkpoint to.")
    ],
    key_file: Annotated[Path, typer.Option(help="File holding the checkpoint key.")],
    database_url: DatabaseUrl = None,
) -> None:
    """Sign the chain's head as it is now and write the checkpoint (run it from cron, or let
    the server do it: COLOUR_COLLECTOR_AUDIT_CHECKPOINT_DIR)."""
    from colour_collector.service import audit_checkpoints  # noqa: PLC0415
    from colour_collector.store.checkpoint_files import CheckpointDirectory  # noqa: PLC0415

    key = _key("checkpoint", key_file)
    if not checkpoints.is_dir():
        stop_command("audit checkpoint", _unusable_checkpoints(checkpoints))
    with open_database("audit checkpoint", database_url) as database:
        try:
            taken = audit_checkpoints.take(database, CheckpointDirectory(checkpoints), key)
        except OSError as error:
            stop_command("audit checkpoint", f"cannot write to {str(checkpoints)!r}: {error}")
    typer.echo(f"checkpoint: seq={taken.seq} hash={taken.hash}")
