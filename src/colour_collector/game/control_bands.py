"""Control bands: how far the game's live figures may stray from the prize structure by chance.

For ``n`` plays drawn with the prize structure's probabilities, a band holds the figure with
probability at least 99%: the count of plays of one outcome (a binomial count; exact quantiles
when the count is small, the normal approximation when its variance is 25 or more), and the
payout so far (prizes over stakes: the quantiles of ``PAYOUT_DEALS`` simulated sets of ``n``
plays). A figure outside its band is an alert: either a 1-in-100 chance or a game that does not
pay as published.

The payout is not banded by the normal approximation of the mean prize: the rare top prizes skew
it so much that, for 100,000 plays of the published structure, that band ran from about 10% to
137%, so a game paying 60% raised no alert, while a top prize won early (3 chances in 100 by then)
raised one. Most sets of 100,000 plays hold no top prize and pay about 68% to 72%; the few that
hold one pay over 250%.

Probabilities are exact fractions; the bands are floats, for a report.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

Z_99 = 2.5758293035489004
"""The standard normal's 99.5% quantile: a two-sided 99% band is the mean plus or minus this
many standard deviations."""
TAIL = 0.005
"""Probability left out on each side of a 99% band."""
EXACT_BELOW_VARIANCE = 25.0
"""Binomial counts with a smaller variance get exact quantiles."""
PAYOUT_DEALS = 4_000
"""Sets of plays simulated for a payout band: its ends are the 20th lowest and highest payouts."""
PAYOUT_SEED = 20261207
"""Seed of the simulated sets, the same for every ``n`` (so the band moves smoothly with it)."""
EXACT_BELOW_MEAN = 30.0
"""A simulated count with a smaller mean is drawn exactly (by inversion), a larger one by the
normal approximation."""


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
    pence) pairs (no win included or not: it pays nothing): the 0.5% and 99.5% quantiles of
    the payouts of ``PAYOUT_DEALS`` simulated sets of that many plays."""
    if plays < 0 or price_pence <= 0:
        raise ValueError(f"need plays >= 0 and a positive price, got {plays!r}, {price_pence!r}")
    mean = sum(p * prize for p, prize in outcomes)
    expected = float(mean / price_pence)
    if plays == 0:  # nothing measured yet: nothing to alert on
        return Band(expected, expected, expected, expected)
    paying = tuple(sorted((float(p), prize) for p, prize in outcomes if p > 0 and prize > 0))
    low, high = _prize_quantiles(plays, paying)
    observed = prizes_pence / (plays * price_pence)
    stakes = plays * price_pence
    return Band(observed, expected, low / stakes, high / stakes)


@functools.lru_cache(maxsize=256)
def _prize_quantiles(plays: int, paying: tuple[tuple[float, int], ...]) -> tuple[int, int]:
    """The 0.5% and 99.5% quantiles of the prizes ``plays`` plays win, from ``PAYOUT_DEALS``
    simulated sets: each set's count of each paying outcome drawn in turn, as a binomial of the
    plays not counted yet (a multinomial draw), each from a uniform number that is the same for
    every ``plays``."""
    uniforms = random.Random(PAYOUT_SEED)
    totals = []
    for _ in range(PAYOUT_DEALS):
        left, mass, paid = plays, 1.0, 0
        for probability, prize in paying:
            chance = min(1.0, probability / mass) if mass > 0 else 1.0
            count = _binomial_at(uniforms.random(), left, chance)
            paid += count * prize
            left -= count
            mass -= probability
        totals.append(paid)
    totals.sort()
    cut = int(TAIL * PAYOUT_DEALS)
    return totals[cut], totals[-1 - cut]


def _binomial_at(u: float, n: int, p: float) -> int:
    """The ``u`` quantile of Binomial(n, p): by summing its probabilities from 0 when its mean is
    under ``EXACT_BELOW_MEAN``, else by the normal approximation."""
    if n == 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    mean = n * p
    if mean >= EXACT_BELOW_MEAN:
        z = NormalDist().inv_cdf(min(max(u, 1e-12), 1 - 1e-12))
        return min(n, max(0, round(mean + z * math.sqrt(mean * (1 - p)))))
    mass = math.exp(n * math.log1p(-p))
    total, k, ratio = mass, 0, p / (1 - p)
    while total < u and k < n:
        mass *= (n - k) / (k + 1) * ratio
        k += 1
        total += mass
    return k
