"""``colour-collector pool``: what its commands share (the group, exit statuses, reading a pool
file, positions, the generator's versions).

A pool is fixed by a secret (``game.pool_deal``, docs/pools.md). The operator builds a pool file,
certifies it (``verify``, ``report``: ``pool_prepare_cmd``), publishes its commitment and loads it
into the server, which sells it; when it is sold out the operator closes it, which publishes the
secret, and anyone can check any of its plays (``check``: ``pool_check_cmd``).

Exit status (``cli.base``): 0 done; 1 a check failed (an altered file, a secret that does not
match, a play or count that does not verify) or a refusal; 2 the command could not run (bad
arguments, unreadable files, another version of the game, an unusable database or cluster).
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from colour_collector.cli.base import FAILED, app, stop_command

if TYPE_CHECKING:
    from colour_collector.game.pool_file import PoolFile
    from colour_collector.game.pool_parameters import PoolParameters

pool_app = typer.Typer(
    help="Prize pools: build, certify, load, close and check.", no_args_is_help=True
)
app.add_typer(pool_app, name="pool")

FETCH_TIMEOUT_S = 20
"""How long a command waits for a server's pool description."""
MAX_PROBLEM_BYTES = 16_384
"""Largest error answer read from a server (its problem: ``title`` and ``detail``)."""
MAX_SAID_CHARS = 300
"""Longest ``title`` or ``detail`` of a server's problem a command repeats."""


def refuse(problem: str, as_json: bool, **fields: object) -> NoReturn:
    """Stop a pool command with ``problem`` (exit 1): ``FAILED: problem``, or with ``--json``
    one JSON object, ``{"ok": false, "problems": [problem], **fields}``."""
    if as_json:
        payload = {"ok": False, "problems": [problem], **fields}
        typer.echo(json.dumps(payload, ensure_ascii=False))
    else:
        typer.echo(f"FAILED: {problem}")
    raise typer.Exit(FAILED)


def read_source(source: str, command: str, limit: int) -> bytes:
    """Up to ``limit`` bytes of ``source``: fetched when it is an http(s) address (a server's
    ``GET /api/pools/ID``), else read from the file it names."""
    if source.startswith(("http://", "https://")):
        try:
            with urllib.request.urlopen(source, timeout=FETCH_TIMEOUT_S) as answer:
                data: bytes = answer.read(limit)
                return data
        except urllib.error.HTTPError as error:
            with error:  # it holds the answer's connection: left to the collector, it warns
                said = server_answer(error)
            stop_command(f"pool {command}", f"cannot fetch {source!r}: {said}")
        except (urllib.error.URLError, OSError, ValueError) as error:
            stop_command(f"pool {command}", f"cannot fetch {source!r}: {error}")
    try:
        with Path(source).open("rb") as stream:
            return stream.read(limit)
    except OSError as error:
        stop_command(
            f"pool {command}", f"cannot read the pool file {source!r}: {error.strerror or error}"
        )


def server_answer(error: urllib.error.HTTPError) -> str:
    """What a server said with an error status: its status, title and detail when it answers a
    problem (``application/problem+json``, as this game's server does), else its status and
    reason, with what to check."""
    try:
        body = error.read(MAX_PROBLEM_BYTES)
    except (OSError, http.client.HTTPException):  # a connection cut short: IncompleteRead
        body = b""
    kind = error.headers.get_content_type() if error.headers else ""
    try:
        problem = json.loads(body) if kind == "application/problem+json" else None
    except (ValueError, RecursionError):
        problem = None
    if isinstance(problem, dict) and isinstance(problem.get("detail"), str):
        title = problem.get("title")
        named = f" {_printable(title)}" if isinstance(title, str) and title.strip() else ""
        return f"the server answered {error.code}{named}: {_printable(problem['detail'])}"
    return (
        f"the server answered {error.code} {_printable(str(error.reason))}, not a pool's"
        " description: check the address (https://host/api/pools/ID)"
    )


def _printable(text: str) -> str:
    """``text`` from a server as one line of printable characters, cut to ``MAX_SAID_CHARS``
    (nothing it sends can move the terminal's cursor or fill the screen)."""
    line = "".join(c if c.isprintable() else " " for c in text).strip()
    return line if len(line) <= MAX_SAID_CHARS else line[: MAX_SAID_CHARS - 3] + "..."


def read_pool_file(
    source: str,
    command: str,
    *,
    refuse: Callable[[str], NoReturn] | None = None,
) -> PoolFile:
    """The pool file at ``source`` (a file, or an http(s) address). A file that says it is a
    pool file and does not hold together (altered or damaged) is given to ``refuse`` (a
    command's own way to fail a check: ``verify --json`` answers in JSON), by default a line on
    stderr and exit status 1."""
    pool, _ = read_pool(source, command, published=False, refuse=refuse)
    return pool


def read_pool(
    source: str,
    command: str,
    *,
    published: bool,
    refuse: Callable[[str], NoReturn] | None = None,
) -> tuple[PoolFile, bool]:
    """:func:`read_pool_file`; with ``published``, also a closed pool as the server describes it
    (``GET /api/pools/ID``: its commitment, parameters and published secret), and whether it was
    one: only the commitment seen before the sale tells that this is the pool sold then."""
    from colour_collector.game.pool_deal import secret_from_hex  # noqa: PLC0415
    from colour_collector.game.pool_file import (  # noqa: PLC0415
        FORMAT,
        MAX_BYTES,
        PoolFile,
        PoolFileError,
        loads,
    )
    from colour_collector.game.pool_parameters import PoolDealError, PoolParameters  # noqa: PLC0415

    data = read_source(source, command, MAX_BYTES + 1)
    try:
        return loads(data), False
    except PoolFileError as error:
        problem = error
    try:
        info = json.loads(data)
    except (ValueError, RecursionError):  # ``problem`` says why (nested too deeply: the latter)
        info = None
    if isinstance(info, dict) and info.get("format") == FORMAT:
        # it says it is a pool file and does not hold together: altered or damaged
        damaged = f"{source!r} is an altered or damaged pool file: {problem}"
        if refuse is not None:
            refuse(damaged)
        stop_command(f"pool {command}", damaged, FAILED)
    if (
        published
        and isinstance(info, dict)
        and {"commitment", "parameters", "secret"} <= set(info)
        and isinstance(info["parameters"], str)
    ):
        if not isinstance(info["secret"], str):
            stop_command(
                f"pool {command}",
                f"{source!r} describes a pool whose secret is not published yet (it is once the"
                " pool is closed and every play of it is finished)",
            )
        try:
            parameters = PoolParameters.from_text(str(info["parameters"]))
            secret = secret_from_hex(info["secret"])
        except PoolDealError as error:
            stop_command(f"pool {command}", f"{source!r}: {error}")
        described = PoolFile(secret, parameters, str(info["commitment"]), dt.datetime.now(dt.UTC))
        return described, True
    stop_command(f"pool {command}", f"{source!r} is not a pool file: {problem}")


def read_positions(text: str | None, size: int, command: str) -> tuple[int, int]:
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
        stop_command(
            f"pool {command}",
            f"--positions must be START:STOP with 0 <= START < STOP <= {size:,} (STOP not"
            f" included), not {text!r}",
        )
    return start, stop


def read_sha256(text: str | None, command: str, option: str = "--commitment") -> str | None:
    """A SHA-256 given in ``option`` (``--commitment``, ``--expect-sha256``) as the pool files and
    recall write it (64 hex digits, lower case); a text that cannot be one stops the command
    (exit 2) rather than fail the check (exit 1)."""
    if text is None:
        return None
    cleaned = text.strip().lower()
    if len(cleaned) != 64 or any(c not in "0123456789abcdef" for c in cleaned):
        stop_command(
            f"pool {command}",
            f"{option} must be a SHA-256 in hex (64 digits 0-9 and a-f), not {text!r}",
        )
    return cleaned


def describe(parameters: PoolParameters) -> str:
    structure = (
        "the published prize structure"
        if parameters.is_published
        else "another prize structure, for tests"
    )
    return f"{parameters.size:,} plays, {structure}"


def warm_generator() -> None:
    from colour_collector.generator_cache import warm  # noqa: PLC0415

    warm()


def require_versions(parameters: PoolParameters, command: str) -> None:
    from colour_collector.game.pool_parameters import PoolVersionError, check_versions  # noqa: PLC0415

    warm_generator()  # the check generates a play of every outcome
    try:
        check_versions(parameters)
    except PoolVersionError as error:
        stop_command(f"pool {command}", str(error))
