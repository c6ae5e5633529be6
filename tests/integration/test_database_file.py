"""The SQLite file under a running server: removed or replaced, and restored from a backup.

A server holds its SQLite file open. Removed (or replaced by another file of the same name, a
backup copied in while it runs), the open file is no longer the database anyone will open
again: every commit made into it is lost at the next start. The server must answer 503 instead
of taking money into it. The restore docs/operations.md gives ("Backups and restores") must
bring back the backup even over the write-ahead log a killed server leaves beside the file.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import assert_problem, balance, deposit
from typer.testing import CliRunner

from colour_collector.cli.app import app as cli
from colour_collector.server.app import create_app
from support import make_settings

pytestmark = pytest.mark.parametrize("backend", ["sqlite"])


def database_file(database_url: str) -> Path:
    return Path(database_url.removeprefix("sqlite:///"))


def test_a_removed_database_file_is_answered_503_and_takes_nothing(
    player: Any, database_url: str
) -> None:
    deposit(player, 5_000)
    path = database_file(database_url)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)

    assert_problem(
        player.post("/api/wallet/test-deposit", json={"amount_pence": 700}), 503, "unavailable"
    )
    assert_problem(player.get("/api/wallet"), 503, "unavailable")
    assert_problem(player.get("/healthz"), 503, "unavailable")
    assert not path.exists()  # no empty database made in its place


def test_a_database_file_replaced_under_the_server_is_answered_503(
    player: Any, database_url: str, tmp_path: Path
) -> None:
    deposit(player, 5_000)
    path = database_file(database_url)
    copy = tmp_path / "copy.sqlite3"
    with sqlite3.connect(path) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    source.close()
    target.close()
    os.replace(copy, path)  # a restore moved in while the server runs

    assert_problem(
        player.post("/api/wallet/test-deposit", json={"amount_pence": 700}), 503, "unavailable"
    )
    with sqlite3.connect(path) as restored:
        assert restored.execute("SELECT count(*) FROM ledger").fetchone() == (1,)
    restored.close()


def run_sqlite_cli(database: Path, command: str) -> None:
    """What ``sqlite3 DATABASE COMMAND`` does for ``.backup FILE`` and ``.restore FILE``: the
    online backup API, from the database or into it."""
    verb, _, other = command.partition(" ")
    with sqlite3.connect(database) as live, sqlite3.connect(other) as file:
        if verb == ".backup":
            live.backup(file)
        else:
            assert verb == ".restore", command
            file.backup(live)
    live.close()
    file.close()


def test_the_documented_restore_brings_back_the_backup_over_a_killed_servers_log(
    player: Any, app: Any, database_url: str, tmp_path: Path, new_client: Any
) -> None:
    deposit(player, 5_000)
    path = database_file(database_url)
    run_sqlite_cli(path, f".backup {tmp_path / 'backup.sqlite3'}")  # while the server runs
    for _ in range(20):
        deposit(player, 100)
    # The server dies: its write-ahead log, holding the deposits after the backup, stays.
    killed = tmp_path / "killed"
    killed.mkdir()
    for suffix in ("", "-wal", "-shm"):
        shutil.copy(f"{path}{suffix}", killed / f"db{suffix}")
    app.state.database.dispose()
    for suffix in ("", "-wal", "-shm"):
        shutil.copy(killed / f"db{suffix}", f"{path}{suffix}")
    assert Path(f"{path}-wal").stat().st_size > 0

    run_sqlite_cli(path, f".restore {tmp_path / 'backup.sqlite3'}")

    restored = create_app(make_settings(database_url, tmp_path))
    try:
        client = new_client(restored)
        assert client.login("player@example.com").status_code == 200
        assert balance(client) == 5_000
    finally:
        restored.state.database.dispose()
    verified = CliRunner().invoke(cli, ["audit", "verify", "--database-url", database_url])
    assert verified.exit_code == 0, verified.output
