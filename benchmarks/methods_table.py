"""Which method draws each tier's Main Game, as the Markdown table of docs/generator.md.

Run: ``.venv/bin/python benchmarks/methods_table.py``. For every outcome (no win and the 99 tiers)
it prints the method ``generator.main_sampler`` chose (``natural``, ``cells`` or ``chain``), the
cells drawn from, the estimated share of draws kept (rejection methods) and the tier's share of
the prize pool. ``tests/unit/test_generator.py`` checks that the docs list the methods the code
uses.
"""

from __future__ import annotations

from fractions import Fraction

from colour_collector.game.config import load_config
from colour_collector.game.generator import main_sampler, prepare
from colour_collector.game.main_game_sampler import Method
from colour_collector.game.pool import load_pool


def main() -> None:
    """Print the table."""
    config = load_config()
    prepare(config)
    pool = load_pool()
    outcomes = [(None, pool.no_win_count), *zip(pool.tiers, pool.counts, strict=True)]
    print("| outcome | share of plays | method | cells | draws kept | drawn exactly |")
    print("|---|---:|---|---|---:|---:|")
    shares: dict[Method, Fraction] = {}
    exact = Fraction(0)
    for tier, count in outcomes:
        sampler = main_sampler(tier, config)
        share = Fraction(count, pool.size)
        shares[sampler.method] = shares.get(sampler.method, Fraction(0)) + share
        exact += share * Fraction(sampler.exact_share)
        cells = (
            "; ".join(c.name for c in sampler.cells)
            if sampler.method is not Method.NATURAL
            else "-"
        )
        kept = f"{sampler.acceptance:.3f}" if sampler.method is not Method.CHAIN else "-"
        name = "no win" if tier is None else tier.name
        print(
            f"| {name} | {float(share):.2e} | {sampler.method.value} | {cells} | {kept} | "
            f"{sampler.exact_share:.0%} |"
        )
    print()
    for method, share in shares.items():
        print(f"- {method.value}: {float(share):.4%} of plays")
    print(f"- drawn exactly: {float(exact):.4%} of plays (estimated)")


if __name__ == "__main__":
    main()
