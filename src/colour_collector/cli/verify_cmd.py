"""``colour-collector verify FILE|-``: replay a play record and say what it wins, or what is wrong.

Exit status: 0 the record obeys every rule (its prize and tier are printed); 1 it is not a valid
play: a step breaks a rule (the first one is printed with its step index), or a record (a JSON
object whose ``format`` says so) has unknown or missing fields or a value of the wrong type: it
was altered or damaged; 2 it could not be checked: no such file, a directory, a file that cannot
be read, or text that is no play record at all (not JSON, another kind of file). Pool files are
told apart the same way (docs/pools.md).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from colour_collector.cli.base import FAILED, app, stop_command
from colour_collector.game.codec import loads
from colour_collector.game.config import load_config
from colour_collector.game.errors import RecordFormatError, RuleError
from colour_collector.game.money import pounds
from colour_collector.game.record import FORMAT
from colour_collector.game.replay import Result, replay

MAX_BYTES = 50_000_000
"""Largest record file read (a real record is a few kilobytes)."""


def read_input(source: str) -> bytes:
    """The bytes of ``source`` (a path, or ``-`` for stdin); ``ValueError`` names what failed."""
    if source == "-":
        return sys.stdin.buffer.read(MAX_BYTES + 1)
    path = Path(source)
    try:
        if path.is_dir():
            raise ValueError(f"{source!r} is a directory, not a play record file")
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise ValueError(f"no such file: {source!r}") from None
    except PermissionError:
        raise ValueError(f"permission denied: {source!r}") from None
    except OSError as error:
        raise ValueError(f"cannot read {source!r}: {error.strerror or error}") from None
    if len(data) > MAX_BYTES:
        raise ValueError(f"{source!r} is larger than {MAX_BYTES:,} bytes: not a play record")
    return data


def result_json(result: Result) -> dict[str, Any]:
    """The JSON answer for a valid record."""
    config = load_config()
    prize_game = result.prize_game
    return {
        "valid": True,
        "prize_pence": result.prize,
        "tier": None if result.tier is None else result.tier.name,
        "rows": [
            {"row": row, "shape": config.prize_table[row].shape, "amount_pence": amount}
            for row, amount in zip(result.rows, result.row_amounts, strict=True)
        ],
        "level": result.level,
        "prize_game": None
        if prize_game is None
        else {
            "pot_pence": prize_game.pot,
            "doubled": prize_game.doubled,
            "amount_pence": prize_game.amount,
        },
        "bonus_games": result.bonus_games,
        "spins": result.spins,
    }


def result_text(result: Result) -> str:
    """The readable answer for a valid record."""
    config = load_config()
    if result.tier is None:
        lines = ["VALID: no win (£0)"]
    else:
        lines = [f"VALID: wins {pounds(result.prize)}, tier {result.tier.name}"]
    for row, amount in zip(result.rows, result.row_amounts, strict=True):
        lines.append(f"  Prize Table row {config.prize_table[row].shape}: {pounds(amount)}")
    lines.append(f"  Prize Table level: {result.level}")
    if result.prize_game is not None:
        pot = result.prize_game
        doubled = f", doubled by WIN x2 to {pounds(pot.amount)}" if pot.doubled else ""
        lines.append(f"  Prize Game: pot {pounds(pot.pot)}{doubled}")
    lines.append(f"  Main Game spins: {result.spins}, Bonus Games: {result.bonus_games}")
    return "\n".join(lines)


def _claims_to_be_a_record(data: bytes) -> bool:
    """Whether ``data`` is a JSON object that says it is a play record (so a fault in it is an
    alteration or damage, not the wrong file)."""
    try:
        found = json.loads(data)
    except (ValueError, RecursionError):
        return False
    return isinstance(found, dict) and found.get("format") == FORMAT


@app.command("verify")
def verify(
    source: Annotated[str, typer.Argument(metavar="FILE|-", help="Play record JSON, - for stdin.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of text.")
    ] = False,
) -> None:
    """Replay a play record through the rules: its prize and tier, or the first broken rule."""
    try:
        data = read_input(source)
    except ValueError as error:
        stop_command("verify", str(error))
    try:
        record = loads(data)
    except RecordFormatError as error:
        if not _claims_to_be_a_record(data):
            stop_command("verify", f"not a play record: {error}")
        if as_json:
            typer.echo(json.dumps({"valid": False, "error": "format", "detail": str(error)}))
        typer.echo(f"colour-collector verify: an altered or damaged play record: {error}", err=True)
        raise typer.Exit(FAILED) from None
    try:
        result = replay(record)
    except RuleError as error:
        if as_json:
            answer = {
                "valid": False,
                "step": error.step,
                "rule": error.rule,
                "detail": error.detail,
            }
            typer.echo(json.dumps(answer, ensure_ascii=False))
        else:
            where = "the record as a whole" if error.step < 0 else f"step {error.step}"
            typer.echo(f"BROKEN at {where}: rule {error.rule}: {error.detail}")
        raise typer.Exit(FAILED) from None
    if as_json:
        typer.echo(json.dumps(result_json(result), ensure_ascii=False))
    else:
        typer.echo(result_text(result))
