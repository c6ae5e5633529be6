"""Generate + replay throughput on one core, over the pool's mix of outcomes.

Run: ``.venv/bin/python benchmarks/bench_generate.py [--plays 20000] [--seed 1]``. The generator's
per-process tables are worked out first (``generator.prepare``, as a server does at start; timed
apart); outcomes are drawn with ``IndependentDraw`` (not timed); then each play is generated and
replayed through the rules (timed), and its replayed tier is checked against the drawn one. The
figure goes into docs/benchmarks.md; this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from colour_collector.game.config import load_config
from colour_collector.game.draw import IndependentDraw
from colour_collector.game.generator import generate, prepare
from colour_collector.game.pool import load_pool
from colour_collector.game.replay import replay


def main() -> None:
    """Measure and print plays per second."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    args = parser.parse_args()
    config = load_config()
    started = time.perf_counter()
    prepare(config)
    print(f"prepare: {time.perf_counter() - started:.1f} s")
    draw = IndependentDraw(load_pool())
    rng = random.Random(args.seed)
    outcomes = [draw.draw(rng) for _ in range(args.plays)]
    best = float("inf")
    for run in range(args.repeat):
        rng = random.Random(args.seed + run)
        started = time.perf_counter()
        for tier in outcomes:
            result = replay(generate(tier, rng, config), config)
            if result.tier != tier:
                raise SystemExit(f"invalid play: drew {tier!r}, replayed {result.tier!r}")
        elapsed = time.perf_counter() - started
        best = min(best, elapsed)
        print(f"run {run + 1}: {args.plays / elapsed:,.0f} plays/s ({elapsed:.2f} s)")
    print(
        f"best: {args.plays / best:,.0f} plays/s generate + replay on one core "
        f"({args.plays:,} plays, seed {args.seed}, Python {platform.python_version()}, "
        f"{platform.machine()})"
    )


if __name__ == "__main__":
    main()
