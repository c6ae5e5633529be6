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
- **The order**: the payout running along the pool's order, and the tests that the order is a
  uniform shuffle (``order_tests``).
- **Naturalness**: the pool's own losing and £5 plays against natural plays of the same outcome
  (``game.naturalness``).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from colour_collector.game import naturalness, sample_comparison
from colour_collector.game.play_statistics import measure
from colour_collector.game.pool import STAKE_PENCE, load_pool
from colour_collector.game.pool_deal import play_at
from colour_collector.game.pool_file import PoolFile
from colour_collector.game.pool_parameters import PoolParameters
from colour_collector.game.prize_table import Tier, load_tiers
from colour_collector.report import order_tests
from colour_collector.report.checks import Check, pool_checks

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
    """Its count in the published 6,500,000-play table, to compare with ``count`` (None for a
    pool of another size: no count of the table compares with its own)."""
    printed_odds: int | None
    """The odds the published table prints for it, 1 in this (None for a pool of another
    structure: they are not its odds, which are ``odds``)."""
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
    tests: list[order_tests.Test]
    """The statistical tests of the order."""
    naturalness: list[tuple[str, sample_comparison.Comparison]]
    """The naturalness tables: outcome, comparison of one measure."""
    naturalness_plays: int
    """Plays of each outcome compared."""
    from_server: bool = False
    """Whether the pool was read from the server's description of it once closed, not from its
    pool file (its build time is then not known)."""

    @property
    def parameters(self) -> PoolParameters:
        """The pool's parameters."""
        return self.pool.parameters

    @property
    def table_sized(self) -> bool:
        """Whether the pool has the published table's size, so each tier has a ``table_count``."""
        return all(row.table_count is not None for row in self.rows)

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
    def overall_odds(self) -> Fraction | None:
        """Plays over winners: 1 in this (None for a pool without a winner)."""
        return Fraction(self.size, self.winners) if self.winners else None


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


def figures(
    pool: PoolFile, dealt: bytes, start: int, naturalness_plays: int, *, from_server: bool = False
) -> Figures:
    """The report's figures; ``dealt`` holds the categories of positions from ``start``
    (``from_server``: as :attr:`Figures.from_server`)."""
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
            tier.printed_odds if parameters.is_published else None,
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
    segments_test, segment_winners, segment_expected = order_tests.segments(wins)
    no_win = parameters.start[-1]
    big = np.nonzero(prizes[categories] >= BIG_PRIZE_PENCE)[0] + start
    stop = start + len(dealt)
    tests = [
        order_tests.tier_counts(
            [(r.tier.name, r.count, r.covered) for r in rows]
            + [("no win", no_win, int(covered[-1]))],
            parameters.size,
        ),
        segments_test,
        order_tests.runs(wins),
        order_tests.serial(wins),
        order_tests.big_prizes(big, start, stop),
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
        from_server=from_server,
    )
