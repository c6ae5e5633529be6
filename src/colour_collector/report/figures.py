"""The numbers of a pool's certification report, worked out before anything is drawn.

Exact figures (counts, prize money, payout, hit rate, odds, the variance of a play's return)
are ``int`` and ``Fraction``; floats appear only in the statistics of the draws and the curves.

- **The checks** the report runs on the pool itself, and those it leaves to ``pool verify``
  (``checks``).
- **The prize structure**: every tier's count in the pool against the published table, its
  exact odds, its probability and its share of the payout; the payout, hit rate and odds.
- **A play's return** (prize / stake): its standard deviation, and the band the payout of ``n``
  plays falls in 95% of the time when they are dealt from the pool (without replacement, so the
  band closes at the pool's size). The band is simulated: the payout of a play is so skewed by
  the rare top prizes that the normal approximation (the mean plus or minus 1.96 standard
  deviations) put it at 25% to 122% for 100,000 plays of the published pool, where 95% of such
  deals pay 69.6% to 71.4% (most deal no top prize, so most pay less than the pool's 73.50%).
- **The order**: the payout running along the pool's order, and tests that the order is a
  uniform shuffle: chi-square of the covered positions' tier counts against the table, of the
  winners and losers in up to 100 equal segments, the Wald-Wolfowitz runs test and the lag-1 serial
  correlation of win/no-win, and a Kolmogorov-Smirnov test of where the prizes of £50 and more
  sit.
- **Naturalness**: the pool's own losing and £5 plays against natural plays of the same outcome
  (``game.naturalness``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import stats

from colour_collector.game import naturalness, sample_comparison
from colour_collector.game.play_statistics import measure
from colour_collector.game.pool import STAKE_PENCE, load_pool
from colour_collector.game.pool_deal import play_at
from colour_collector.game.pool_file import PoolFile
from colour_collector.game.pool_parameters import PoolParameters
from colour_collector.game.prize_table import Tier, load_tiers
from colour_collector.game.simulation import (
    MIN_EXPECTED,
    Bin,
    Pooling,
    chi_square,
    chi_square_pvalue,
    pool_bins,
)
from colour_collector.report.checks import Check, pool_checks

SEGMENTS = 100
"""Equal segments of the covered positions whose winners are compared."""
BIG_PRIZE_PENCE = 5_000
"""Prizes whose positions the Kolmogorov-Smirnov test looks at: £50 and more."""
CURVE_POINTS = 400
"""Points of each curve."""
BAND_FIRST_PLAYS = 10
"""The payout band starts at this many plays (a pool of this many or fewer: at one)."""
BAND_POINTS = 60
"""Numbers of plays the band is worked out at (log-spaced, and the pool's size)."""
BAND_DEALS = 4_000
"""Deals simulated at each number of plays: the band's ends are the 2.5% and 97.5% quantiles of
their payouts (with five other seeds, the ends for 1,000 and 100,000 plays of the published pool
moved by at most 0.6 and 0.3 percentage points)."""
BAND_SEED = 20261207
"""Seed of the simulated deals, so that a report is made again the same."""


@dataclass(frozen=True, slots=True)
class TierRow:
    """One tier of the PAR sheet."""

    tier: Tier
    """The tier."""
    table_count: int | None
    """Its count in the published 6,500,000-play table (None for a pool of another size)."""
    count: int
    """Its count in this pool."""
    covered: int
    """Plays of this tier the deal gave the covered positions."""
    size: int
    """The pool's size."""

    @property
    def odds(self) -> Fraction | None:
        """Exact odds, 1 in this."""
        return Fraction(self.size, self.count) if self.count else None

    @property
    def probability(self) -> Fraction:
        """Chance a play wins this tier."""
        return Fraction(self.count, self.size)

    @property
    def payout_share(self) -> Fraction:
        """This tier's prize money as a fraction of the stakes."""
        return Fraction(self.count * self.tier.prize_pence, self.size * STAKE_PENCE)


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


@dataclass(frozen=True, slots=True)
class Figures:
    """Everything the report shows."""

    pool: PoolFile
    """The pool."""
    start: int
    """First position covered by the order statistics."""
    stop: int
    """One past the last."""
    checks: list[Check]
    """The report's own checks of the pool (``checks``)."""
    rows: list[TierRow]
    """The PAR sheet."""
    no_win: int
    """Plays of the pool that win nothing."""
    no_win_covered: int
    """Those among the covered positions."""
    return_sd: float
    """Standard deviation of one play's return (prize / stake)."""
    band_plays: list[int]
    """Numbers of plays the band is drawn at."""
    band_low: list[float]
    """The 2.5% quantile of the payout of that many plays dealt from the pool."""
    band_high: list[float]
    """The 97.5% quantile of the same."""
    running_positions: list[int]
    """Positions the running payout is drawn at (plays dealt so far)."""
    running_payout: list[float]
    """Payout of the plays dealt up to there."""
    segment_winners: list[int]
    """Winners in each of the equal segments of the covered positions."""
    segment_expected: float
    """Winners expected in a segment."""
    tests: list[Test]
    """The statistical tests of the order."""
    naturalness: list[tuple[str, sample_comparison.Comparison]]
    """The naturalness tables: outcome, comparison of one measure."""
    naturalness_plays: int
    """Plays of each outcome compared."""

    @property
    def parameters(self) -> PoolParameters:
        """The pool's parameters."""
        return self.pool.parameters

    @property
    def whole(self) -> bool:
        """Whether the order statistics cover the whole pool."""
        return self.start == 0 and self.stop == self.parameters.size

    @property
    def size(self) -> int:
        """Plays in the pool."""
        return self.parameters.size

    @property
    def winners(self) -> int:
        """Plays that win a prize."""
        return self.size - self.no_win

    @property
    def total_prize_pence(self) -> int:
        """All the pool's prize money."""
        return sum(r.count * r.tier.prize_pence for r in self.rows)

    @property
    def payout(self) -> Fraction:
        """Prize money over stakes, exactly."""
        return Fraction(self.total_prize_pence, self.size * STAKE_PENCE)

    @property
    def hit_rate(self) -> Fraction:
        """Winners over plays, exactly."""
        return Fraction(self.winners, self.size)

    @property
    def overall_odds(self) -> Fraction:
        """Plays over winners: 1 in this."""
        return Fraction(self.size, self.winners)


def _return_moments(parameters: PoolParameters) -> tuple[Fraction, Fraction]:
    """Mean and variance of one play's return (prize / stake), exactly."""
    size = parameters.size
    tiers = load_tiers()
    mean = Fraction(
        sum(c * t.prize_pence for c, t in zip(parameters.counts, tiers, strict=True)),
        size * STAKE_PENCE,
    )
    square = Fraction(
        sum(c * t.prize_pence**2 for c, t in zip(parameters.counts, tiers, strict=True)),
        size * STAKE_PENCE**2,
    )
    return mean, square - mean * mean


def _band(parameters: PoolParameters) -> tuple[list[int], list[float], list[float]]:
    """The 95% band of the payout of ``n`` plays dealt from the pool, from 10 plays (from 1 in a
    pool of 10 plays or fewer) to all of them: ``BAND_DEALS`` deals of ``n`` plays drawn without
    replacement from the pool's counts (a multivariate hypergeometric draw) at each ``n``."""
    size = parameters.size
    first = BAND_FIRST_PLAYS if size > BAND_FIRST_PLAYS else 1
    plays = sorted({int(n) for n in np.geomspace(first, size, BAND_POINTS)} | {size})
    counts = np.array(parameters.start, dtype=np.int64)  # every tier's count, then no win
    prizes = np.array([t.prize_pence for t in load_tiers()] + [0], dtype=np.float64)
    generator = np.random.default_rng(BAND_SEED)
    low, high = [], []
    for n in plays:
        dealt = generator.multivariate_hypergeometric(counts, n, size=BAND_DEALS)
        payouts = dealt @ prizes / (n * STAKE_PENCE)
        ends = np.quantile(payouts, [0.025, 0.975])
        low.append(float(ends[0]))
        high.append(float(ends[1]))
    return plays, low, high


def _running(order: np.ndarray, prizes: np.ndarray, start: int) -> tuple[list[int], list[float]]:
    paid = np.cumsum(prizes[order], dtype=np.int64)
    count = len(order)
    marks = sorted({int(i) for i in np.linspace(0, count - 1, min(CURVE_POINTS * 4, count))})
    return (
        [start + i + 1 for i in marks],
        [float(paid[i]) / ((i + 1) * STAKE_PENCE) for i in marks],
    )


def _runs_test(wins: np.ndarray) -> Test:
    """Wald-Wolfowitz: too few or too many runs of wins and losses."""
    n = len(wins)
    ones = int(wins.sum())
    zeros = n - ones
    if ones == 0 or zeros == 0:
        return Test(
            "Runs of wins and losses (Wald-Wolfowitz)",
            0.0,
            f"n = {n:,}",
            None,
            "-",
            "every covered position wins, or none does: there are no runs to count",
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
        "wins do not bunch or alternate" if p > 0.001 else "wins bunch or alternate",
        "The runs of wins and of losses along the covered positions, counted; z is their number"
        " against its mean and variance given as many wins and losses in a random order (normal"
        " approximation), p two-sided.",
    )


def _serial_test(wins: np.ndarray) -> Test:
    """Lag-1 serial correlation of win/no-win."""
    n = len(wins)
    centred = wins.astype(np.float64) - wins.mean()
    denominator = float(np.dot(centred, centred))
    r = float(np.dot(centred[:-1], centred[1:])) / denominator if denominator else 0.0
    z = r * math.sqrt(n)
    p = float(2 * stats.norm.sf(abs(z))) if denominator else None
    return Test(
        "Serial correlation of consecutive plays (lag 1)",
        r,
        f"z = {z:.2f}, n = {n:,}",
        p,
        "a play says nothing of the next" if p is None or p > 0.001 else "plays are correlated",
        "The correlation r of each covered position's win or loss (1 or 0) with the next one's;"
        " z = r times the square root of n, against the standard normal, p two-sided.",
    )


def _segments_test(wins: np.ndarray) -> tuple[Test, list[int], float]:
    """Chi-square of the winners and losers in equal segments against an even spread.

    Each segment is two cells, its winners and its losers (a 2 x S table): with the winners'
    cells alone the statistic is (1 - the share of winners) times the test's, about 0.64 of it
    here, so it read p-values near 1 for orders dealt at random and could hardly fail.

    There are at most ``SEGMENTS``, and fewer when the positions are too few for each segment
    to expect ``MIN_EXPECTED`` winners and as many losers: with segments of one position each
    the statistic is the number of positions, whatever the order."""
    rate = float(wins.mean())
    fits = int(len(wins) * min(rate, 1 - rate) // MIN_EXPECTED)
    parts = np.array_split(wins, max(1, min(SEGMENTS, fits)))
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
                "too few positions to test",
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
        "winners are spread evenly" if p is None or p > 0.001 else "winners are not even",
        method,
    )
    return test, observed, rate * len(wins) / len(parts)


def _tiers_test(rows: Sequence[TierRow], no_win: int, no_win_covered: int, size: int) -> Test:
    """Chi-square of the covered positions' tier counts against the table's proportions.

    The counts of the covered positions fix those of the others (a tier's count in the pool
    less its covered plays), so the test is made on the smaller of the two sides: its bins are
    pooled by its own expected counts. Binned by the covered side's, 6,499,000 covered
    positions of the published pool left most bins expecting under 1 play among the 1,000
    others, and about one random order in ten read as not the table's proportions."""
    covered = sum(r.covered for r in rows) + no_win_covered
    name = "Tier counts against the prize structure (chi-square)"
    if covered == size:
        return Test(
            name,
            0.0,
            "the whole pool",
            None,
            "exactly the table's counts",
            f"The deal of all {size:,} positions gives every tier exactly its count in the pool,"
            " by construction: there is nothing to test.",
        )
    outcomes = [(r.tier.name, r.count, r.covered) for r in rows] + [
        ("no win", no_win, no_win_covered)
    ]
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
        "too few positions to test"
        if p is None
        else "as the table's proportions"
        if p > 0.001
        else "not as the table's proportions",
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
            f"no outcome is expected {MIN_EXPECTED} times or more"
            if not alone
            else f"the 1 outcome expected {MIN_EXPECTED} times or more has a bin of its own"
            if alone == 1
            else f"the {alone:,} outcomes expected {MIN_EXPECTED} times or more have a bin each"
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
    if len(pooling.bins) < 2:
        parts.append(
            ". With one bin there is nothing to compare (0 degrees of freedom): too few"
            " positions to test."
        )
        return "".join(parts)
    parts.append(
        f". So every bin expects at least {MIN_EXPECTED} plays, the rule under which the"
        " chi-square distribution fits the statistic."
    )
    if left_out:
        parts.append(
            f" The {_many(left_out, 'outcome')} the pool has no play of {_are(left_out)} left out."
        )
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


def _big_prizes_test(positions: np.ndarray, start: int, stop: int) -> Test:
    """Kolmogorov-Smirnov: where the big prizes sit against a uniform spread."""
    if len(positions) < 2:
        return Test(
            "Positions of prizes of £50 and more (Kolmogorov-Smirnov)",
            0.0,
            f"n = {len(positions)}",
            None,
            "too few to test",
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
        "spread evenly along the pool" if p > 0.001 else "not spread evenly",
        "The positions of the covered prizes of £50 and more, scaled to 0 to 1 (each at the"
        " middle of its position), against the uniform distribution; the statistic is the"
        " largest distance between their distribution and the uniform one.",
    )


def _naturalness(
    pool: PoolFile, dealt: bytes, start: int, plays: int
) -> list[tuple[str, sample_comparison.Comparison]]:
    """The pool's first ``plays`` losing and £5 plays against natural plays of the outcome (the
    naturalness battery's classes "no win" and "£5", compared statistic by statistic)."""
    found: list[tuple[str, sample_comparison.Comparison]] = []
    seed = int(pool.commitment[:16], 16)
    classes = {cls.name: cls for cls in naturalness.CLASSES}
    for label, category in (("no win", len(load_tiers())), ("£5", 0)):
        positions = [start + i for i, c in enumerate(dealt) if c == category][:plays]
        if len(positions) < 50:
            continue
        generated = [measure(play_at(pool.secret, p, category)) for p in positions]
        natural = naturalness.natural_plays(
            classes[label], len(positions), random.Random(seed + category)
        )
        reference = [(measure(play.record), play.weight) for play in natural]
        found.extend((label, c) for c in sample_comparison.compare(label, generated, reference))
    return found


def figures(pool: PoolFile, dealt: bytes, start: int, naturalness_plays: int) -> Figures:
    """The report's figures; ``dealt`` holds the categories of positions from ``start``."""
    parameters = pool.parameters
    tiers = load_tiers()
    categories = np.frombuffer(dealt, dtype=np.uint8)
    covered = np.bincount(categories, minlength=len(tiers) + 1)
    published = load_pool()
    same_size = parameters.size == published.size
    rows = [
        TierRow(
            tier,
            published.counts[tier.index] if same_size else None,
            parameters.counts[tier.index],
            int(covered[tier.index]),
            parameters.size,
        )
        for tier in tiers
    ]
    _, variance = _return_moments(parameters)
    sd = math.sqrt(variance)
    band_plays, band_low, band_high = _band(parameters)
    prizes = np.array([t.prize_pence for t in tiers] + [0], dtype=np.int64)
    running_positions, running = _running(categories, prizes, start)
    wins = (categories != len(tiers)).astype(np.int8)
    segments_test, segment_winners, segment_expected = _segments_test(wins)
    no_win = parameters.start[-1]
    big = np.nonzero(prizes[categories] >= BIG_PRIZE_PENCE)[0] + start
    stop = start + len(dealt)
    tests = [
        _tiers_test(rows, no_win, int(covered[-1]), parameters.size),
        segments_test,
        _runs_test(wins),
        _serial_test(wins),
        _big_prizes_test(big, start, stop),
    ]
    return Figures(
        pool=pool,
        start=start,
        stop=stop,
        checks=pool_checks(pool),
        rows=rows,
        no_win=no_win,
        no_win_covered=int(covered[-1]),
        return_sd=sd,
        band_plays=band_plays,
        band_low=band_low,
        band_high=band_high,
        running_positions=running_positions,
        running_payout=running,
        segment_winners=segment_winners,
        segment_expected=segment_expected,
        tests=tests,
        naturalness=_naturalness(pool, dealt, start, naturalness_plays),
        naturalness_plays=naturalness_plays,
    )
