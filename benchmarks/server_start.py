"""How long ``colour-collector serve`` takes from its start to its first answer.

Run: ``.venv/bin/python benchmarks/server_start.py [--repeat 5] [--sells-pools]``. Each run
starts the command on a free port with a new data directory (so the SQLite database is created
and migrated, as for each server the browser tests start), with the generator's tables already
in the cache (one ``warm()`` first), and times it until ``/healthz`` answers 200, polling every
10 ms. The browser tests start a server about fifty times a run, so this is part of the suite's
time. ``--sells-pools`` starts it with ``COLOUR_COLLECTOR_DRAW_MODE=pool``: a server selling
prize pools also works out its versions (``game.versions``) before it answers. The figures go
into docs/benchmarks.md; this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from colour_collector import generator_cache

COMMAND = Path(sys.executable).parent / "colour-collector"


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def one_start(data: Path, *, sells_pools: bool) -> float:
    """Seconds from starting ``serve`` on a new data directory to its first ``/healthz`` 200."""
    port = free_port()
    env = {
        **os.environ,
        "COLOUR_COLLECTOR_ENVIRONMENT": "test",
        "COLOUR_COLLECTOR_DATA_DIR": str(data),
        "COLOUR_COLLECTOR_SECRET_KEY": secrets.token_urlsafe(40),
        "COLOUR_COLLECTOR_DRAW_MODE": "pool" if sells_pools else "independent",
    }
    url = f"http://127.0.0.1:{port}/healthz"
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(COMMAND), "serve", "--port", str(port), "--no-access-log"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            if process.poll() is not None:
                raise SystemExit(f"serve exited with {process.returncode}")
            try:
                with urllib.request.urlopen(url, timeout=1) as answer:
                    if answer.status == 200:
                        return time.perf_counter() - started
            except OSError:
                time.sleep(0.01)
    finally:
        process.terminate()
        process.wait(timeout=10)


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="servers to start, one at a time")
    parser.add_argument(
        "--sells-pools", action="store_true", help="a server selling prize pools (draw mode pool)"
    )
    args = parser.parse_args()
    generator_cache.warm()  # the file is there, as on any machine after the first start
    with tempfile.TemporaryDirectory() as scratch:
        times = [
            one_start(Path(scratch) / f"data{i}", sells_pools=args.sells_pools)
            for i in range(args.repeat)
        ]
    print(
        f"serve to first /healthz: median {statistics.median(times):.2f} s,"
        f" min {min(times):.2f} s, max {max(times):.2f} s ({args.repeat} starts)"
    )


if __name__ == "__main__":
    main()
