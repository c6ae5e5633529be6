"""The ``prizes`` command: the published prize structure as an exact 6,500,000-play pool."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Annotated, Any

import typer

from colour_collector.cli.base import app
from colour_collector.game.money import pounds
from colour_collector.game.pool import PrizePool, load_pool


def two_dp(value: Fraction) -> str:
    """``value`` to 2 decimal places, halves rounded up, with thousands separators."""
    hundredths = math.floor(value * 100 + Fraction(1, 2))
    return f"{hundredths // 100:,}.{hundredths % 100:02d}"


def pool_summary(pool: PrizePool) -> dict[str, Any]:
    """The JSON object ``prizes --json`` prints."""
    return {
        "pool_size": pool.size,
        "winners": pool.winners,
        "no_win_count": pool.no_win_count,
        "overall_odds": float(two_dp(pool.overall_odds).replace(",", "")),
        "payout_percent": two_dp(pool.payout * 100),
        "total_prize_pence": pool.total_prize_pence,
        "tiers": [
            {
                "name": tier.name,
                "prize_pence": tier.prize_pence,
                "printed_odds": tier.printed_odds,
                "count": count,
                "rows_pence": list(tier.rows),
                "prize_game_pence": tier.prize_game,
            }
            for tier, count in zip(pool.tiers, pool.counts, strict=True)
        ],
    }


def pool_table(pool: PrizePool) -> str:
    """The readable table ``prizes`` prints: one line per tier, then the totals."""
    header = ("Prize", "Amount", "Printed odds", "Count", "Exact odds")
    lines = [
        (
            tier.name,
            pounds(tier.prize_pence),
            f"1 in {tier.printed_odds:,}",
            f"{count:,}",
            f"1 in {two_dp(pool.tier_odds(tier.index))}",
        )
        for tier, count in zip(pool.tiers, pool.counts, strict=True)
    ]
    widths = [max(len(row[i]) for row in (header, *lines)) for i in range(len(header))]

    def render(row: tuple[str, ...]) -> str:
        cells = [cell.rjust(width) for cell, width in zip(row, widths, strict=True)]
        cells[0] = row[0].ljust(widths[0])
        return "  ".join(cells).rstrip()

    rule = "  ".join("-" * w for w in widths)
    totals = [
        f"Pool size:     {pool.size:,} plays",
        f"Winners:       {pool.winners:,} ({pool.no_win_count:,} plays win nothing)",
        f"Overall odds:  1 in {two_dp(pool.overall_odds)}",
        f"Prize money:   {pounds(pool.total_prize_pence)}",
        f"Payout:        {two_dp(pool.payout * 100)}%",
    ]
    return "\n".join([render(header), rule, *map(render, lines), rule, *totals])


@app.command("prizes")
def prizes(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the table.")
    ] = False,
) -> None:
    """Show the prize tiers, their counts in the 6,500,000-play pool, odds and payout."""
    pool = load_pool()
    if as_json:
        typer.echo(json.dumps(pool_summary(pool), ensure_ascii=False))
    else:
        typer.echo(pool_table(pool))
