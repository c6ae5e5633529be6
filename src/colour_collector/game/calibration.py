"""The solver behind ``data/pool_counts.json``: integer tier counts for a 6,500,000-play pool.

Constraints (all from the Game Procedures, see docs/math.md):

* every tier's printed odds equal ``ceil(N / count)``;
* the overall odds ``N / winners`` round to 2.77;
* the prize money is exactly 73.50% of stakes.

Objective, in two parts:

1. the winner total is fixed at the integer nearest ``N / 2.77``, so the overall odds are as close
   to the printed 1 in 2.77 as a whole number of winners allows (not merely within rounding);
2. within that, each tier's count stays as close as possible to ``N / printed odds``: minimise the
   sum over tiers of the relative excess ``(count - N / odds) / (N / odds)``, which is
   ``sum(count * odds) / N - 99``, so the solver minimises the integer ``sum(count * odds)``.

``optimal_ranges`` proves the optimum unique (every count has one optimal value), so the
checked-in counts are *the* answer, not one of several.

scipy's ``milp`` solves it in floating point; the answer is rounded and then checked with exact
integer arithmetic before anything uses it. scipy and numpy are imported inside ``_scipy`` so the
rest of ``colour_collector.game`` never loads them.

Regenerate the checked-in counts with ``python -m colour_collector.game.calibration --write``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from colour_collector.game.errors import GameError
from colour_collector.game.pool import (
    COUNTS_NAME,
    POOL_SIZE,
    PUBLISHED_OVERALL_ODDS,
    PUBLISHED_PAYOUT,
    STAKE_PENCE,
    PrizePool,
    load_pool,
    pool_to_mapping,
)
from colour_collector.game.prize_table import Pence, Tier, load_tiers

COUNTS_PATH = Path(__file__).with_name("data") / COUNTS_NAME
"""Where ``--write`` puts the solved counts (the package's source tree)."""
TIME_LIMIT_SECONDS = 120.0
"""Give up if the solver has not proved an optimum by then."""


class CalibrationError(GameError):
    """No pool reproduces the published figures, or the solver's answer failed the exact check."""


def count_bounds(size: int, printed_odds: int) -> tuple[int, int]:
    """The counts ``c`` with ``ceil(size / c) == printed_odds``, as an inclusive (low, high)."""
    if printed_odds < 1:
        raise CalibrationError(f"printed odds must be >= 1, got {printed_odds!r}")
    low = -(-size // printed_odds)
    # ceil(size / c) <= o - 1 exactly when c * (o - 1) >= size, so the top is the last c below.
    high = size if printed_odds == 1 else (size - 1) // (printed_odds - 1)
    if low > high:
        raise CalibrationError(f"no count of {size!r} plays prints odds of {printed_odds!r}")
    return low, high


def winner_bounds(size: int, overall_odds: Fraction = PUBLISHED_OVERALL_ODDS) -> tuple[int, int]:
    """The winner totals ``w`` with ``size / w`` strictly within half a hundredth of the odds."""
    half = Fraction(1, 200)
    low = math.floor(size / (overall_odds + half)) + 1
    high = math.ceil(size / (overall_odds - half)) - 1
    if low > high:
        raise CalibrationError(f"no winner total of {size!r} plays gives odds of {overall_odds!r}")
    return low, high


def payout_target(size: int, payout: Fraction = PUBLISHED_PAYOUT) -> Pence:
    """The prize money, in pence, that pays ``payout`` of the stakes of ``size`` plays."""
    total = payout * size * STAKE_PENCE
    if total.denominator != 1:
        raise CalibrationError(f"a payout of {payout!r} on {size!r} plays is not whole pence")
    return total.numerator


def relative_excess(size: int, tiers: Sequence[Tier], counts: Sequence[int]) -> Fraction:
    """The objective: the sum over tiers of ``(count - size / odds) / (size / odds)``."""
    return sum(
        (Fraction(c * t.printed_odds, size) - 1 for t, c in zip(tiers, counts, strict=True)),
        start=Fraction(0),
    )


def target_winners(size: int, overall_odds: Fraction = PUBLISHED_OVERALL_ODDS) -> int:
    """The winner total nearest ``size / overall_odds`` (the smaller one on a tie)."""
    low, high = winner_bounds(size, overall_odds)
    exact = size / overall_odds
    best = min(
        range(max(low, math.floor(exact)), min(high, math.ceil(exact)) + 1),
        key=lambda w: (abs(w - exact), w),
        default=None,
    )
    if best is None:
        raise CalibrationError(f"no winner total near {exact!r} rounds to {overall_odds!r}")
    return best


@dataclass(frozen=True)
class _Milp:
    """The integer program in scipy's terms (numpy arrays, so typed loosely)."""

    weights: Any
    """Objective weight of each count: its tier's printed odds."""
    bounds: Any
    """Each count's range from its printed odds."""
    constraints: list[Any]
    """Winners equal the target; prize money equals 73.50% of stakes."""
    integrality: Any
    """Every count is an integer."""


def _scipy() -> tuple[Any, Any]:
    """numpy and scipy.optimize, imported only when a solve needs them."""
    # Imported here, not at the top, so importing colour_collector.game never loads scipy.
    import numpy  # noqa: PLC0415
    import scipy.optimize  # noqa: PLC0415

    return numpy, scipy.optimize


def _problem(size: int, tiers: Sequence[Tier]) -> _Milp:
    """The arrays of the integer program: weights, bounds and the two equality constraints."""
    np, optimize = _scipy()

    ranges = [count_bounds(size, tier.printed_odds) for tier in tiers]
    winners = target_winners(size)
    target = payout_target(size)
    weights = np.array([float(tier.printed_odds) for tier in tiers])
    prizes = np.array([float(tier.prize_pence) for tier in tiers])
    constraints = [
        optimize.LinearConstraint(np.ones((1, len(tiers))), winners, winners),
        optimize.LinearConstraint(prizes.reshape(1, -1), target, target),
    ]
    return _Milp(
        weights=weights,
        bounds=optimize.Bounds([r[0] for r in ranges], [r[1] for r in ranges]),
        constraints=constraints,
        integrality=np.ones(len(tiers)),
    )


def _run(problem: _Milp, objective: Any, extra: Sequence[Any] = ()) -> tuple[int, ...]:
    """Solve ``problem`` for ``objective``; raise if no solution."""
    _, optimize = _scipy()
    result = optimize.milp(
        objective,
        integrality=problem.integrality,
        bounds=problem.bounds,
        constraints=[*problem.constraints, *extra],
        options={"time_limit": TIME_LIMIT_SECONDS, "mip_rel_gap": 0.0},
    )
    if result.x is None or not result.success:
        raise CalibrationError(f"the solver found no pool: {result.message!r}")
    return tuple(round(float(x)) for x in result.x)


def solve(size: int = POOL_SIZE, tiers: tuple[Tier, ...] | None = None) -> tuple[int, ...]:
    """Solve for the tier counts and return them after the exact check."""
    tiers = load_tiers() if tiers is None else tiers
    problem = _problem(size, tiers)
    counts = _run(problem, problem.weights)
    problems = check(size, tiers, counts)
    if problems:
        raise CalibrationError(f"the solver's answer fails the exact check: {problems!r}")
    return counts


def objective_value(tiers: Sequence[Tier], counts: Sequence[int]) -> int:
    """The integer objective: the sum of count times printed odds (N times relative excess + 99)."""
    return sum(count * tier.printed_odds for tier, count in zip(tiers, counts, strict=True))


def optimal_ranges(
    size: int = POOL_SIZE, tiers: tuple[Tier, ...] | None = None
) -> tuple[tuple[int, int], ...]:
    """Each count's (min, max) over all optimal pools: the optimum is unique if every min is max."""
    np, optimize = _scipy()

    tiers = load_tiers() if tiers is None else tiers
    problem = _problem(size, tiers)
    best = objective_value(tiers, solve(size, tiers))
    at_best = optimize.LinearConstraint(problem.weights.reshape(1, -1), -np.inf, best)
    ranges: list[tuple[int, int]] = []
    for index in range(len(tiers)):
        unit = np.zeros(len(tiers))
        unit[index] = 1.0
        low = _run(problem, unit, [at_best])[index]
        high = _run(problem, -unit, [at_best])[index]
        ranges.append((low, high))
    return tuple(ranges)


def check(size: int, tiers: Sequence[Tier], counts: Sequence[int]) -> tuple[str, ...]:
    """Every constraint ``counts`` breaks, recomputed with integers; empty if none."""
    problems: list[str] = []
    for tier, count in zip(tiers, counts, strict=True):
        low, high = count_bounds(size, tier.printed_odds)
        if not low <= count <= high or -(-size // count) != tier.printed_odds:
            problems.append(f"{tier.name!r}: count {count!r} outside {low!r}..{high!r}")
    winners = sum(counts)
    low_winners, high_winners = winner_bounds(size)
    if not low_winners <= winners <= high_winners:
        problems.append(f"winners {winners!r} outside {low_winners!r}..{high_winners!r}")
    paid = sum(count * tier.prize_pence for tier, count in zip(tiers, counts, strict=True))
    if paid != payout_target(size):
        problems.append(f"prize money {paid!r} pence, not {payout_target(size)!r}")
    return tuple(problems)


def dumps(pool: PrizePool) -> str:
    """The JSON text of ``pool_counts.json`` for ``pool``."""
    return json.dumps(pool_to_mapping(pool), indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Solve, report, and with ``--write`` replace the checked-in counts."""
    parser = argparse.ArgumentParser(prog="python -m colour_collector.game.calibration")
    parser.add_argument("--write", action="store_true", help=f"write {COUNTS_PATH}")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        counts = solve()
    except CalibrationError as error:
        print(f"NO POOL: {error}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    pool = PrizePool(size=POOL_SIZE, counts=counts)
    print(f"solved in {elapsed:.2f} s")
    print(f"winners {pool.winners:,} of {pool.size:,}")
    print(f"overall odds 1 in {float(pool.overall_odds):.6f}")
    print(f"prize money {pool.total_prize_pence:,} pence, payout {float(pool.payout * 100):.4f}%")
    print(f"relative excess {float(relative_excess(pool.size, pool.tiers, counts)):.6f}")
    if args.write:
        COUNTS_PATH.write_text(dumps(pool), encoding="utf-8")
        print(f"wrote {COUNTS_PATH}")
    else:
        try:
            same = load_pool() == pool
        except GameError as error:
            same = False
            print(f"checked-in counts unreadable: {error}")
        print("matches the checked-in counts" if same else "differs from the checked-in counts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
