"""The chain's tiers against natural play of them, from the independent reference (offline).

The rarest tiers are drawn by the chain (``skeleton_chain.SkeletonChain``), an approximation;
their exact draws take from 0.1 s to minutes a play. Natural plays of them are rarer still (about
one in 15,000 natural plays is of one of them), so they are collected once, offline, from the
independent reference (``tests/natural_reference.py``, which shares no code with the generator)
and kept in ``tests/reference/rare_tiers_natural.jsonl.gz``, one play record a line.

Run:

- ``.venv/bin/python benchmarks/rare_tiers.py collect --seed 13 --plays 14222000 --out FILE``:
  plays that many natural plays at that seed and writes those of the chain's tiers to ``FILE``
  (gzip, one ``{"tier": name, "record": ...}`` a line). The committed file is seeds 13 and 14
  (14,222,000 and 14,056,000 plays, about 40 minutes each on one core), concatenated.
- ``.venv/bin/python benchmarks/rare_tiers.py compare [--plays 600] [--seed 1] [--tier NAME]``:
  generates ``--plays`` plays of each chain tier and compares them with the collected natural
  plays of it on every statistic of the naturalness battery (``sample_comparison.compare``),
  printing each tier's smallest p-values and the share of plays winning a Symbols prize.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import time
from pathlib import Path

from colour_collector.game import codec, sample_comparison
from colour_collector.game.config import load_config
from colour_collector.game.generator import generate, main_sampler
from colour_collector.game.main_game_sampler import Method
from colour_collector.game.play_statistics import measure
from colour_collector.game.prize_table import load_tiers, tier_by_name
from colour_collector.game.record import PlayRecord

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from natural_reference import NaturalReference, collected


def chain_tiers() -> list[str]:
    """Names of the tiers the generator draws by the chain."""
    config = load_config()
    return [t.name for t in load_tiers() if main_sampler(t, config).method is Method.CHAIN]


def symbols_won(record: PlayRecord) -> bool:
    """Whether a Bonus Game round of ``record`` wins a SYMBOLS or MORE SYMBOLS prize."""
    return measure(record).ratios["wins awarding Symbols"][0] > 0


def collect(seed: int, plays: int, out: Path) -> None:
    wanted = set(chain_tiers())
    reference = NaturalReference()
    rng = random.Random(seed)
    kept = 0
    started = time.perf_counter()
    with gzip.open(out, "wt", encoding="utf-8") as sink:
        for made in range(plays):
            played = reference.play(rng)
            tier = played.result.tier
            if tier is not None and tier.name in wanted:
                record = codec.to_json(played.record)
                sink.write(json.dumps({"tier": tier.name, "record": record}) + "\n")
                kept += 1
            if (made + 1) % 1_000_000 == 0:
                print(f"{made + 1:,} plays, {kept} kept", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - started
    print(f"seed {seed}: {plays:,} plays, {kept} of the chain's tiers, {seconds:.0f} s")


def compare(plays: int, seed: int, names: list[str]) -> None:
    reference = collected()
    print(
        "| tier | natural plays | winning a Symbols prize: natural | generated | "
        "smallest p (statistic) | statistics |"
    )
    print("|---|---:|---:|---:|---|---:|")
    for name in names:
        natural = reference.get(name, [])
        rng = random.Random(seed)
        generated = [generate(tier_by_name(name), rng) for _ in range(plays)]
        share = sum(map(symbols_won, generated)) / plays
        comparisons = sample_comparison.compare(
            name, [measure(r) for r in generated], [(measure(r), 1.0) for r in natural]
        )
        if not comparisons:  # too few natural plays to compare
            natural_share = sum(map(symbols_won, natural)) / len(natural) if natural else 0.0
            print(f"| {name} | {len(natural)} | {natural_share:.1%} | {share:.1%} | - | 0 |")
            continue
        smallest = min(comparisons, key=lambda c: c.pvalue)
        natural_share = sum(map(symbols_won, natural)) / len(natural)
        print(
            f"| {name} | {len(natural):,} | {natural_share:.1%} | {share:.1%} | "
            f"{smallest.pvalue:.2g} ({smallest.statistic}) | {len(comparisons)} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gather = commands.add_parser("collect", help="collect natural plays of the chain's tiers")
    gather.add_argument("--seed", type=int, required=True)
    gather.add_argument("--plays", type=int, required=True)
    gather.add_argument("--out", type=Path, required=True)
    check = commands.add_parser("compare", help="compare generated plays with them")
    check.add_argument("--plays", type=int, default=600)
    check.add_argument("--seed", type=int, default=1)
    check.add_argument("--tier", action="append", help="only this tier (repeatable)")
    args = parser.parse_args()
    if args.command == "collect":
        collect(args.seed, args.plays, args.out)
    else:
        compare(args.plays, args.seed, args.tier or chain_tiers())


if __name__ == "__main__":
    main()
