"""The naturalness battery in full, as Markdown for docs/generator.md.

Run: ``.venv/bin/python benchmarks/naturalness_report.py [--plays 600] [--seed 1] [--control]``.

For every tier class (``naturalness.CLASSES``) it draws ``--plays`` natural plays of the class
(the class's reference) and as many generated plays of the same tiers, measures both through
the rules and compares every statistic (``sample_comparison.compare``). All p-values of the run are
Holm-adjusted together. It prints a summary per class, the wheel's predictability per class and
the whole table; with ``--control`` it runs the planned generator this one replaced
(``tests/control``) on the same references and prints its summary too.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from colour_collector.game import naturalness, sample_comparison
from colour_collector.game.generator import generate
from colour_collector.game.naturalness import CLASSES, ClassRun
from colour_collector.game.sample_comparison import Comparison

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from control.generator import generate as planned_generate

SIGNIFICANCE = 0.01
"""Family-wise error rate the adjusted p-values are held to."""


def _run(plays: int, seed: int, generator: object) -> list[tuple[ClassRun, list[Comparison]]]:
    runs = []
    for cls in CLASSES:
        started = time.perf_counter()
        run = naturalness.run_class(cls, plays, seed, generator)
        comparisons = sample_comparison.compare(cls.name, run.generated, run.reference)
        runs.append((run, comparisons))
        print(f"{cls.name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return runs


def _summary(runs: list[tuple[ClassRun, list[Comparison]]], title: str) -> list[float]:
    every = [c for _, comparisons in runs for c in comparisons]
    adjusted = sample_comparison.holm([c.pvalue for c in every])
    by_class: dict[str, list[tuple[Comparison, float]]] = {}
    for comparison, p in zip(every, adjusted, strict=True):
        by_class.setdefault(comparison.tier_class, []).append((comparison, p))
    print(f"\n### {title}\n")
    print(
        "| class | reference | plays (natural, effective) | tests | smallest p | "
        "smallest adjusted p | verdict |"
    )
    print("|---|---|---:|---:|---:|---:|---|")
    for run, _ in runs:
        rows = by_class.get(run.tier_class.name, [])
        weights = [w for _, w in run.reference]
        effective = sum(weights) ** 2 / sum(w * w for w in weights)
        smallest = min((c.pvalue for c, _ in rows), default=1.0)
        worst = min((p for _, p in rows), default=1.0)
        verdict = "natural" if worst > SIGNIFICANCE else "**told apart**"
        print(
            f"| {run.tier_class.name} | {run.tier_class.reference.value} | "
            f"{len(run.reference)}, {effective:.0f} | {len(rows)} | {smallest:.2g} | "
            f"{worst:.2g} | {verdict} |"
        )
    return adjusted


def main() -> None:
    """Print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--control", action="store_true", help="also run the planned generator")
    args = parser.parse_args()
    started = time.perf_counter()
    runs = _run(args.plays, args.seed, generate)
    print(f"Plays per class: {args.plays:,}; seed {args.seed}; Holm-adjusted at {SIGNIFICANCE}.")
    adjusted = _summary(runs, "Generated plays against natural plays")
    print("\n### The wheel's predictability\n")
    print(
        "Share of Main Game spins whose wheel stops on the colour most represented on the grid"
        " (chance would be 1/6 if the grid said nothing).\n"
    )
    print("| class | generated | natural | difference / its standard error | p-value |")
    print("|---|---:|---:|---:|---:|")
    for run, comparisons in runs:
        for c in comparisons:
            if c.statistic == "wheel on the grid's commonest colour":
                z = (c.generated - c.natural) / c.error
                print(
                    f"| {run.tier_class.name} | {c.generated:.3f} | {c.natural:.3f} | "
                    f"{z:+.2f} | {c.pvalue:.2g} |"
                )
    print("\n### Every statistic\n")
    print(
        "| class | part | statistic | generated | natural | test | statistic value | p-value | "
        "adjusted p |"
    )
    print("|---|---|---|---:|---:|---|---:|---:|---:|")
    every = [c for _, comparisons in runs for c in comparisons]
    for c, p in zip(every, adjusted, strict=True):
        print(
            f"| {c.tier_class} | {c.part} | {c.statistic} | {c.generated:.4g} | "
            f"{c.natural:.4g} | {c.test} | {c.statistic_value:.2f} | {c.pvalue:.3g} | {p:.3g} |"
        )
    if args.control:
        control = _run(args.plays, args.seed, planned_generate)
        _summary(control, "Control: the planned generator against the same natural plays")
    print(f"\n({time.perf_counter() - started:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
