"""Throwaway PostgreSQL 15 clusters for the tests, from Debian's binaries (``initdb``/``pg_ctl``,
run as the ``postgres`` user when we are root), on 127.0.0.1 and a free port with trust
authentication. Missing binaries FAIL the tests that need them (CI has them).

Import this module (it is on the tests' path), never ``conftest``.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from support import free_port

PG_BIN_DIRS = tuple(
    str(path)
    for path in sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0,
        reverse=True,
    )
)
"""Debian's PostgreSQL servers, newest first (Debian 12 ships 15; any version will do)."""


def pg_binary(name: str) -> str:
    """The path of a PostgreSQL program; fails the test when it is not installed."""
    for directory in PG_BIN_DIRS:
        candidate = Path(directory) / name
        if candidate.is_file():
            return str(candidate)
    found = shutil.which(name)
    if found is None:
        pytest.fail(
            f"PostgreSQL binary {name!r} not found in /usr/lib/postgresql/*/bin or on the PATH."
            " Install PostgreSQL (Debian: apt-get install postgresql) to run the"
            " PostgreSQL-backed tests; they do not skip.",
            pytrace=False,
        )
    return found


@dataclass
class PgCluster:
    """A running throwaway PostgreSQL cluster."""

    port: int
    base: Path
    options: str = ""
    as_postgres: list[str] = field(default_factory=list)

    @property
    def data(self) -> Path:
        return self.base / "data"

    @property
    def log(self) -> Path:
        return self.base / "server.log"

    def url(self, database: str) -> str:
        """SQLAlchemy URL of a database in the cluster."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def _admin(self) -> Any:
        import psycopg

        return psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True
        )

    def create_database(self, template: str | None = None) -> str:
        """Create a fresh database (a copy of ``template``, else empty); return its name."""
        name = f"cc_test_{uuid.uuid4().hex[:12]}"
        copy = "" if template is None else f' TEMPLATE "{template}"'
        with self._admin() as connection:
            connection.execute(f'CREATE DATABASE "{name}"{copy}')
        return name

    def drop_database(self, name: str) -> None:
        """Drop a database, closing its connections."""
        with self._admin() as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def pg_ctl(self, *args: str, check: bool = True) -> None:
        """Run ``pg_ctl`` on this cluster (``start`` passes its options and log)."""
        command = [*self.as_postgres, pg_binary("pg_ctl"), "-D", str(self.data)]
        if args and args[0] == "start":
            command += ["-l", str(self.log), "-o", self.options]
        done = subprocess.run([*command, *args], capture_output=True, text=True, check=False)
        if check and done.returncode != 0:
            server_log = self.log.read_text() if self.log.exists() else ""
            pytest.fail(
                f"pg_ctl {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n"
                f"{done.stderr}\n{server_log}",
                pytrace=False,
            )


@contextmanager
def running_cluster() -> Iterator[PgCluster]:
    """A new cluster, started, and stopped and removed at the end."""
    initdb = pg_binary("initdb")
    as_postgres: list[str] = []
    base = Path(tempfile.mkdtemp(prefix="cc-pg-"))
    if os.geteuid() == 0:  # initdb refuses to run as root
        user = pwd.getpwnam("postgres")
        os.chown(base, user.pw_uid, user.pw_gid)
        as_postgres = ["runuser", "-u", "postgres", "--"]
    base.chmod(0o700)
    port = free_port()
    # fsync off: the suite's databases are throwaway. synchronous_commit stays on (the default,
    # as the server expects it; with fsync off it costs nothing).
    options = (
        f"-c listen_addresses=127.0.0.1 -p {port} -k {base} -c fsync=off"
        " -c full_page_writes=off -c max_connections=100"
    )
    cluster = PgCluster(port=port, base=base, options=options, as_postgres=as_postgres)
    done = subprocess.run(
        [*as_postgres, initdb, "-D", str(cluster.data), "-A", "trust", "-U", "postgres",
         "-E", "UTF8", "--no-sync", "--locale=C"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.fail(f"initdb failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    cluster.pg_ctl("start", "-w", "-t", "60")
    try:
        yield cluster
    finally:
        cluster.pg_ctl("stop", "-m", "fast", "-w", check=False)
        shutil.rmtree(base, ignore_errors=True)
