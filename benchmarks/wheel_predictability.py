"""How well the screen before a Main Game spin predicts where the wheel stops, class by class.

Run: ``.venv/bin/python benchmarks/wheel_predictability.py [--plays 600] [--seed 1]``.

Two predictors, each compared between generated plays and natural plays of the same tier class
(``naturalness.CLASSES``, the same samples as the naturalness battery): "the colour most
represented on the grid" and the certification review's "the colour holding most of the
commonest item". Chance would be 1 in 6 if the screen said nothing; in natural play it says
something, because the spins that make a win collect more squares. A generated play must say
exactly as much: the difference over its standard error, and its p-value, are printed.
"""

from __future__ import annotations

import argparse

from colour_collector.game import naturalness, sample_comparison

PREDICTORS = (
    "wheel on the grid's commonest colour",
    "wheel on the colour holding most of the commonest item",
)


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"Plays per class: {args.plays:,}; seed {args.seed}.\n")
    print("| class | predictor | generated | natural | difference / error | p-value |")
    print("|---|---|---:|---:|---:|---:|")
    for cls in naturalness.CLASSES:
        run = naturalness.run_class(cls, args.plays, args.seed)
        for c in sample_comparison.compare(cls.name, run.generated, run.reference):
            if c.statistic in PREDICTORS:
                z = (c.generated - c.natural) / c.error
                short = "commonest colour" if c.statistic == PREDICTORS[0] else "commonest item"
                print(
                    f"| {cls.name} | {short} | {c.generated:.3f} | {c.natural:.3f} | "
                    f"{z:+.2f} | {c.pvalue:.2g} |"
                )


if __name__ == "__main__":
    main()
