"""``colour-collector pool`` with bad input: a clear error naming what was wrong, the exit status
(2: the command could not run; 1: a check or a refusal), no traceback, nothing written."""

from __future__ import annotations

import functools
import http.server
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import make_url
from test_cli_pool import build, run

import support
from colour_collector.cli.base import FAILED
from support import free_port


@pytest.fixture
def backend() -> str:
    """Bad input is about the command line: SQLite is enough."""
    return "sqlite"


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (("pool", "build", "--plays", "41", "--out", "{tmp}/x.json"), 2, "pool of 6,500,000 plays"),
        (
            (
                "pool",
                "build",
                "--plays",
                "5",
                "--counts",
                "{tmp}/none.json",
                "--out",
                "{tmp}/x.json",
            ),
            2,
            "cannot read the counts file",
        ),
        (
            (
                "pool",
                "build",
                "--plays",
                "5",
                "--counts",
                "{tmp}/bad-counts.json",
                "--out",
                "{tmp}/x.json",
            ),
            2,
            "unknown tiers: ['£3']",
        ),
        (
            (
                "pool",
                "build",
                "--plays",
                "5",
                "--counts",
                "{tmp}/twice.json",
                "--out",
                "{tmp}/x.json",
            ),
            2,
            "gives the name '£5' twice in one object",
        ),
        (
            (
                "pool",
                "build",
                "--plays",
                "100000001",
                "--counts",
                "{tmp}/ok.json",
                "--out",
                "{tmp}/x.json",
            ),
            2,
            "--plays",
        ),
        (
            ("pool", "build", "--plays", "6500000", "--out", "{tmp}/no/such/x.json"),
            2,
            "no directory",
        ),
        (("pool", "verify", "{tmp}/none.json"), 2, "cannot read the pool file"),
        (("pool", "verify", "http://127.0.0.1:1/api/pools/1"), 2, "cannot fetch"),
        (
            ("pool", "report", "http://127.0.0.1:1/api/pools/1", "--out", "{tmp}/r"),
            2,
            "cannot fetch 'http://127.0.0.1:1/api/pools/1'",  # the address as given
        ),
        (("pool", "check", "--pool", "http://127.0.0.1:1/x", "--position", "0"), 2, "cannot fetch"),
        (("pool", "verify", "{tmp}/bad-counts.json"), 2, "is not a pool file: the pool file lacks"),
        (("pool", "verify", "{tmp}/pool.json", "--positions", "9:3"), 2, "--positions must be"),
        (("pool", "verify", "{tmp}/pool.json", "--positions", "abc"), 2, "--positions must be"),
        (("pool", "verify", "{tmp}/pool.json", "--workers", "0"), 2, "Invalid value"),
        (
            ("pool", "verify", "{tmp}/pool.json", "--commitment", "abc"),
            2,
            "--commitment must be a SHA-256 in hex (64 digits 0-9 and a-f), not 'abc'",
        ),
        (
            ("pool", "check", "--pool", "{tmp}/pool.json", "--position", "0", "--commitment", "z"),
            2,
            "--commitment must be a SHA-256 in hex",
        ),
        (
            (
                "pool",
                "check",
                "--pool",
                "{tmp}/pool.json",
                "--position",
                "0",
                "--expect-sha256",
                "xyz",
            ),
            2,
            "--expect-sha256 must be a SHA-256 in hex (64 digits 0-9 and a-f), not 'xyz'",
        ),
        (("pool", "report", "{tmp}/pool.json", "--out", "{tmp}"), 2, "exists"),
        (
            ("pool", "check", "--pool", "{tmp}/pool.json", "--position", "99"),
            2,
            "--position must be",
        ),
        (
            ("pool", "check", "--pool", "{tmp}/pool.json", "--position", "0", "--secret", "xyz"),
            2,
            "64 hex digits",
        ),
        (
            ("pool", "check", "--pool", "{tmp}/bad-counts.json", "--position", "0"),
            2,
            "neither a pool file nor a pool",
        ),
        (("pool", "close", "7", "--database-url", "{url}"), 2, "there is no pool 7"),
        (("pool", "close", "1", "--database-url", "{url}"), 1, "still has 10 of 10 plays unsold"),
        (
            ("pool", "list", "--database-url", "sqlite:///{tmp}/missing.sqlite3"),
            2,
            "no database file",
        ),
        (("pool", "load", "{tmp}/pool.json", "--database-url", "{url}"), 1, "only test and"),
        (
            ("pool", "load", "{tmp}/pool.json", "--database-url", "sqlite:///{tmp}/typo/x.db"),
            2,
            "no database file",
        ),
        (("pool", "close", "99999999999999999999", "--database-url", "{url}"), 2, "POOL_ID"),
    ],
)
def test_bad_input_gets_a_clear_error(
    tmp_path: Path, database_url: str, args: tuple[str, ...], status: int, message: str
) -> None:
    (tmp_path / "bad-counts.json").write_text('{"£3": 1}', encoding="utf-8")
    (tmp_path / "twice.json").write_text('{"£5": 1, "£5": 2}', encoding="utf-8")
    (tmp_path / "ok.json").write_text('{"£5": 1}', encoding="utf-8")
    build(tmp_path, "pool", 10, {"£5": 1})
    assert (
        run("pool", "load", str(tmp_path / "pool.json"), "--database-url", database_url).exit_code
        == 0
    )
    production = {
        "COLOUR_COLLECTOR_ENVIRONMENT": "production",
        "COLOUR_COLLECTOR_PASSWORD_HASH_TIME_COST": "3",
        "COLOUR_COLLECTOR_SMTP_HOST": "127.0.0.1",  # production refuses to start without mail
        "COLOUR_COLLECTOR_PUBLIC_URL": "https://play.example.com",
        "COLOUR_COLLECTOR_METRICS_TOKEN": "a metrics token for the tests",
    }
    env = production if args[1] == "load" else None
    result = run(*(a.format(tmp=tmp_path, url=database_url) for a in args), env=env)
    assert result.exit_code == status, result.output
    assert message in result.output, result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "x.json").exists()
    assert not (tmp_path / "typo").exists()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """The address of a real HTTP server giving the files of ``tmp_path``."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_verify_and_check_take_the_address_a_server_publishes(tmp_path: Path, served: str) -> None:
    build(tmp_path, "pool", 10, {"£5": 1})
    verified = run("pool", "verify", f"{served}/pool.json")
    assert verified.exit_code == 0, verified.output
    assert (
        "OK: the pool holds together, with another prize structure (for tests)" in verified.output
    )
    checked = run("pool", "check", "--pool", f"{served}/pool.json", "--position", "0")
    assert checked.exit_code == 0, checked.output
    missing = run("pool", "verify", f"{served}/none.json")
    assert missing.exit_code == 2 and "cannot fetch" in missing.output, missing.output
    assert "Traceback" not in missing.output
    # Not a problem answer (an HTML page): the status is named, and what to check.
    assert (
        "the server answered 404 File not found, not a pool's description: check the address"
        in missing.output
    ), missing.output
    assert "HTTP Error" not in missing.output, missing.output


def test_check_and_verify_say_what_the_server_answered(tmp_path: Path, database_url: str) -> None:
    """An operator's walkthrough: ``pool check --pool URL`` of a pool the server does not have
    printed urllib's "HTTP Error 404: Not Found". The server says what was wrong in its problem
    answer (``application/problem+json``): the command prints its status, title and detail, and
    stops as one that could not check (2)."""
    port = free_port()
    server = support.start_server(
        tmp_path, port, {"COLOUR_COLLECTOR_DATABASE_URL": database_url}, "--no-access-log"
    )
    try:
        address = f"http://127.0.0.1:{port}/api/pools/7"
        for args in (("check", "--pool", address, "--position", "0"), ("verify", address)):
            done = run("pool", *args)
            assert done.exit_code == 2, done.output
            assert done.output == (
                f"colour-collector pool {args[0]}: cannot fetch {address!r}: the server answered"
                " 404 No such prize pool: there is no pool 7\n"
            ), done.output
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_damaged_pool_row_is_named_in_one_line(tmp_path: Path, database_url: str) -> None:
    """A pool's row edited by hand (or damaged) stopped every command that read it with a
    JSONDecodeError's traceback: now one line names the row, and the status is a failed check's."""
    pool = build(tmp_path, "pool", 10, {"£5": 1})
    assert run("pool", "load", str(pool), "--database-url", database_url).exit_code == 0
    with sqlite3.connect(make_url(database_url).database or "") as connection:
        connection.execute("update pools set remaining = 'garbage' where id = 1")
    for args in (("close", "1"), ("load", str(pool)), ("list",), ("list", "--json")):
        done = run("pool", *args, "--database-url", database_url)
        assert done.exit_code == FAILED, done.output
        assert done.output == (
            f"colour-collector pool {args[0]}: the database's row of pool 1 is damaged: its"
            " remaining is 'garbage', not a JSON list of counts (restore the row from a backup)\n"
        )


@pytest.mark.parametrize(
    "args",
    [
        ("pool", "verify", "{file}"),
        ("pool", "report", "{file}", "--out", "{tmp}/report"),
        ("pool", "check", "--pool", "{file}", "--position", "0"),
        ("pool", "load", "{file}", "--database-url", "{url}"),
        ("pool", "close", "1", "--pool-file", "{file}", "--database-url", "{url}"),
    ],
)
def test_a_file_nested_too_deeply_is_not_a_pool_file(
    tmp_path: Path, database_url: str, args: tuple[str, ...]
) -> None:
    """A file of 200 KB nested 100,000 deep (a tenth of the size a pool file may have) stopped
    every command reading a pool file with a RecursionError's traceback and exit status 1 (a
    failed check): it is not a pool file, which the command cannot run on (2)."""
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    done = run(*(a.format(file=nested, tmp=tmp_path, url=database_url) for a in args))
    assert done.exit_code == 2, done.output
    assert "is nested too deeply" in done.output, done.output
    assert not (tmp_path / "report").exists()
