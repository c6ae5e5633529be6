"""The naturalness comparison table for docs/generator.md.

Run: ``.venv/bin/python benchmarks/naturalness_report.py [--plays 5000] [--seed 1]``.

For each outcome compared (no win, and £5 as the commonest win) it generates ``--plays`` plays
and simulates natural Main Games (``natural.simulate_main``) until ``--plays`` of them come to the
same outcome, then prints, per measure, the two means and a two-sample chi-square p-value.
"""

from __future__ import annotations

import argparse
import random

from colour_collector.game import naturalness
from colour_collector.game.generator import generate
from colour_collector.game.prize_table import tier_by_name

OUTCOMES = (
    ("no win", None, naturalness.no_win),
    ("£5", "£5", naturalness.five_pounds),
)


def main() -> None:
    """Print the comparison as a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"Plays per sample: {args.plays:,}; seed {args.seed}.\n")
    print("| Outcome | Measure | Generated mean | Natural mean | chi-square (dof) | p-value |")
    print("|---|---|---:|---:|---:|---:|")
    for label, name, keep in OUTCOMES:
        tier = None if name is None else tier_by_name(name)
        rng = random.Random(args.seed)
        generated = []
        for _ in range(args.plays):
            record = generate(tier, rng)
            generated.append(naturalness.main_measures(record.grid, record.steps))
        natural = naturalness.natural_plays(args.plays, random.Random(args.seed + 1), keep)
        for c in naturalness.compare(generated, natural):
            p = "n/a" if c.pvalue is None else f"{c.pvalue:.3g}"
            print(
                f"| {label} | {c.measure} | {c.mean_a:.3f} | {c.mean_b:.3f} | "
                f"{c.statistic:.1f} ({c.dof}) | {p} |"
            )


if __name__ == "__main__":
    main()
