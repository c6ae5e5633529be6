"""``colour-collector operator add|list|disable`` on both databases: the only way to make an
operator, and to take one's console access away."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

import colour_collector.cli.operator_cmd  # noqa: F401  (registers ``operator`` on ``app``)
from colour_collector.cli.base import app
from colour_collector.service import operators
from colour_collector.service.accounts import Passwords
from colour_collector.service.errors import OperatorForbiddenError, OperatorNotAuthenticatedError
from colour_collector.store import Database

CHEAP = {
    "COLOUR_COLLECTOR_PASSWORD_HASH_TIME_COST": "1",
    "COLOUR_COLLECTOR_PASSWORD_HASH_MEMORY_KIB": "8",
    "COLOUR_COLLECTOR_PASSWORD_HASH_PARALLELISM": "1",
}


def _parent() -> typer.Typer:
    parent = typer.Typer()
    parent.add_typer(app, name="colour-collector")
    return parent


def _invoke(*args: str, stdin: str = "", env: dict[str, str | None] | None = None) -> Result:
    """Run ``colour-collector ARGS`` in-process, with cheap hashing and ``env`` on top."""
    settings = {**CHEAP, **(env or {})}
    return CliRunner().invoke(_parent(), ["colour-collector", *args], input=stdin, env=settings)


def test_operator_add_makes_an_account_that_logs_in(database_url: str) -> None:
    made = _invoke(
        "operator", "add", "Alice", "--role", "manager", "--password-stdin",
        "--database-url", database_url, stdin="a long operator password\n",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert f"Operator 'alice' created with the role 'manager' in {database_url}." in made.output
    database = Database(database_url)
    try:
        policy = operators.OperatorPolicy(
            passwords=Passwords(time_cost=1, memory_kib=8, parallelism=1)
        )
        done = operators.login(
            database, policy, name="alice", password="a long operator password", client="t"
        )
        assert done.operator.role.value == "manager"
    finally:
        database.dispose()
    listed = _invoke("operator", "list", "--database-url", database_url)
    assert listed.exit_code == 0 and "alice\tmanager" in listed.output


def test_operator_disable_ends_the_account_s_console_access(database_url: str) -> None:
    made = _invoke(
        "operator", "add", "bob", "--role", "manager", "--password-stdin",
        "--database-url", database_url, stdin="a long operator password\n",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    database = Database(database_url)
    policy = operators.OperatorPolicy(passwords=Passwords(time_cost=1, memory_kib=8, parallelism=1))
    try:
        session = operators.login(
            database, policy, name="bob", password="a long operator password", client="t"
        )
        done = _invoke("operator", "disable", "bob", "--database-url", database_url)
        assert done.exit_code == 0, done.output
        assert "Operator 'bob' is disabled (since " in done.output
        with pytest.raises(OperatorNotAuthenticatedError):
            operators.current(database, session.token)
        with pytest.raises(OperatorForbiddenError):
            operators.login(
                database, policy, name="bob", password="a long operator password", client="t"
            )
    finally:
        database.dispose()
    listed = _invoke("operator", "list", "--database-url", database_url)
    assert "bob\tmanager\tcreated " in listed.output and "\tdisabled " in listed.output
    # A name that names nothing is a bad argument (2), as `pool close 99` is.
    missing = _invoke("operator", "disable", "carol", "--database-url", database_url)
    assert missing.exit_code == 2, missing.output
    assert "there is no operator named 'carol'" in missing.output
    bad = _invoke("operator", "disable", "b a d", "--database-url", database_url)
    assert bad.exit_code == 2 and "operator name" in bad.output
    assert "Traceback" not in missing.output + bad.output


@pytest.mark.parametrize(
    ("args", "stdin", "code", "words"),
    [
        (["b a d", "--role", "viewer"], "a long operator password\n", 2, "operator name"),
        (["bob", "--role", "viewer"], "short\n", 2, "12 to 256 characters"),
        (["bob", "--role", "king"], "", 2, "'king' is not one of"),
    ],
)
def test_operator_add_says_what_is_wrong(
    database_url: str, args: list[str], stdin: str, code: int, words: str
) -> None:
    done = _invoke(
        "operator", "add", *args, "--password-stdin", "--database-url", database_url, stdin=stdin
    )
    assert done.exit_code == code, done.output
    assert words in done.output and "Traceback" not in done.output
    again = _invoke("operator", "list", "--database-url", database_url)
    assert "No operators yet" in again.output


def test_an_operator_name_is_taken_once(database_url: str) -> None:
    for expected in (0, 1):
        done = _invoke(
            "operator", "add", "carol", "--role", "viewer", "--password-stdin",
            "--database-url", database_url, stdin="a long operator password\n",
        )  # fmt: skip
        assert done.exit_code == expected, done.output
    assert "already exists" in done.output


def test_a_bad_database_url_is_said_plainly() -> None:
    done = _invoke("operator", "list", "--database-url", "nosuch://x")
    assert done.exit_code == 2 and "cannot open the database" in done.output


def test_without_a_terminal_the_password_must_come_by_stdin(database_url: str) -> None:
    done = _invoke(
        "operator", "add", "dora", "--role", "viewer", "--database-url", database_url,
        stdin="a long enough password\na long enough password\n",
    )  # fmt: skip
    assert done.exit_code == 2, done.output
    assert "--password-stdin" in done.output and "Traceback" not in done.output
    assert "No operators yet" in _invoke("operator", "list", "--database-url", database_url).output


def test_listing_refuses_a_missing_database_file_and_creates_nothing(tmp_path: Path) -> None:
    where = tmp_path / "nonexistent" / "dir" / "x.db"
    done = _invoke("operator", "list", "--database-url", f"sqlite:///{where}")
    assert done.exit_code == 2, done.output
    assert f"colour-collector operator list: no database file {where}" in done.output
    assert "Traceback" not in done.output and "No operators yet" not in done.output
    assert not (tmp_path / "nonexistent").exists()
    # The server's own file in the data directory is not made either.
    data_dir = tmp_path / "data"
    default = _invoke(
        "operator", "list",
        env={"COLOUR_COLLECTOR_DATA_DIR": str(data_dir), "COLOUR_COLLECTOR_DATABASE_URL": None},
    )  # fmt: skip
    assert default.exit_code == 2 and "no database file" in default.output, default.output
    assert not data_dir.exists()


def test_adding_still_creates_and_migrates_the_database(tmp_path: Path) -> None:
    where = tmp_path / "new" / "dir" / "x.db"
    url = f"sqlite:///{where}"
    made = _invoke(
        "operator", "add", "erin", "--role", "viewer", "--password-stdin", "--database-url", url,
        stdin="a long operator password\n",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert where.is_file()
    listed = _invoke("operator", "list", "--database-url", url)
    assert listed.exit_code == 0 and "erin\tviewer" in listed.output, listed.output


def test_listing_a_database_never_migrated_says_so_and_migrates_nothing(tmp_path: Path) -> None:
    where = tmp_path / "empty.db"
    sqlite3.connect(where).close()
    done = _invoke("operator", "list", "--database-url", f"sqlite:///{where}")
    assert done.exit_code == 2, done.output
    assert "has no tables of the game: it was never migrated" in done.output, done.output
    assert "Traceback" not in done.output
    with closing(sqlite3.connect(where)) as connection:
        assert connection.execute("SELECT name FROM sqlite_master").fetchall() == []


def test_listing_on_a_server_that_does_not_answer_says_so() -> None:
    done = _invoke("operator", "list", "--database-url", "postgresql://u@127.0.0.1:1/x")
    assert done.exit_code == 2, done.output
    assert "colour-collector operator list: cannot open the database:" in done.output
    assert "Connection refused" in done.output
    assert "Traceback" not in done.output and "sqlalche.me" not in done.output


def test_a_password_that_is_not_utf8_is_refused_in_one_line(tmp_path: Path) -> None:
    """A real process: its standard input turns bytes that are not UTF-8 into surrogates."""
    url = f"sqlite:///{tmp_path / 'ops.sqlite3'}"
    command = Path(sys.executable).with_name("colour-collector")
    done = subprocess.run(
        [command, "operator", "add", "dave", "--role", "viewer", "--password-stdin",
         "--database-url", url],
        input=b"\xff\xfe\xfdabcdefghijkl\n", capture_output=True, check=False,
        env={**os.environ, **CHEAP, "LC_ALL": "C.UTF-8"},
    )  # fmt: skip
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, stderr
    assert stderr == "colour-collector operator add: the password is not UTF-8 text\n"
    assert not (tmp_path / "ops.sqlite3").exists()  # refused before the database is opened
