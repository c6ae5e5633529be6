"""What a process pays to get the generator's tables ready: worked out, or loaded from the cache.

Run: ``.venv/bin/python benchmarks/generator_tables.py [--repeat 3]``. Each run is a fresh Python
process calling ``generator_cache.warm()`` with the cache in a temporary directory: first with
the directory empty (the tables are worked out and saved), then with the file there (loaded). It
prints the wall and CPU time of ``warm()`` in each case (imports not included) and the file's size.
The figures go into docs/benchmarks.md; this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ONE_WARM = """
import json, time
from colour_collector import generator_cache
wall, cpu = time.perf_counter(), time.process_time()
source = generator_cache.warm()
print(json.dumps({"source": str(source), "wall": time.perf_counter() - wall,
                  "cpu": time.process_time() - cpu, "file": str(generator_cache.path())}))
"""


def warm_once(cache: Path) -> dict[str, float | str]:
    """One fresh process's ``warm()`` with the cache in ``cache``."""
    env = {**os.environ, "COLOUR_COLLECTOR_CACHE": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", ONE_WARM], env=env, capture_output=True, text=True, check=True
    )
    answer: dict[str, float | str] = json.loads(done.stdout.splitlines()[-1])
    return answer


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="processes of each kind")
    args = parser.parse_args()
    worked: list[dict[str, float | str]] = []
    loaded: list[dict[str, float | str]] = []
    size = 0
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as cache:
            worked.append(warm_once(Path(cache)))
            loaded.append(warm_once(Path(cache)))
            size = Path(str(loaded[-1]["file"])).stat().st_size
    for name, runs in (("worked out", worked), ("loaded", loaded)):
        sources = {str(r["source"]) for r in runs}
        wall = statistics.median(float(r["wall"]) for r in runs)
        cpu = statistics.median(float(r["cpu"]) for r in runs)
        print(f"{name:>10}: median wall {wall:6.2f} s, CPU {cpu:6.2f} s ({', '.join(sources)})")
    print(f"file size: {size / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
