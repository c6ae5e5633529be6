"""PostgreSQL with the least-privilege layout of docs/operations.md: the tables' owner runs the
migrations and ``colour-collector db grants``; the server, connected as its own role, plays whole
games, resets a forgotten password and its audit chain verifies, but that role cannot erase or
rewrite the audit log or the ledger, move the chain's head, or turn a trigger off."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from plays_fixtures import deposit, play_settings, whole_play
from typer.testing import CliRunner

from colour_collector.cli.app import app as cli
from colour_collector.server.app import create_app
from colour_collector.service import audit, pools
from pg_cluster import PgCluster
from pool_support import small_pool
from support import RESET_LINK, outbox_token

pytestmark = pytest.mark.postgres

FORBIDDEN = [
    "TRUNCATE audit_log",
    "DELETE FROM audit_log",
    "UPDATE audit_log SET payload = '{}'",
    "UPDATE ledger SET amount_pence = amount_pence * 100",
    "DELETE FROM ledger",
    "TRUNCATE ledger",
    "UPDATE audit_head SET seq = 0",
    "ALTER TABLE audit_log DISABLE TRIGGER USER",
    "DROP TRIGGER audit_log_no_update ON audit_log",
    "DELETE FROM plays",
    "UPDATE pools SET commitment = 'another', parameters = '{}', size = 1",
    "INSERT INTO operators (name, password_hash, role, created_at)"
    " VALUES ('mallory', 'x', 'manager', now())",
]


def url(cluster: PgCluster, role: str, database: str) -> str:
    return f"postgresql+psycopg://{role}@127.0.0.1:{cluster.port}/{database}"


def connect(cluster: PgCluster, role: str, database: str) -> Any:
    return psycopg.connect(
        f"host=127.0.0.1 port={cluster.port} user={role} dbname={database}", autocommit=True
    )


def test_the_servers_role_plays_but_cannot_erase_or_rewrite(
    pg_cluster: PgCluster, tmp_path: Path, new_client: Any
) -> None:
    suffix = uuid.uuid4().hex[:8]
    owner, server_role, name = f"owner_{suffix}", f"app_{suffix}", f"roles_{suffix}"
    with connect(pg_cluster, "postgres", "postgres") as admin:
        admin.execute(f"CREATE ROLE {owner} LOGIN")
        admin.execute(f"CREATE ROLE {server_role} LOGIN")
        admin.execute(f"CREATE DATABASE {name} OWNER {owner}")
    runner = CliRunner()
    migrated = runner.invoke(cli, ["db", "migrate", "--database-url", url(pg_cluster, owner, name)])
    assert migrated.exit_code == 0, migrated.output
    printed = runner.invoke(cli, ["db", "grants", "--app-role", server_role])
    assert printed.exit_code == 0, printed.output
    with connect(pg_cluster, owner, name) as as_owner:
        as_owner.execute(printed.output)

    settings = play_settings(url(pg_cluster, server_role, name), tmp_path, draw_mode="pool")
    application = create_app(settings)  # its migrations find the schema at head: nothing to do
    key = pools.seal_key(settings.secret_key.get_secret_value())
    try:
        # The pool commands run with the server's settings: its role loads and closes a pool,
        # and deals from it (only the columns that change as a pool sells and closes).
        pools.load(application.state.database, small_pool(4, {"£5": 1}), key, published_only=False)
        with new_client(application) as player:
            player.sign_up("roles@example.com")
            # Activity moves the session's end on (an UPDATE of its expires_at).
            active = player.post("/api/session/activity", json={})
            assert active.status_code == 200, active.text
            deposit(player, 1000)
            whole_play(player)
            sold = player.get("/api/my-games").json()["items"][0]
            assert (sold["pool_id"], sold["pool_position"]) == (1, 0)
            closed = pools.close(application.state.database, 1, key, withdraw=True)
            assert closed.secret is not None
            asked = player.post("/api/password/forgot", json={"email": "roles@example.com"})
            assert asked.status_code == 202, asked.text
            outbox = application.state.runtime.settings.mail_outbox
            token = outbox_token(outbox, "roles@example.com", RESET_LINK)
            body = {"token": token, "password": "a new password for roles"}
            reset = player.post("/api/password/reset", json=body)
            assert reset.status_code == 200, reset.text
        assert audit.verify_chain(application.state.database).entries > 0
    finally:
        application.state.database.dispose()

    with connect(pg_cluster, server_role, name) as as_server:
        for statement in FORBIDDEN:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                as_server.execute(statement)
        assert as_server.execute("SELECT count(*) FROM audit_log").fetchone()[0] > 0


def test_grants_refuse_a_role_name_that_is_not_plain() -> None:
    refused = CliRunner().invoke(cli, ["db", "grants", "--app-role", "app; DROP TABLE x"])
    assert refused.exit_code == 2
    assert "not a plain role name" in refused.output
