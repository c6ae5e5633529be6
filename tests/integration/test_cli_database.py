"""Every command that works on the server's database opens it one way (``cli.database``): a
database it cannot use stops it with one line naming the command and the problem, exit status 2,
no traceback, nothing made."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import colour_collector.cli.app  # noqa: F401  (registers every command on ``app``)
from colour_collector.cli.base import UNUSABLE, app

READERS = (
    ("operator", "list"),
    ("pool", "list"),
    ("pool", "close", "1"),
    ("audit", "verify"),
    ("audit", "checkpoint", "--checkpoints", "{tmp}/checkpoints", "--key-file", "{tmp}/key"),
)
"""Commands that only read or change a database that is there."""
MAKERS = (
    ("db", "migrate"),
    ("operator", "add", "zoe", "--role", "viewer", "--password-stdin"),
)
"""Commands that create and migrate the database when it is not there."""
UNREACHABLE = "postgresql://u@127.0.0.1:1/x"


def _run(tmp_path: Path, args: tuple[str, ...], url: str) -> tuple[int, str]:
    (tmp_path / "key").write_bytes(b"k" * 48)
    (tmp_path / "checkpoints").mkdir(exist_ok=True)
    parent = typer.Typer()
    parent.add_typer(app, name="colour-collector")
    command = [a.replace("{tmp}", str(tmp_path)) for a in args]
    done = CliRunner().invoke(
        parent,
        ["colour-collector", *command, "--database-url", url],
        input="a long operator password\n",
        env={
            "COLOUR_COLLECTOR_PASSWORD_HASH_MEMORY_KIB": "8",
            "COLOUR_COLLECTOR_PASSWORD_HASH_PARALLELISM": "1",
        },
    )
    return done.exit_code, done.output


def _one_line(output: str, args: tuple[str, ...], expected: str) -> None:
    name = " ".join(a for a in args[:2] if not a.startswith("-") and not a.isdigit())
    assert output.startswith(f"colour-collector {name}: {expected}"), output
    assert output.count("\n") == 1 and "Traceback" not in output, output


@pytest.mark.parametrize("args", READERS + MAKERS, ids=" ".join)
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("not a url", "not a database URL: 'not a url'"),
        (
            "nosuchdb://u@127.0.0.1/x",
            "cannot open the database: only SQLite and PostgreSQL databases are supported,"
            " not nosuchdb://",
        ),
        (UNREACHABLE, "cannot open the database: (psycopg.OperationalError) connection failed"),
    ],
    ids=["not-a-url", "unknown-driver", "unreachable"],
)
def test_a_database_that_cannot_be_opened(
    tmp_path: Path, args: tuple[str, ...], url: str, expected: str
) -> None:
    status, output = _run(tmp_path, args, url)
    assert status == UNUSABLE, output
    _one_line(output, args, expected)


@pytest.mark.parametrize("args", READERS, ids=" ".join)
def test_a_missing_file_is_refused_and_not_made(tmp_path: Path, args: tuple[str, ...]) -> None:
    where = tmp_path / "no" / "such.sqlite3"
    status, output = _run(tmp_path, args, f"sqlite:///{where}")
    assert status == UNUSABLE, output
    _one_line(output, args, f"no database file {where}")
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("args", READERS, ids=" ".join)
def test_a_database_never_migrated_is_said_so_and_left_alone(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    where = tmp_path / "empty.sqlite3"
    sqlite3.connect(where).close()
    status, output = _run(tmp_path, args, f"sqlite:///{where}")
    assert status == UNUSABLE, output
    _one_line(
        output,
        args,
        f"the database sqlite:///{where} has no tables of the game: it was never migrated",
    )
    with sqlite3.connect(where) as connection:
        assert connection.execute("SELECT name FROM sqlite_master").fetchall() == []


@pytest.mark.parametrize("args", MAKERS, ids=" ".join)
def test_a_command_that_writes_makes_and_migrates_a_missing_file(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    where = tmp_path / "new" / "dir" / "made.sqlite3"
    status, output = _run(tmp_path, args, f"sqlite:///{where}")
    assert status == 0, output
    with sqlite3.connect(where) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert {"alembic_version", "audit_head", "operators", "plays"} <= tables


def test_db_migrate_defaults_to_the_servers_database(tmp_path: Path) -> None:
    parent = typer.Typer()
    parent.add_typer(app, name="colour-collector")
    server = {
        "COLOUR_COLLECTOR_DATA_DIR": str(tmp_path / "data"),
        "COLOUR_COLLECTOR_DATABASE_URL": None,
    }
    done = CliRunner().invoke(parent, ["colour-collector", "db", "migrate"], env=server)
    assert done.exit_code == 0, done.output
    made = tmp_path / "data" / "colour-collector.sqlite3"
    with sqlite3.connect(made) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert "alembic_version" in tables
    # A database made where there was none is said, with the one used: the operator sees a
    # command run from the wrong folder or without the server's COLOUR_COLLECTOR_DATA_DIR.
    assert f"no database file {made}: making a new one" in done.stderr
    assert f"sqlite:///{made}: migrated to the latest schema" in done.stdout
    again = CliRunner().invoke(parent, ["colour-collector", "db", "migrate"], env=server)
    assert again.exit_code == 0 and "making a new one" not in again.output, again.output


def test_simulate_refuses_more_plays_than_it_can_list() -> None:
    parent = typer.Typer()
    parent.add_typer(app, name="colour-collector")
    done = CliRunner().invoke(parent, ["colour-collector", "simulate", "--plays", "1" + "0" * 20])
    assert done.exit_code == 2, done.output
    said = " ".join(done.output.replace("│", " ").split())  # unwrapped from Typer's box
    assert "Invalid value for '--plays'" in said and "1000000000" in said, said
    assert "Traceback" not in done.output
