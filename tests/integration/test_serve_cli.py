"""``colour-collector serve`` as a real subprocess, and bad command lines."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import httpx
import pytest

from colour_collector.server.settings import SQLITE_FILENAME
from support import PASSWORD, browser_like_client

COMMAND = [sys.executable, "-c", "from colour_collector.cli.app import main; main()"]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLOUR_COLLECTOR_")}
    env.update(extra)
    return env


def run_command(
    args: list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run the command line ``args`` to its end in ``cwd`` with ``env``, capturing its output."""
    return subprocess.run(
        args, check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.slow
def test_serve_starts_creates_sqlite_and_answers_healthz(tmp_path: Path) -> None:
    port = free_port()
    data_dir = tmp_path / "data"
    process = subprocess.Popen(
        [*COMMAND, "serve", "--port", str(port), "--data-dir", str(data_dir)],
        cwd=tmp_path,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        answer = None
        while time.monotonic() < deadline and process.poll() is None:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert answer is not None, f"server did not answer; exit={process.poll()}"
        assert answer.status_code == 200
        assert answer.json() == {"status": "ok"}
        # A HEAD through the real server: its headers, no body, and nothing logged as an error
        # (the server sends no body for a HEAD by the method it was asked with).
        head = httpx.head(f"http://127.0.0.1:{port}/healthz", timeout=5)
        assert head.status_code == 200 and head.content == b""
        assert head.headers["content-length"] == answer.headers["content-length"]
        assert (data_dir / SQLITE_FILENAME).is_file()
        client = browser_like_client(f"http://127.0.0.1:{port}", timeout=30)
        registered = client.post(
            "/api/register",
            json={"email": "new@example.com", "password": PASSWORD, "date_of_birth": "1990-05-17"},
        )
        client.close()
        assert registered.status_code == 202, registered.text
        (mail,) = (data_dir / "outbox").iterdir()
        # the confirmation link leads to the port served, not the default 8000
        assert f"http://127.0.0.1:{port}/#/confirm/" in mail.read_text()
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=15)
    assert f"http://127.0.0.1:{port}/" in output
    # A new database is said: on a first start, or where the one the server used has gone.
    assert f"no database file {data_dir / SQLITE_FILENAME}: making a new, empty one" in output
    assert "Traceback" not in output


def test_a_port_in_use_is_named_before_anything_starts(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [*COMMAND, "serve", "--port", str(port), "--data-dir", str(tmp_path / "data")],
            cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in result.stderr
    assert "listening on" not in result.stdout
    assert "Traceback" not in result.stderr


@pytest.fixture
def backend() -> str:
    """Several server processes share one database only on PostgreSQL."""
    return "postgresql"


@pytest.mark.slow
@pytest.mark.postgres
def test_serve_with_two_workers_shares_one_database(database_url: str, tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        [*COMMAND, "serve", "--port", str(port), "--workers", "2", "--no-access-log"],
        cwd=tmp_path,
        env=clean_env(COLOUR_COLLECTOR_DATABASE_URL=database_url),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        answers: list[int] = []
        while time.monotonic() < deadline and process.poll() is None and len(answers) < 20:
            try:
                answers.append(httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code)
            except httpx.TransportError:
                time.sleep(0.1)
        assert answers == [200] * 20, f"exit={process.poll()}"
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=30)
    assert "with 2 worker processes" in output
    assert output.count("Started server process") == 2
    assert "Traceback" not in output
    assert "GET /healthz" not in output  # --no-access-log


def test_several_workers_check_the_setting_files_before_they_start(
    database_url: str, tmp_path: Path
) -> None:
    """Each worker makes its own app: a file it could not use would fail each worker's start,
    and uvicorn would start it again and again. ``serve`` checks them first."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", "utf-8")
    done = run_command(
        [*COMMAND, "serve", "--port", str(free_port()), "--workers", "2"],
        tmp_path,
        clean_env(
            COLOUR_COLLECTOR_DATABASE_URL=database_url,
            COLOUR_COLLECTOR_MAIL_OUTBOX_DIR=str(blocker / "outbox"),
        ),
    )
    assert done.returncode == 2, done
    assert "COLOUR_COLLECTOR_MAIL_OUTBOX_DIR" in done.stderr and "cannot be made" in done.stderr
    assert "listening" not in done.stdout and "Traceback" not in done.stderr + done.stdout


def test_sqlite_is_served_by_one_process(tmp_path: Path) -> None:
    done = run_command(
        [*COMMAND, "serve", "--port", str(free_port()), "--workers", "2"], tmp_path, clean_env()
    )
    assert done.returncode == 2
    assert "SQLite is served by one process" in done.stderr and "PostgreSQL" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    "args",
    [["serve", "--port", "notanumber"], ["serve", "--port", "70000"], ["serve", "--bogus"],
     ["serve", "--workers", "0"], ["serve", "--workers", "two"], ["audit", "verify", "--nope"],
     ["no-such-command"]],
)  # fmt: skip
def test_bad_arguments_exit_2_with_usage(args: list[str], tmp_path: Path) -> None:
    done = run_command([*COMMAND, *args], tmp_path, clean_env())
    assert done.returncode == 2, done
    assert "Usage:" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_production_with_default_secret_refuses_to_start(tmp_path: Path) -> None:
    done = run_command(
        [*COMMAND, "serve", "--port", str(free_port())],
        tmp_path,
        clean_env(COLOUR_COLLECTOR_ENVIRONMENT="production"),
    )
    assert done.returncode == 2
    assert "COLOUR_COLLECTOR_SECRET_KEY" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql+psycopg2://colour@127.0.0.1:1/colour", "through psycopg 3"),
        ("postgresql+nodriver://colour@127.0.0.1:1/colour", "through psycopg 3"),
        ("nosuchdb://colour@127.0.0.1:1/colour", "nosuchdb"),
        ("mysql://colour@127.0.0.1:1/colour", "only SQLite and PostgreSQL"),
    ],
)
def test_a_database_url_with_an_unsupported_driver_is_refused(
    url: str, expected: str, tmp_path: Path
) -> None:
    for args in (["serve", "--port", str(free_port())], ["audit", "verify", "--database-url", url]):
        done = run_command(
            [*COMMAND, *args], tmp_path, clean_env(COLOUR_COLLECTOR_DATABASE_URL=url)
        )
        assert done.returncode != 0, done
        assert "cannot open the database" in done.stderr and expected in done.stderr, done
        assert "Traceback" not in done.stderr + done.stdout


def test_a_bad_checkpoint_key_file_stops_serve_before_it_listens(tmp_path: Path) -> None:
    short = tmp_path / "key"
    short.write_bytes(b"too short")
    for key_file in (short, tmp_path / "missing"):
        done = run_command(
            [*COMMAND, "serve", "--port", str(free_port())],
            tmp_path,
            clean_env(
                COLOUR_COLLECTOR_AUDIT_CHECKPOINT_DIR=str(tmp_path / "anchors"),
                COLOUR_COLLECTOR_AUDIT_CHECKPOINT_KEY_FILE=str(key_file),
            ),
        )
        assert done.returncode == 2, done
        assert "checkpoint key file" in done.stderr and "Traceback" not in done.stderr
        assert not (tmp_path / "data").exists()  # it made nothing, not even the mail outbox


def test_a_missing_checkpoint_directory_stops_serve_before_it_listens(tmp_path: Path) -> None:
    key_file, missing = tmp_path / "key", tmp_path / "mnt" / "anchors"
    key_file.write_bytes(b"k" * 48)
    done = run_command(
        [*COMMAND, "serve", "--port", str(free_port()), "--data-dir", str(tmp_path / "new")],
        tmp_path,
        clean_env(
            COLOUR_COLLECTOR_AUDIT_CHECKPOINT_DIR=str(missing),
            COLOUR_COLLECTOR_AUDIT_CHECKPOINT_KEY_FILE=str(key_file),
        ),
    )
    assert done.returncode == 2, done
    assert "COLOUR_COLLECTOR_AUDIT_CHECKPOINT_DIR" in done.stderr, done.stderr
    assert "is not a directory: create or mount it first" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "mnt").exists()
    assert not (tmp_path / "new").exists()  # nor the data directory and its mail outbox


def test_a_missing_outcome_script_is_named_not_blamed_on_the_database(tmp_path: Path) -> None:
    missing = tmp_path / "outcomes.json"
    done = run_command(
        [*COMMAND, "serve", "--port", str(free_port())],
        tmp_path,
        clean_env(
            COLOUR_COLLECTOR_ENVIRONMENT="test",
            COLOUR_COLLECTOR_SECRET_KEY="serve-cli-test-secret-key-0123456789abcdef",
            COLOUR_COLLECTOR_OUTCOME_SCRIPT=str(missing),
        ),
    )
    assert done.returncode == 2, done
    assert f"COLOUR_COLLECTOR_OUTCOME_SCRIPT ({missing}) cannot be read" in done.stderr
    assert "database" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("trusted", [None, "127.0.0.1"])
def test_forwarded_addresses_count_only_from_trusted_proxies(
    tmp_path: Path, trusted: str | None
) -> None:
    port = free_port()
    extra = {} if trusted is None else {"COLOUR_COLLECTOR_FORWARDED_ALLOW_IPS": trusted}
    process = subprocess.Popen(
        [*COMMAND, "serve", "--port", str(port), "--no-access-log"],
        cwd=tmp_path,
        env=clean_env(COLOUR_COLLECTOR_LOGIN_MAX_FAILURES_PER_CLIENT="3", **extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        client = browser_like_client(base, timeout=10)
        statuses = []
        for n in range(5):  # each from another claimed address, each another e-mail
            body = {"email": f"nobody{n}@example.com", "password": "wrong password!"}
            forged = {"X-Forwarded-For": f"203.0.113.{n}"}
            statuses.append(client.post("/api/login", json=body, headers=forged).status_code)
        client.close()
    finally:
        process.terminate()
        process.communicate(timeout=30)
    if trusted is None:  # the claimed addresses are ignored: one client, throttled after 3
        assert statuses == [401, 401, 401, 429, 429]
    else:  # a trusted proxy's word is taken: five clients
        assert statuses == [401] * 5


@pytest.mark.parametrize(
    "command", [["serve", "--port", "0"], ["operator", "list"], ["audit", "verify"]]
)
def test_bad_settings_are_named_by_their_environment_variable(
    command: list[str], tmp_path: Path
) -> None:
    done = run_command(
        [*COMMAND, *command], tmp_path, clean_env(COLOUR_COLLECTOR_MAX_TEST_DEPOSIT_PENCE="lots")
    )
    assert done.returncode == 2, done
    assert "invalid settings" in done.stderr
    assert "  COLOUR_COLLECTOR_MAX_TEST_DEPOSIT_PENCE: Input should be a valid integer" in (
        done.stderr
    )
    assert "max_test_deposit_pence" not in done.stderr and "pydantic.dev" not in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    ("given", "missing"), [("DIR", "KEY_FILE"), ("KEY_FILE", "DIR")]
)  # fmt: skip
def test_checkpoint_settings_come_as_a_pair(given: str, missing: str, tmp_path: Path) -> None:
    done = run_command(
        [*COMMAND, "serve", "--port", "0"],
        tmp_path,
        clean_env(**{f"COLOUR_COLLECTOR_AUDIT_CHECKPOINT_{given}": str(tmp_path / "x")}),
    )
    assert done.returncode == 2, done
    assert (
        "COLOUR_COLLECTOR_AUDIT_CHECKPOINT_DIR and COLOUR_COLLECTOR_AUDIT_CHECKPOINT_KEY_FILE must"
        f" be set together: COLOUR_COLLECTOR_AUDIT_CHECKPOINT_{given} is set but"
        f" COLOUR_COLLECTOR_AUDIT_CHECKPOINT_{missing} is not"
    ) in done.stderr, done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_db_migrate_says_in_one_line_why_it_cannot(tmp_path: Path) -> None:
    ahead = tmp_path / "ahead.sqlite3"  # a database of a later version of the game
    with closing(sqlite3.connect(ahead)) as connection, connection:
        connection.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        connection.execute("INSERT INTO alembic_version VALUES ('f00dfeed')")
    for url, expected in (
        (
            "postgresql://u@127.0.0.1:1/x",
            "colour-collector db migrate: cannot open the database: (psycopg.OperationalError)"
            ' connection failed: connection to server at "127.0.0.1", port 1 failed',
        ),
        ("nosuchdb://u@127.0.0.1:1/x", "colour-collector db migrate: cannot open the database:"),
        (
            f"sqlite:///{ahead}",
            "colour-collector db migrate: cannot migrate the database: the database is at schema"
            " revision 'f00dfeed', which this version of colour-collector",
        ),
    ):
        done = run_command(
            [*COMMAND, "db", "migrate", "--database-url", url], tmp_path, clean_env()
        )
        assert done.returncode == 2, done
        assert done.stderr.startswith(expected) and done.stderr.count("\n") == 1, done.stderr
        assert "sqlalche.me" not in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert done.stdout == ""
