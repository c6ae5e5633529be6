"""Instructions the server runs for whole plays, or for ``/healthz``, counted by Valgrind.

Run: ``valgrind --tool=callgrind --instr-atstart=no .venv/bin/python
benchmarks/request_instructions.py [--plays 20 | --healthz 200]`` (about 3 minutes; set
``PYTHONHASHSEED=0``). Valgrind prints ``Collected : N``: the instructions of the measured
requests only (this script switches callgrind's instrumentation on after the warm-up with
``callgrind_control``).

``request_cost.py`` times requests with the CPU clock, which a busy shared machine moves by a
factor of two; an instruction count does not move with the machine's load. It leaves out the
kernel (so a commit's ``fsync``) and the CPU's cache misses: use it to A/B a change, then check
with ``request_cost.py`` and the load benchmark. SQLite only (PostgreSQL's work is in its own
processes). This is a measurement, not a test: figures go into docs/load.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import tempfile
from pathlib import Path

from colour_collector.server.app import create_app, frozen
from request_cost import Costs, Player, bench_settings, play, sign_up


def instrument(on: bool) -> None:
    """Switch callgrind's instrumentation of this process on or off."""
    flag = "on" if on else "off"
    subprocess.run(["callgrind_control", "-i", flag, str(os.getpid())], check=True)


async def measure(data_dir: Path, plays: int, healthz: int, warmup: int) -> Costs:
    settings = bench_settings(data_dir)
    app = frozen(create_app(settings))
    player, costs = Player(app), Costs()
    async with app.router.lifespan_context(app):
        await sign_up(player, settings.mail_outbox)
        for _ in range(warmup):
            await play(player, costs)
            await player.call("GET", "/healthz")
        costs.recording = True
        instrument(True)
        for _ in range(plays):
            await play(player, costs)
        for _ in range(healthz):
            await costs.timed("GET /healthz", player.call("GET", "/healthz"))
        instrument(False)
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--plays", type=int, default=0, help="whole plays measured")
    what.add_argument("--healthz", type=int, default=0, help="/healthz requests measured")
    parser.add_argument("--warmup", type=int, default=3, help="plays before measuring")
    args = parser.parse_args()
    if args.plays < 1 and args.healthz < 1:
        args.plays = 20
    with tempfile.TemporaryDirectory(prefix="cc-instructions-") as workdir:
        costs = asyncio.run(measure(Path(workdir), args.plays, args.healthz, args.warmup))
    counts = {name: len(times) for name, times in costs.cpu.items()}
    print(f"requests measured: {counts}; divide Valgrind's 'Collected' by them")


if __name__ == "__main__":
    main()
