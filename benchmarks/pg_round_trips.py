"""What a round trip to PostgreSQL costs on this machine: wall time, and the CPU of the database's
backend process and of the client, for a bare ``SELECT 1``, a read-only transaction, a
transaction with one ``UPDATE``, and the server's own ``/healthz`` unit of work
(``Database.ping``: the pool's ping, ``BEGIN``, ``SELECT 1``, ``ROLLBACK``).

Run: ``.venv/bin/python benchmarks/pg_round_trips.py [--calls 3000]``. It starts a throwaway
PostgreSQL 15 cluster with its durable defaults (``load_server.postgres_cluster``) and talks to
it over loopback from one thread, one call at a time. The backend's CPU is read from
``/proc/<pid>/stat`` before and after (that backend process only: not the WAL writer's share of
a durable commit), in clock ticks of 10 ms, so it needs a few thousand calls.

Why: on PostgreSQL a play is about 60 round trips against a ``/healthz``'s 4 (docs/load.md), so
the cost of one round trip decides the plays per 1,000 ``/healthz`` ratio there. This is a
measurement, not a test: figures go into docs/load.md.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import psycopg

from colour_collector.store import Database
from load_server import postgres_cluster

TICKS = os.sysconf("SC_CLK_TCK")


def backend_cpu(pid: int) -> float:
    """User and system CPU seconds of process ``pid``."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def measure(label: str, pid: int, call: Callable[[], object], calls: int) -> None:
    for _ in range(100):  # warm: psycopg prepares a statement on its fifth run
        call()
    backend, wall, client = backend_cpu(pid), time.perf_counter(), time.process_time()
    for _ in range(calls):
        call()
    wall = time.perf_counter() - wall
    client = time.process_time() - client
    backend = backend_cpu(pid) - backend
    print(
        f"{label:46} wall {wall / calls * 1e6:7.1f} µs   backend CPU"
        f" {backend / calls * 1e6:6.1f} µs   client CPU {client / calls * 1e6:6.1f} µs"
    )
    if backend * TICKS < 50:  # /proc counts CPU in ticks (10 ms): too few to trust
        print(f"    (backend CPU from {backend * TICKS:.0f} clock ticks: use more --calls)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    args = parser.parse_args()
    with postgres_cluster() as url:
        plain = url.replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(plain, autocommit=True) as connection:
            connection.execute("CREATE TABLE counter (id int PRIMARY KEY, n bigint)")
            connection.execute("INSERT INTO counter VALUES (1, 0)")
            row = connection.execute("SELECT pg_backend_pid()").fetchone()
            assert row is not None
            pid = int(row[0])
            measure(
                "SELECT 1 (autocommit: 1 round trip)",
                pid,
                lambda: connection.execute("SELECT 1").fetchone(),
                args.calls,
            )
            connection.autocommit = False

            def read_only() -> None:
                connection.execute("SELECT 1").fetchone()
                connection.rollback()

            def one_update() -> None:
                connection.execute("UPDATE counter SET n = n + 1 WHERE id = %s", (1,))
                connection.commit()

            measure("BEGIN, SELECT 1, ROLLBACK (3)", pid, read_only, args.calls)
            measure("BEGIN, UPDATE, COMMIT (3, durable commit)", pid, one_update, args.calls)
        database = Database(url, pool_size=1)
        try:
            with database.engine.connect() as connection:
                pid = int(connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())
                connection.rollback()
            measure("Database.ping, /healthz's unit of work (4)", pid, database.ping, args.calls)
        finally:
            database.dispose()


if __name__ == "__main__":
    main()
