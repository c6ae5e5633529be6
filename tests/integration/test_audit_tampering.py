"""What ``audit verify`` finds when someone with the database's password edits it: the log wiped,
its tail cut and the head moved back, a prize multiplied, a stored prize edited, a deposit
inserted. Each is named (both databases)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import deposit, play_settings, whole_play
from sqlalchemy import text
from typer.testing import CliRunner

from colour_collector.cli.app import app as cli
from colour_collector.server.settings import Settings
from colour_collector.store import Database

KEY = b"k" * 48


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return play_settings(database_url, tmp_path, ["£10 (£10 Prize Game)", None, "£5"])


@pytest.fixture
def database(app: Any) -> Database:
    found: Database = app.state.database
    return found


@pytest.fixture
def played(player: Any, tmp_path: Path, database_url: str) -> Iterator[dict[str, Any]]:
    """Three whole plays and two deposits, then a signed checkpoint of the head."""
    deposit(player, 3000)
    numbers = [whole_play(player)[0] for _ in range(3)]
    deposit(player, 700)
    key_file, checkpoints = tmp_path / "key", tmp_path / "checkpoints"
    key_file.write_bytes(KEY)
    checkpoints.mkdir()
    taken = run("checkpoint", "--checkpoints", str(checkpoints), "--key-file", str(key_file),
                "--database-url", database_url)  # fmt: skip
    assert taken.exit_code == 0, taken.output
    yield {"numbers": numbers, "key_file": key_file, "checkpoints": checkpoints}


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, ["audit", *args])


def verify(url: str, played: dict[str, Any]) -> Any:
    return run("verify", "--database-url", url, "--checkpoints", str(played["checkpoints"]),
               "--key-file", str(played["key_file"]))  # fmt: skip


def sql(database: Database, *statements: str) -> None:
    """Run raw SQL as an attacker with the database's password would, triggers dropped."""
    with database.engine.begin() as connection:
        if database.is_sqlite:
            connection.execute(text("DROP TRIGGER IF EXISTS audit_log_no_update"))
            connection.execute(text("DROP TRIGGER IF EXISTS audit_log_no_delete"))
        else:
            connection.execute(text("ALTER TABLE audit_log DISABLE TRIGGER USER"))
        for statement in statements:
            connection.exec_driver_sql(statement)


def broken(result: Any, *fragments: str) -> str:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in result.output, (fragment, result.output)
    return str(result.output)


def test_an_untouched_database_verifies(database_url: str, played: dict[str, Any]) -> None:
    ok = verify(database_url, played)
    assert ok.exit_code == 0, ok.output
    assert "1 checkpoint holds" in ok.output and "3 plays agree" in ok.output


def test_a_wiped_log_with_its_head_reset_is_found(
    database: Database, database_url: str, played: dict[str, Any]
) -> None:
    wipe = "DELETE FROM audit_log" if database.is_sqlite else "TRUNCATE audit_log"
    sql(database, wipe, "UPDATE audit_head SET seq = 0, hash = '" + "0" * 64 + "' WHERE id = 1")
    broken(verify(database_url, played), "checkpoint", "missing")
    # Even without the checkpoints, the plays and the money have no entries any more.
    alone = run("verify", "--database-url", database_url)
    broken(alone, "no purchase entry", "no deposit entry")


def test_a_cut_tail_with_the_head_moved_back_is_found(
    database: Database, database_url: str, played: dict[str, Any]
) -> None:
    with database() as uow:
        head = uow.audit.head()
        back = uow.audit.entries(after_seq=head.seq - 3, limit=1)[0]
    sql(
        database,
        f"DELETE FROM audit_log WHERE seq > {back.seq}",
        f"UPDATE audit_head SET seq = {back.seq}, hash = '{back.hash}' WHERE id = 1",
    )
    broken(verify(database_url, played), f"seq={head.seq}", "removed")


def test_a_multiplied_prize_is_found(
    database: Database, database_url: str, played: dict[str, Any]
) -> None:
    sql(database, "UPDATE ledger SET amount_pence = amount_pence * 100 WHERE kind = 'prize'")
    broken(verify(database_url, played), "prize", "the finish entry recorded a prize of 1000")


def test_an_edited_stored_prize_is_found(
    database: Database, database_url: str, played: dict[str, Any]
) -> None:
    number = played["numbers"][0]
    sql(database, f"UPDATE plays SET prize_pence = 100000 WHERE play_number = '{number}'")
    broken(verify(database_url, played), f"play {number}", "its record pays 1000")


def test_an_inserted_deposit_is_found(
    database: Database, database_url: str, played: dict[str, Any]
) -> None:
    when = dt.datetime(2026, 12, 3, tzinfo=dt.UTC).strftime("%Y-%m-%d %H:%M:%S")
    with database() as uow:
        account = uow.plays.get(played["numbers"][0])
    assert account is not None
    sql(
        database,
        "INSERT INTO ledger (account_id, amount_pence, kind, reference, created_at) VALUES"
        f" ({account.account_id}, 500000, 'deposit', 'test deposit', '{when}')",
    )
    broken(verify(database_url, played), "500000 pence", "no deposit entry in the audit log")


def test_a_forged_checkpoint_or_a_wrong_key_is_refused(
    database_url: str, played: dict[str, Any], tmp_path: Path
) -> None:
    (file,) = played["checkpoints"].glob("checkpoint-*.json")
    file.write_text(file.read_text().replace('"seq": ', '"seq": 1'))
    broken(verify(database_url, played), "not signed with this key")
    other = tmp_path / "other-key"
    other.write_bytes(b"x" * 48)
    wrong = run("verify", "--database-url", database_url, "--checkpoints",
                str(played["checkpoints"]), "--key-file", str(other))  # fmt: skip
    broken(wrong, "not signed with this key")
    short = tmp_path / "short-key"
    short.write_bytes(b"abc")
    refused = run("checkpoint", "--checkpoints", str(tmp_path), "--key-file", str(short),
                  "--database-url", database_url)  # fmt: skip
    assert refused.exit_code == 2 and "at least 32" in refused.output


def test_a_damaged_checkpoint_file_is_named_and_no_entry_blamed(
    database_url: str, played: dict[str, Any]
) -> None:
    (file,) = played["checkpoints"].glob("checkpoint-*.json")
    file.write_text("{", encoding="utf-8")
    said = broken(verify(database_url, played), f"BROKEN: checkpoint file {file.name} cannot be")
    assert "seq=0" not in said and "audit entry" not in said


def test_checkpoints_asked_for_but_none_there_is_not_ok(
    database_url: str, played: dict[str, Any], tmp_path: Path
) -> None:
    """A wrong or emptied folder must not pass for an anchored chain."""
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run("verify", "--database-url", database_url, "--checkpoints", str(empty),
               "--key-file", str(played["key_file"]))  # fmt: skip
    said = broken(done, f"NOT ANCHORED: no checkpoint in {str(empty)!r}")
    assert "OK:" not in said


def test_the_server_writes_signed_checkpoints_by_itself(
    database_url: str, tmp_path: Path, new_client: Any
) -> None:
    from colour_collector.server.app import create_app
    from support import make_settings

    key_file, directory = tmp_path / "key", tmp_path / "anchors"
    key_file.write_bytes(KEY)
    directory.mkdir()
    application = create_app(
        make_settings(
            database_url,
            tmp_path,
            audit_checkpoint_dir=directory,
            audit_checkpoint_key_file=key_file,
        )
    )
    try:
        with new_client(application) as client:  # the lifespan runs: a checkpoint at start
            client.sign_up("anchored@example.com")
        files = list(directory.glob("checkpoint-*.json"))
        assert len(files) == 1
        ok = run("verify", "--database-url", database_url, "--checkpoints", str(directory),
                 "--key-file", str(key_file))  # fmt: skip
        assert ok.exit_code == 0, ok.output
    finally:
        application.state.database.dispose()
    with pytest.raises(ValueError, match="set together"):
        make_settings(database_url, tmp_path, audit_checkpoint_dir=directory)


def test_payments_through_the_provider_reconcile_and_an_edited_withdrawal_is_found(
    player: Any, database: Database, database_url: str, played: dict[str, Any]
) -> None:
    player.post("/api/protection/deposit-limits/decline", json={})
    for kind, amount, key in (("deposits", 2500, "in-1"), ("withdrawals", 1200, "out-1")):
        made = player.post(
            f"/api/wallet/{kind}", json={"amount_pence": amount}, headers={"Idempotency-Key": key}
        )
        assert made.status_code == 201, made.text
    assert run("verify", "--database-url", database_url).exit_code == 0
    sql(database, "UPDATE ledger SET amount_pence = -12 WHERE kind = 'withdrawal'")
    broken(
        run("verify", "--database-url", database_url),
        "withdrawal, -12 pence",
        "the audit log recorded a withdrawal",
        "1200 pence",
    )


def test_checkpoints_naming_a_file_is_refused_as_not_a_directory(
    database_url: str, tmp_path: Path
) -> None:
    key_file = tmp_path / "ck.key"
    key_file.write_bytes(KEY)
    for command in ("checkpoint", "verify"):
        done = run(command, "--checkpoints", str(key_file), "--key-file", str(key_file),
                   "--database-url", database_url)  # fmt: skip
        assert done.exit_code == 2, done.output
        said = f"colour-collector audit {command}: --checkpoints {str(key_file)!r} is not a"
        assert f"{said} directory" in done.output, done.output
        assert "File exists" not in done.output and "Traceback" not in done.output
    assert key_file.read_bytes() == KEY
    assert list(tmp_path.rglob("checkpoint-*")) == []


def test_a_missing_checkpoint_directory_is_refused_not_made(
    database_url: str, tmp_path: Path
) -> None:
    """The directory is meant to be another machine's mount: if it is not there (not mounted),
    writing a checkpoint into a new local folder would look fine and protect nothing."""
    key_file, missing = tmp_path / "ck.key", tmp_path / "mnt" / "anchors"
    key_file.write_bytes(KEY)
    done = run("checkpoint", "--checkpoints", str(missing), "--key-file", str(key_file),
               "--database-url", database_url)  # fmt: skip
    assert done.exit_code == 2, done.output
    assert f"no checkpoint directory {str(missing)!r} (it is not made" in done.output
    assert "Traceback" not in done.output
    assert not (tmp_path / "mnt").exists()
