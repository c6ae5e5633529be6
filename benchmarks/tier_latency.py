"""How long ``generate`` takes for each tier: median, 99th percentile and worst, over many plays.

Run: ``.venv/bin/python benchmarks/tier_latency.py [--plays 200] [--seed 1] [--tier NAME]``.

The per-process tables are worked out first (``generator.prepare``, timed separately), as a
server does at start; then every tier (and no win) is generated ``--plays`` times, each play
timed on its own, by the wall clock (``time.perf_counter``) and by the process's CPU time
(``time.process_time``, which other work on a shared machine disturbs less). The table goes
into ``docs/benchmarks.md``; this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from colour_collector.game.config import load_config
from colour_collector.game.generator import generate, main_sampler, prepare
from colour_collector.game.prize_table import load_tiers, tier_by_name


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def main() -> None:
    """Print a Markdown table of per-tier generation times."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tier", action="append", help="only this tier (repeatable)")
    args = parser.parse_args()
    config = load_config()
    started = time.perf_counter()
    prepare(config)
    setup = time.perf_counter() - started
    tiers = [None, *load_tiers()] if not args.tier else [tier_by_name(t) for t in args.tier]
    print(
        f"prepare: {setup:.1f} s; {args.plays} plays a tier, seed {args.seed}, "
        f"Python {platform.python_version()}, {platform.machine()}\n"
    )
    print(
        "| tier | method | median ms | p99 ms | worst ms | CPU median ms | CPU p99 ms | "
        "CPU worst ms |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    worst = [0.0, 0.0]
    for tier in tiers:
        rng = random.Random(args.seed)
        wall: list[float] = []
        cpu: list[float] = []
        for _ in range(args.plays):
            began, began_cpu = time.perf_counter(), time.process_time()
            generate(tier, rng, config)
            wall.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
        name = "no win" if tier is None else tier.name
        method = main_sampler(tier, config).method.value
        cells = []
        for i, times in enumerate((wall, cpu)):
            p99 = percentile(times, 0.99)
            worst[i] = max(worst[i], p99)
            cells.append(f"{percentile(times, 0.5):.2f} | {p99:.2f} | {max(times):.2f}")
        print(f"| {name} | {method} | {cells[0]} | {cells[1]} |")
    print(f"\nlargest p99: {worst[0]:.1f} ms (wall), {worst[1]:.1f} ms (CPU)")


if __name__ == "__main__":
    main()
