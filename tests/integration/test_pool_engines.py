"""``pool verify`` (run in this process) on local worker processes and on a Dask cluster (a local
one, started here) certifies the same plays: the same counts and the same digest of every play as
one process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from colour_collector.cli.app import app as cli
from pool_support import small_pool, write_pool

CLUSTER = """
import sys
from dask.distributed import LocalCluster

with LocalCluster(
    n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
) as cluster:
    print(cluster.scheduler_address, flush=True)
    sys.stdin.read()
"""


def run(args: list[str], caplog: pytest.LogCaptureFixture) -> Any:
    """``colour-collector ARGS`` in this process (Typer's runner; the workers of ``pool verify``
    are processes of their own either way), with no server settings from the environment; no
    traceback raised, printed or logged (Dask logs through ``logging``, which pytest captures
    here where a process of its own printed it)."""
    unset: dict[str, str | None] = {
        name: None for name in os.environ if name.startswith("COLOUR_COLLECTOR_")
    }
    done = CliRunner().invoke(cli, args, env=unset)
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exc_info
    assert "Traceback" not in done.output
    assert not [record for record in caplog.records if record.exc_info], caplog.text
    return done


def verify(pool: Path, caplog: pytest.LogCaptureFixture, *options: str) -> dict[str, object]:
    done = run(["pool", "verify", str(pool), "--json", *options], caplog)
    assert done.exit_code == 0, done.output
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


@pytest.mark.slow
def test_local_workers_and_a_dask_cluster_certify_the_same_plays(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pool = write_pool(tmp_path / "pool.json", small_pool(600, {"£5": 90, "£14 (£6 + £8)": 9}))
    here = verify(pool, caplog)
    assert here["ok"] and here["engine"] == "this process"
    local = verify(pool, caplog, "--workers", "2")
    assert local["engine"] == "2 worker process(es)"
    with (tmp_path / "cluster.log").open("w") as log, subprocess.Popen(
        [sys.executable, "-c", CLUSTER],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
    ) as cluster:  # fmt: skip
        assert cluster.stdin is not None and cluster.stdout is not None
        address = cluster.stdout.readline().strip()
        try:
            assert address.startswith("tcp://"), (tmp_path / "cluster.log").read_text()
            distributed = verify(pool, caplog, "--scheduler", address)
        finally:
            cluster.stdin.close()
            cluster.wait(timeout=60)
    assert distributed["engine"] == f"Dask cluster at {address}"
    for answer in (local, distributed):
        assert answer["ok"], answer["problems"]
        assert answer["plays_sha256"] == here["plays_sha256"]
        assert answer["observed"] == here["observed"]
        assert answer["prize_pence"] == here["prize_pence"]


def test_a_bad_scheduler_address_is_a_clear_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pool = write_pool(tmp_path / "pool.json", small_pool(20, {"£5": 2}))
    done = run(["pool", "verify", str(pool), "--scheduler", "nowhere:port"], caplog)
    assert done.exit_code == 2, done.output
    assert "cannot reach the Dask scheduler at 'nowhere:port'" in done.stderr
