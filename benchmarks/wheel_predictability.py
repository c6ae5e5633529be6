"""How well the screen before a Main Game spin predicts where the wheel stops.

The predictor: the colour holding most of the commonest shape on the grid. Chance is 1 in 6.
For tiers a natural simulation reaches, planned plays are compared with natural plays of the same
tier (natural Main Games kept when they come to it); for rare tiers only planned plays exist.

    .venv/bin/python benchmarks/wheel_predictability.py --plays 150 --seed 7
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from colour_collector.game.view import board, step_detail

from colour_collector.game.config import load_config
from colour_collector.game.generator import generate, natural_outcome
from colour_collector.game.natural import simulate_main
from colour_collector.game.prize_table import Tier, tier_by_name
from colour_collector.game.record import PlayRecord

CFG = load_config()
COMPARED = ["£10", "£20", "£12 (£5 + £7)", "£15 (£5 + £10)"]
RARE = ["£500", "£2,000", "£1,000,000"]


def accuracy(records: list[PlayRecord]) -> tuple[float, int]:
    """Share of spins whose wheel the predictor names, and the number of spins."""
    hits = spins = 0
    for record in records:
        for index in range(len(record.steps)):
            shown = board(record, index)
            if shown["next"] != "spin":
                continue
            shapes = Counter(s["item"] for s in shown["grid"] if s["item"] != "bonus")
            target = shapes.most_common(1)[0][0]
            colours = Counter(s["colour"] for s in shown["grid"] if s["item"] == target)
            hits += colours.most_common(1)[0][0] == step_detail(record, index)["wheel"]
            spins += 1
    return hits / spins, spins


def natural(tier: Tier, count: int, rng: random.Random) -> list[PlayRecord]:
    """Natural Main Games that come to ``tier``."""
    found: list[PlayRecord] = []
    while len(found) < count:
        main = simulate_main(CFG, rng)
        if natural_outcome(main, CFG) == tier.index:
            found.append(PlayRecord(main.grid, main.steps, None))
    return found


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--plays", type=int, default=150)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("| tier | planned plays | natural plays of the tier |")
    print("|---|---:|---:|")
    for name in COMPARED + RARE:
        tier = tier_by_name(name)
        planned, _ = accuracy([generate(tier, rng) for _ in range(args.plays)])
        shown = "-"
        if name in COMPARED:
            shown = f"{accuracy(natural(tier, args.plays, rng))[0]:.3f}"
        print(f"| {name} | {planned:.3f} | {shown} |")


if __name__ == "__main__":
    main()
