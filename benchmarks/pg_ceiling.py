"""What PostgreSQL alone can do on this machine: the server's SQL for one step, run by pgbench.

Run: ``.venv/bin/python benchmarks/pg_ceiling.py [--clients 50] [--duration 15]``.

It starts a throwaway PostgreSQL 15 cluster (as ``load_server.py`` does, ``synchronous_commit``
off), creates the schema with the game's migrations, gives each of ``--clients`` accounts a
session and an unfinished play (with a record of the real size), then runs ``pgbench`` (C, one
connection per client, prepared statements) replaying what the server sends for one step request:
one transaction with the session look-up, the play locked and its counter moved, and the audit
append (lock the chain head, hash and insert the entry, move the head) as one statement.
``--lean`` joins the session look-up to the play's lock (one statement fewer); ``--before`` is
a step as the server sent it before the audit append became one statement. The audit hash is
worked out with the server's SQL functions over a shorter text than the server's (about a
hundred bytes shorter; not measured separately). No Python
runs while it measures, so the figure is a ceiling for the game server's step requests on this
machine: the server itself needs CPU on the same cores on top of it.

This is a measurement, not a test: figures go into docs/load.md.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import psycopg

from colour_collector.store.migrate import upgrade_to_head
from load_server import PG_BIN, postgres_cluster

RECORD = "x" * 2300
"""A stored play record is about 2.3 KB of JSON text."""

AUDIT = """WITH head AS (SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE),
entry AS (
  INSERT INTO audit_log (seq, created_at, kind, account_id, payload, prev_hash, hash)
  SELECT seq + 1, now(), 'reveal', :a, '{{"kind":"spin","play_number":"P","step":1}}', hash,
         encode(sha256(convert_to('[' || (seq + 1) || ',"x",' || hash || ']', 'UTF8')), 'hex')
  FROM head RETURNING seq, hash)
UPDATE audit_head SET seq = entry.seq, hash = entry.hash FROM entry WHERE audit_head.id = 1;"""

STEP = (
    r"""
\set a random(1, {clients})
BEGIN;
SELECT accounts.* FROM accounts JOIN sessions ON sessions.account_id = accounts.id
  WHERE sessions.token_hash = 'token-' || :a AND sessions.expires_at > now();
SELECT * FROM plays WHERE play_number = 'P' || :a FOR UPDATE;
UPDATE plays SET revealed = revealed + 1 WHERE play_number = 'P' || :a;
"""
    + AUDIT
    + """
COMMIT;
"""
)
"""What the server sends for a step on PostgreSQL: one transaction, the session look-up, the
play locked and its counter moved, the audit append as one statement (``SqlAuditRepository``)."""

LEAN_STEP = (
    r"""
\set a random(1, {clients})
BEGIN;
SELECT plays.*, accounts.* FROM sessions JOIN accounts ON sessions.account_id = accounts.id
  JOIN plays ON plays.account_id = accounts.id
  WHERE sessions.token_hash = 'token-' || :a AND sessions.expires_at > now()
  AND plays.play_number = 'P' || :a FOR UPDATE OF plays;
UPDATE plays SET revealed = revealed + 1 WHERE play_number = 'P' || :a;
"""
    + AUDIT
    + """
COMMIT;
"""
)
"""One statement fewer: the session look-up joined to the play's lock."""

BEFORE_STEP = r"""
\set a random(1, {clients})
BEGIN;
SELECT accounts.* FROM accounts JOIN sessions ON sessions.account_id = accounts.id
  WHERE sessions.token_hash = 'token-' || :a AND sessions.expires_at > now();
ROLLBACK;
BEGIN;
SELECT * FROM plays WHERE play_number = 'P' || :a FOR UPDATE;
UPDATE plays SET revealed = revealed + 1 WHERE play_number = 'P' || :a;
SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE;
INSERT INTO audit_log (seq, created_at, kind, account_id, payload, prev_hash, hash)
  SELECT seq + 1, now(), 'reveal', :a, '{{"kind":"spin","play_number":"P","step":1}}', hash,
         md5(random()::text) || md5(random()::text)
  FROM audit_head WHERE id = 1;
UPDATE audit_head SET seq = seq + 1,
  hash = (SELECT hash FROM audit_log WHERE audit_log.seq = audit_head.seq + 1) WHERE id = 1;
COMMIT;
"""
"""A step as the server sent it before: the session look-up in a read transaction of its own,
then the audit append as three statements (lock the head, insert, move the head), the hash
worked out in Python (here a random stand-in: no Python runs)."""


def seed(url: str, clients: int) -> None:
    upgrade_to_head(url)
    conninfo = url.replace("postgresql+psycopg2://", "postgresql://")
    with psycopg.connect(conninfo) as connection:
        for n in range(1, clients + 1):
            account = connection.execute(
                "INSERT INTO accounts (email, password_hash, date_of_birth, created_at)"
                " VALUES (%s, 'x', '1990-01-01', now()) RETURNING id",
                (f"player{n}@example.com",),
            ).fetchone()
            assert account is not None
            connection.execute(
                "INSERT INTO sessions VALUES (%s, %s, now(), now() + interval '1 day')",
                (f"token-{n}", account[0]),
            )
            connection.execute(
                "INSERT INTO plays (play_number, account_id, status, record, revealed, steps,"
                " prize_pence, price_pence, balance_before_pence, purchased_at, finish_by)"
                " VALUES (%s, %s, 'in_progress', %s, 0, 9, 0, 500, 0, now(),"
                " now() + interval '1 day')",
                (f"P{n}", account[0], RECORD),
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--duration", type=int, default=15)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--lean", action="store_true", help="the session joined to the play lock")
    which.add_argument("--before", action="store_true", help="a step as sent before this pass")
    parser.add_argument(
        "--one-core",
        action="store_true",
        help="pin PostgreSQL and pgbench to CPU 0 (what is left when the server takes the other)",
    )
    args = parser.parse_args()
    with postgres_cluster(durable=False) as url, tempfile.TemporaryDirectory() as work:
        seed(url, args.clients)
        script = Path(work) / "step.sql"
        sql = LEAN_STEP if args.lean else BEFORE_STEP if args.before else STEP
        script.write_text(sql.format(clients=args.clients))
        script.chmod(0o644)
        Path(work).chmod(0o755)
        match = re.match(r"postgresql\+psycopg2://(\w+)@([\d.]+):(\d+)/(\w+)", url)
        assert match is not None
        user, host, port, dbname = match.groups()
        pin: list[str] = []
        if args.one_core:
            # Backends are forked from the postmaster (found by its port) and inherit its
            # affinity; the background processes already running are left where they are.
            postmaster = subprocess.run(
                ["pgrep", "-u", "postgres", "-f", f"postgres .*-p {port} "],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            for pid in postmaster:
                subprocess.run(
                    ["taskset", "-a", "-p", "-c", "0", pid], capture_output=True, check=True
                )
            pin = ["taskset", "-c", "0"]
        command = [
            *pin,
            str(PG_BIN / "pgbench"),
            *("-h", host, "-p", port, "-U", user, "-n", "-M", "prepared"),
            *("-c", str(args.clients), "-j", "2", "-T", str(args.duration)),
            *("-f", str(script), dbname),
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        print(done.stdout)
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            raise SystemExit(done.returncode)


if __name__ == "__main__":
    main()
