"""Control bands: how far the game's live figures may stray from the prize structure by chance.

For ``n`` plays drawn with the prize structure's probabilities, a band holds the figure with
probability at least 99%: the count of plays of one outcome (a binomial count; exact quantiles
when the count is small, the normal approximation when its variance is 25 or more), and the
payout so far (prizes over stakes; the normal approximation of the mean prize, which is wide
while ``n`` is small because of the rare large prizes). A figure outside its band is an alert:
either a 1-in-100 chance or a game that does not pay as published.

Probabilities are exact fractions; the bands are floats, for a report.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

Z_99 = 2.5758293035489004
"""The standard normal's 99.5% quantile: a two-sided 99% band is the mean plus or minus this
many standard deviations."""
TAIL = 0.005
"""Probability left out on each side of a 99% band."""
EXACT_BELOW_VARIANCE = 25.0
"""Binomial counts with a smaller variance get exact quantiles."""


@dataclass(frozen=True, slots=True)
class Band:
    """A figure, what the prize structure expects of it, and its 99% control band."""

    observed: float
    """The figure measured."""
    expected: float
    """Its expected value."""
    low: float
    """The band's lower end."""
    high: float
    """The band's upper end."""

    @property
    def outside(self) -> bool:
        """Whether the figure is outside the band (an alert)."""
        return not self.low <= self.observed <= self.high


def count_band(plays: int, probability: Fraction, observed: int) -> Band:
    """The 99% band of the number of ``plays`` that have an outcome of ``probability``: from
    the 0.5% to the 99.5% quantile of the binomial count."""
    if plays < 0 or not 0 <= probability <= 1:
        raise ValueError(
            f"need plays >= 0 and 0 <= probability <= 1, got {plays!r}, {probability!r}"
        )
    p = float(probability)
    mean = plays * p
    variance = mean * (1 - p)
    if variance >= EXACT_BELOW_VARIANCE:
        spread = Z_99 * math.sqrt(variance)
        low, high = math.floor(max(0.0, mean - spread)), math.ceil(min(plays, mean + spread))
    else:
        low, high = _binomial_quantiles(plays, p)
    return Band(float(observed), mean, float(low), float(high))


def _binomial_quantiles(n: int, p: float) -> tuple[int, int]:
    """The 0.5% and 99.5% quantiles of Binomial(n, p), summing the probabilities from 0."""
    if p <= 0.0 or n == 0:
        return 0, 0
    if p >= 1.0:
        return n, n
    ratio = p / (1 - p)
    mass = math.exp(n * math.log1p(-p))
    total, k, low = mass, 0, None
    while True:
        if low is None and total > TAIL:
            low = k
        if total >= 1 - TAIL or k >= n:
            return (k if low is None else low), k
        mass *= (n - k) / (k + 1) * ratio
        k += 1
        total += mass


def payout_band(
    plays: int,
    outcomes: Sequence[tuple[Fraction, int]],
    price_pence: int,
    prizes_pence: int,
) -> Band:
    """The 99% band of the payout (prizes over stakes) of ``plays`` plays at ``price_pence``
    whose prizes add up to ``prizes_pence``, for outcomes given as (probability, prize in
    pence) pairs (no win included or not: it pays nothing)."""
    if plays < 0 or price_pence <= 0:
        raise ValueError(f"need plays >= 0 and a positive price, got {plays!r}, {price_pence!r}")
    mean = sum(p * prize for p, prize in outcomes)
    second = sum(p * prize * prize for p, prize in outcomes)
    expected = float(mean / price_pence)
    if plays == 0:  # nothing measured yet: nothing to alert on
        return Band(expected, expected, expected, expected)
    sd = math.sqrt(float(second - mean * mean) / plays) / price_pence
    observed = prizes_pence / (plays * price_pence)
    return Band(observed, expected, max(0.0, expected - Z_99 * sd), expected + Z_99 * sd)
