"""The tests that a pool's order is a uniform shuffle, over the positions a report covers.

- the chi-square of the tier counts against the pool's own counts (``tier_counts``), on the
  smaller side (the positions covered or the others), bins pooled as ``simulate`` pools them,
  with the factor of a deal without replacement;
- the chi-square of the winners and losers in up to ``SEGMENTS`` equal segments (``segments``);
- the Wald-Wolfowitz runs test and the lag-1 serial correlation of win/no-win (``runs``,
  ``serial``);
- a Kolmogorov-Smirnov test of where the prizes of £50 and more sit (``big_prizes``).

Each says how it is worked out (``Test.method``), from the run's own figures, and where there is
too little to test it says so instead of reading a p-value.
``tests/unit/test_report_order_tests.py`` checks that over orders dealt at random each test's
p-values are uniform.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import stats

from colour_collector.game.simulation import (
    MIN_EXPECTED,
    Bin,
    Pooling,
    chi_square,
    chi_square_pvalue,
    pool_bins,
)

SEGMENTS = 100
"""Most equal segments of the covered positions whose winners and losers are compared."""
LEVEL = 0.001
"""A test reads as failed at a p-value of this or less; above it, as no evidence against the
shuffle (not as proof of it)."""
FEWEST = 10
"""Winners and losers the runs and serial tests need each, for their normal approximation."""
TOO_FEW = "too few positions to test"


def _reading(p: float | None, claim: str, *, nothing: str = TOO_FEW) -> str:
    """What a test says: ``claim`` is what a failure would show."""
    if p is None:
        return nothing
    if p <= LEVEL:
        return f"{claim} (p ≤ {LEVEL})"
    return f"no evidence at the {LEVEL} level that {claim}"


@dataclass(frozen=True, slots=True)
class Test:
    """One statistical test of the order."""

    name: str
    """What is tested."""
    statistic: float
    """Its statistic."""
    detail: str
    """Degrees of freedom or sample size."""
    pvalue: float | None
    """Its p-value (None when there is nothing to test)."""
    reading: str
    """What it says, in a sentence."""
    method: str
    """How it is worked out (for a chi-square, its bins and degrees of freedom), from the figures
    themselves: a lab reading "50 bins" must be able to tell how they were formed."""


def runs(wins: np.ndarray) -> Test:
    """Wald-Wolfowitz: too few or too many runs of wins and losses."""
    n = len(wins)
    ones = int(wins.sum())
    zeros = n - ones
    if min(ones, zeros) < FEWEST:
        return Test(
            "Runs of wins and losses (Wald-Wolfowitz)",
            0.0,
            f"n = {n:,}",
            None,
            TOO_FEW,
            f"{ones:,} winners and {zeros:,} losers among the covered positions: the normal"
            f" approximation of the runs' number needs at least {FEWEST} of each.",
        )
    runs = 1 + int(np.count_nonzero(wins[1:] != wins[:-1]))
    mean = 2 * ones * zeros / n + 1
    variance = 2 * ones * zeros * (2 * ones * zeros - n) / (n * n * (n - 1))
    z = (runs - mean) / math.sqrt(variance) if variance > 0 else 0.0
    p = float(2 * stats.norm.sf(abs(z)))
    return Test(
        "Runs of wins and losses (Wald-Wolfowitz)",
        z,
        f"{runs:,} runs, {mean:,.1f} expected",
        p,
        _reading(p, "wins bunch or alternate"),
        "The runs of wins and of losses along the covered positions, counted; z is their number"
        " against its mean and variance given as many wins and losses in a random order (normal"
        " approximation), p two-sided.",
    )


def serial(wins: np.ndarray) -> Test:
    """Lag-1 serial correlation of win/no-win."""
    n = len(wins)
    centred = wins.astype(np.float64) - wins.mean()
    denominator = float(np.dot(centred, centred))
    r = float(np.dot(centred[:-1], centred[1:])) / denominator if denominator else 0.0
    z = r * math.sqrt(n)
    ones = int(wins.sum())
    enough = min(ones, n - ones) >= FEWEST
    p = float(2 * stats.norm.sf(abs(z))) if enough else None
    return Test(
        "Serial correlation of consecutive plays (lag 1)",
        r,
        f"z = {z:.2f}, n = {n:,}",
        p,
        _reading(p, "consecutive plays are correlated"),
        "The correlation r of each covered position's win or loss (1 or 0) with the next one's;"
        " z = r times the square root of n, against the standard normal, p two-sided"
        f" (with at least {FEWEST} winners and {FEWEST} losers).",
    )


def segments(wins: np.ndarray) -> tuple[Test, list[int], float]:
    """Chi-square of the winners and losers in equal segments against an even spread.

    Each segment is two cells, its winners and its losers (a 2 x S table): with the winners'
    cells alone the statistic is (1 - the share of winners) times the test's, about 0.64 of it
    here, so it read p-values near 1 for orders dealt at random and could hardly fail.

    There are at most ``SEGMENTS``, and fewer when the positions are too few for each segment
    to expect ``MIN_EXPECTED`` winners and as many losers: with segments of one position each
    the statistic is the number of positions, whatever the order."""
    rate = float(wins.mean())
    parts = np.array_split(wins, _segment_count(len(wins), int(wins.sum())))
    observed = [int(part.sum()) for part in parts]
    lengths = sorted({len(part) for part in parts})
    cut = (
        f"The {_many(len(wins), 'position')} covered cut in order into"
        f" {_many(len(parts), 'segment')} of {' or '.join(_many(n, 'position') for n in lengths)}"
    )
    if len(parts) < 2:
        return (
            Test(
                "Winners in equal segments (chi-square)",
                0.0,
                "0 dof",
                None,
                TOO_FEW,
                f"{cut}: each segment must expect at least {MIN_EXPECTED} winners and"
                f" {MIN_EXPECTED} losers, so too few positions to test.",
            ),
            observed,
            rate * len(wins),
        )
    statistic = sum(
        (won - rate * len(part)) ** 2 / (rate * (1 - rate) * len(part))
        for won, part in zip(observed, parts, strict=True)
    )
    dof = len(parts) - 1
    p = chi_square_pvalue(statistic, dof)
    method = (
        f"{cut}, as many as {SEGMENTS} with each expecting at least {MIN_EXPECTED} winners and"
        f" {MIN_EXPECTED} losers; two cells each: each segment's winners and losers against"
        " those it is expected to hold (its length times the share of winners, or of losers,"
        f" among the positions covered; {rate * len(wins) / len(parts):,.1f} winners in a"
        f" segment on average). Degrees of freedom: (segments - 1) x (2 - 1) = {dof}."
    )
    test = Test(
        f"Winners in {len(parts)} equal segments (chi-square)",
        statistic,
        f"{dof} dof",
        p,
        _reading(p, "winners are unevenly spread"),
        method,
    )
    return test, observed, rate * len(wins) / len(parts)


def _segment_count(positions: int, winners: int) -> int:
    """How many segments to cut ``positions`` into: the most, up to ``SEGMENTS``, with the
    shortest (``np.array_split`` makes some one position longer) expecting ``MIN_EXPECTED``
    winners and as many losers; 1 when even two cannot. In integers: a float's 4.999... would
    cost a segment."""
    fewer = min(winners, positions - winners)
    return next(
        (
            count
            for count in range(min(SEGMENTS, positions), 1, -1)
            if (positions // count) * fewer >= MIN_EXPECTED * positions
        ),
        1,
    )


def tier_counts(outcomes: Sequence[tuple[str, int, int]], size: int) -> Test:
    """Chi-square of the covered positions' tier counts against the table's proportions;
    ``outcomes`` holds each tier's, then no win's, (name, count in the pool, plays covered).

    The counts of the covered positions fix those of the others (a tier's count in the pool
    less its covered plays), so the test is made on the smaller of the two sides: its bins are
    pooled by its own expected counts. Binned by the covered side's, 6,499,000 covered
    positions of the published pool left most bins expecting under 1 play among the 1,000
    others, and about one random order in ten read as not the table's proportions."""
    covered = sum(seen for _, _, seen in outcomes)
    name = "Tier counts against the pool's counts (chi-square)"
    if covered == size:
        return Test(
            name,
            0.0,
            "the whole pool",
            None,
            "exactly the pool's counts",
            f"The deal of all {size:,} positions gives every tier exactly its count in the pool,"
            " by construction: there is nothing to test.",
        )
    side = covered if 2 * covered <= size else size - covered
    if side != covered:
        outcomes = [(o, count, count - seen) for o, count, seen in outcomes]
    bins = [Bin(o, Fraction(side * count, size), seen) for o, count, seen in outcomes]
    nonzero = [b for b in bins if b.expected]
    pooling = pool_bins(nonzero)
    statistic, dof = chi_square(pooling.bins)
    # The positions are dealt without replacement, so their counts keep closer to the expected
    # than independent draws would: the statistic's mean is dof (N - n) / (N - 1).
    statistic *= without_replacement(side, size)
    p = chi_square_pvalue(statistic, dof)
    return Test(
        name,
        statistic,
        f"{dof} dof, {_many(len(pooling.bins), 'bin')}",
        p,
        _reading(
            p,
            "the counts differ from the pool's",
            nothing=TOO_FEW if side == covered else "too few positions not covered to test",
        ),
        _pooling_described(
            pooling, side, size, covered=side == covered, left_out=len(bins) - len(nonzero)
        ),
    )


def without_replacement(covered: int, size: int) -> float:
    """(N - 1) / (N - n): what makes the Pearson statistic of ``covered`` positions dealt
    without replacement from a pool of ``size`` follow the chi-square distribution (its mean is
    otherwise (bins - 1) times the reciprocal)."""
    return (size - 1) / (size - covered)


def _pooling_described(
    pooling: Pooling, side: int, size: int, *, covered: bool, left_out: int
) -> str:
    """How the bins were formed, with their number and the degrees of freedom: over the
    ``side`` positions covered, or (``covered`` False) over the ``side`` positions not covered,
    the smaller side."""
    alone = len(pooling.alone)
    which = (
        f"The {_many(side, 'position')} covered"
        if covered
        else f"The {_many(side, 'position')} of the pool not covered (the smaller side: the"
        " covered positions' counts are the pool's counts less these)"
    )
    parts = [
        f"{which}, in {_many(len(pooling.bins), 'bin')}. An outcome (a tier, or no win) with c"
        f" plays in the pool is expected c × {side:,} / {size:,} times among them; "
        + (
            "no outcome is"
            if not alone
            else "1 outcome is"
            if alone == 1
            else f"{alone:,} outcomes are"
        )
        + f" expected {MIN_EXPECTED} times or more"
        + (
            ""
            if not alone
            else (", with a bin of its own" if alone == 1 else ", a bin each")
            if pooling.joined is None
            else (
                " (it joins the pooled bin: below)"
                if alone == 1
                else ", a bin each but one (below)"
            )
        )
    ]
    if pooling.pooled:
        together = sum((b.expected for b in pooling.pooled), Fraction(0))
        pooled = len(pooling.pooled)
        parts.append(
            f", and the {_many(pooled, 'rarer outcome')} {'goes' if pooled == 1 else 'go'}"
            f" into one pooled bin (expected {float(together):,.2f} plays)"
        )
    if pooling.joined is not None:
        parts.append(
            f"; as that is fewer than {MIN_EXPECTED}, the smallest single bin,"
            f' "{pooling.joined.name}" (expected {float(pooling.joined.expected):,.2f} plays),'
            " joins it"
        )
    parts.append(
        ". With one bin there is nothing to compare (0 degrees of freedom): too few positions"
        " to test."
        if len(pooling.bins) < 2
        else f". So every bin expects at least {MIN_EXPECTED} plays, the rule under which the"
        " chi-square distribution fits the statistic."
    )
    if left_out:
        parts.append(
            f" The {_many(left_out, 'outcome')} the pool has no play of {_are(left_out)} left out."
        )
    if len(pooling.bins) < 2:
        return "".join(parts)
    parts.append(
        " The positions are dealt without replacement, which keeps their counts closer to the"
        " expected than independent draws would, so the sum of (observed - expected)² /"
        f" expected is multiplied by (N - 1) / (N - n) = {without_replacement(side, size):,.6f}"
        f" (N = {size:,} plays in the pool, n = {side:,})."
    )
    parts.append(
        f" Degrees of freedom: bins - 1 = {max(0, len(pooling.bins) - 1)} (the expected counts"
        " come from the pool's own counts: none is estimated from the order)."
    )
    return "".join(parts)


def _many(count: int, one: str, many: str = "") -> str:
    """``count`` and the noun for it: "1 bin", "50 bins"."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"


def _are(count: int) -> str:
    return "is" if count == 1 else "are"


def big_prizes(positions: np.ndarray, start: int, stop: int) -> Test:
    """Kolmogorov-Smirnov: where the big prizes sit against a uniform spread."""
    if len(positions) < 2:
        return Test(
            "Positions of prizes of £50 and more (Kolmogorov-Smirnov)",
            0.0,
            f"n = {len(positions)}",
            None,
            "too few prizes of £50 and more to test",
            "fewer than two such prizes among the covered positions",
        )
    scaled = (positions - start + 0.5) / (stop - start)
    result = stats.kstest(scaled, "uniform")
    p = float(result.pvalue)
    return Test(
        "Positions of prizes of £50 and more (Kolmogorov-Smirnov)",
        float(result.statistic),
        f"n = {len(positions):,}",
        p,
        _reading(p, "they are unevenly spread"),
        "The positions of the covered prizes of £50 and more, scaled to 0 to 1 (each at the"
        " middle of its position), against the uniform distribution; the statistic is the"
        " largest distance between their distribution and the uniform one.",
    )
