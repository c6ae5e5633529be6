"""``colour-collector pool verify``: wall time and peak memory, whole pool or a slice, on one
process, local worker processes and a local Dask cluster.

Run (the figures go into docs/benchmarks.md and docs/pools.md; this is a measurement, not a test):

    .venv/bin/python benchmarks/pool_verify.py whole --workers 2
    .venv/bin/python benchmarks/pool_verify.py slice --plays 200000

``whole`` builds a 6,500,000-play pool (or takes ``--pool FILE``) and verifies all of it once.
``slice`` verifies positions ``0:PLAYS`` of such a pool with 1 worker, 2 workers and a local Dask
cluster of 2 single-threaded worker processes (started before the clock starts), ``--repeat``
times each in turn, and reports the best of each. Each run is the command itself in a
subprocess; its memory is the peak of the summed resident set sizes of the command and every
process it started, sampled every 0.2 s from /proc (shared pages counted in each process, so the
figure is on the high side).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

COMMAND = [sys.executable, "-c", "from colour_collector.cli.app import main; main()"]
CLUSTER = """
import sys
from dask.distributed import LocalCluster

with LocalCluster(
    n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
) as cluster:
    print(cluster.scheduler_address, flush=True)
    sys.stdin.read()
"""


@dataclass
class Run:
    """One ``pool verify`` run."""

    label: str
    seconds: float
    peak_rss_bytes: int
    answer: dict[str, object]


def _children() -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found.setdefault(int(fields[1]), []).append(int(entry))
    return found


def _tree_rss(root: int) -> int:
    children, total, stack = _children(), 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def verify(pool: Path, label: str, *options: str) -> Run:
    """Run ``pool verify POOL --json OPTIONS``; its wall time and peak memory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLOUR_COLLECTOR_")}
    started = time.perf_counter()
    process = subprocess.Popen(
        [*COMMAND, "pool", "verify", str(pool), "--json", *options],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    peak = 0
    while process.poll() is None:
        peak = max(peak, _tree_rss(process.pid))
        time.sleep(0.2)
    out, err = process.communicate()
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"{label}: exit {process.returncode}\n{out}\n{err}")
    return Run(label, seconds, peak, json.loads(out))


def build(folder: Path) -> Path:
    pool = folder / "pool.json"
    subprocess.run(
        [*COMMAND, "pool", "build", "--plays", "6500000", "--out", str(pool)],
        check=True, capture_output=True,
    )  # fmt: skip
    return pool


def describe(run: Run) -> str:
    answer = run.answer
    rate = int(answer["plays"]) / run.seconds  # type: ignore[call-overload]
    return (
        f"| {run.label} | {answer['plays']:,} | {run.seconds:,.1f} s | {rate:,.0f} plays/s |"
        f" {run.peak_rss_bytes / 2**20:,.0f} MiB | {'OK' if answer['ok'] else 'FAILED'} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["whole", "slice"])
    parser.add_argument("--pool", type=Path, help="a pool file (default: build one)")
    parser.add_argument("--workers", type=int, default=2, help="whole: local worker processes")
    parser.add_argument("--plays", type=int, default=200_000, help="slice: positions 0:PLAYS")
    parser.add_argument("--repeat", type=int, default=1, help="slice: runs of each, best kept")
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores,"
          f" Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        pool = args.pool or build(Path(folder))
        print("| Run | Plays | Wall time | Rate | Peak memory | Result |")
        print("|---|---:|---:|---:|---:|---|")
        if args.what == "whole":
            run = verify(
                pool, f"whole pool, {args.workers} workers", "--workers", str(args.workers)
            )
            print(describe(run))
            print(f"\nplays SHA-256 {run.answer['plays_sha256']}")
            return
        best: dict[str, Run] = {}
        with subprocess.Popen(
            [sys.executable, "-c", CLUSTER],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        ) as cluster:  # fmt: skip
            assert cluster.stdin is not None and cluster.stdout is not None
            address = cluster.stdout.readline().strip()
            slice_ = f"0:{args.plays}"
            for _ in range(args.repeat):
                for label, options in (
                    ("1 worker", ("--workers", "1")),
                    ("2 workers", ("--workers", "2")),
                    ("Dask, 2 workers", ("--scheduler", address)),
                ):
                    run = verify(pool, label, "--positions", slice_, *options)
                    if label not in best or run.seconds < best[label].seconds:
                        best[label] = run
            cluster.stdin.close()
            cluster.wait(timeout=60)
        for run in best.values():
            print(describe(run))
        digests = {str(run.answer["plays_sha256"]) for run in best.values()}
        one, two, dask = (best[k].seconds for k in ("1 worker", "2 workers", "Dask, 2 workers"))
        print(f"\n2 workers: {one / two:.2f}x one worker; Dask: {dask / two - 1:+.1%} against"
              f" local workers; the same plays everywhere: {len(digests) == 1}")  # fmt: skip


if __name__ == "__main__":
    main()
