"""The prize pool: how many of the 6,500,000 plays win each tier, read from ``pool_counts.json``.

The counts were solved by ``colour_collector.game.calibration`` (see docs/math.md) so that every
printed figure is ``ceil(N / count)``, the overall odds round to 1 in 2.77 and the payout is
exactly 73.50%. Every figure here is exact: ``int`` and ``Fraction``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib import resources

from colour_collector.game.errors import GameError
from colour_collector.game.prize_table import Pence, Tier, load_tiers

POOL_SIZE = 6_500_000
"""N: the number of plays the printed odds describe."""
STAKE_PENCE: Pence = 500
"""The price of one play."""
PUBLISHED_PAYOUT = Fraction(735, 1000)
"""The published expected prize payout, 73.50% of stakes."""
PUBLISHED_OVERALL_ODDS = Fraction(277, 100)
"""The published overall odds of winning, 1 in 2.77 (to 2 decimal places)."""
COUNTS_NAME = "pool_counts.json"
"""File name of the solved counts inside ``colour_collector.game.data``."""


class PoolError(GameError, ValueError):
    """A prize pool is malformed or breaks a published figure; the message quotes the value."""


def printed_odds_of(size: int, count: int) -> int:
    """The figure printed for ``count`` winners in ``size`` plays: ``ceil(size / count)``."""
    if count <= 0:
        raise PoolError(f"a tier with count {count!r} has no printed odds")
    return -(-size // count)


def round_2dp(value: Fraction) -> Fraction:
    """``value`` rounded to 2 decimal places, halves up (as a printed figure is)."""
    return Fraction(math.floor(value * 100 + Fraction(1, 2)), 100)


@dataclass(frozen=True)
class PrizePool:
    """A pool of ``size`` plays, ``counts[i]`` of which win tier ``i``; the rest win nothing."""

    size: int
    """The number of plays in the pool."""
    counts: tuple[int, ...]
    """Winners of each tier, in tier order."""

    def __post_init__(self) -> None:
        """Check the counts fit the tiers and the size."""
        if type(self.size) is not int or self.size <= 0:
            raise PoolError(f"pool size must be a positive int, got {self.size!r}")
        if len(self.counts) != len(load_tiers()):
            raise PoolError(f"pool needs {len(load_tiers())} counts, got {len(self.counts)!r}")
        for tier, count in zip(load_tiers(), self.counts, strict=True):
            if type(count) is not int or count < 0:
                raise PoolError(f"count of {tier.name!r} must be an int >= 0, got {count!r}")
        if sum(self.counts) > self.size:
            raise PoolError(f"{sum(self.counts)!r} winners do not fit a pool of {self.size!r}")

    @property
    def tiers(self) -> tuple[Tier, ...]:
        """The tiers the counts belong to."""
        return load_tiers()

    @property
    def winners(self) -> int:
        """Plays that win a prize."""
        return sum(self.counts)

    @property
    def no_win_count(self) -> int:
        """Plays that win nothing."""
        return self.size - self.winners

    @property
    def total_prize_pence(self) -> Pence:
        """All prize money in the pool."""
        return sum(c * t.prize_pence for c, t in zip(self.counts, self.tiers, strict=True))

    @property
    def payout(self) -> Fraction:
        """Prize money as a fraction of stakes."""
        return Fraction(self.total_prize_pence, self.size * STAKE_PENCE)

    @property
    def overall_odds(self) -> Fraction:
        """Overall odds of winning, 1 in this."""
        if self.winners == 0:
            raise PoolError("a pool with no winners has no overall odds")
        return Fraction(self.size, self.winners)

    def tier_odds(self, index: int) -> Fraction:
        """Exact odds of winning tier ``index``, 1 in this."""
        count = self.counts[index]
        if count == 0:
            raise PoolError(f"tier {self.tiers[index].name!r} has no winners in this pool")
        return Fraction(self.size, count)

    def published_violations(self) -> tuple[str, ...]:
        """Every published figure this pool fails to reproduce; empty if it reproduces them all."""
        problems: list[str] = []
        for tier, count in zip(self.tiers, self.counts, strict=True):
            if count <= 0 or printed_odds_of(self.size, count) != tier.printed_odds:
                problems.append(
                    f"{tier.name!r}: count {count!r} does not print odds {tier.printed_odds!r}"
                )
        if self.winners == 0 or round_2dp(self.overall_odds) != PUBLISHED_OVERALL_ODDS:
            problems.append(f"{self.winners!r} winners do not give overall odds of 1 in 2.77")
        if self.payout != PUBLISHED_PAYOUT:
            problems.append(f"payout is {self.payout!r}, not {PUBLISHED_PAYOUT!r}")
        return tuple(problems)


def pool_from_mapping(data: object, size: int = POOL_SIZE) -> PrizePool:
    """Build a pool from a ``{tier name: count}`` mapping, checking every tier is present once."""
    if not isinstance(data, dict):
        raise PoolError(f"pool counts must be a JSON object, got {type(data).__name__!r}")
    tiers = load_tiers()
    names = {tier.name for tier in tiers}
    unknown = sorted(set(data) - names)
    if unknown:
        raise PoolError(f"pool counts name unknown tiers: {unknown!r}")
    missing = [tier.name for tier in tiers if tier.name not in data]
    if missing:
        raise PoolError(f"pool counts miss tiers: {missing!r}")
    counts: list[int] = []
    for tier in tiers:
        count = data[tier.name]
        if type(count) is not int or count <= 0:
            raise PoolError(f"count of {tier.name!r} must be a positive int, got {count!r}")
        counts.append(count)
    return PrizePool(size=size, counts=tuple(counts))


def pool_to_mapping(pool: PrizePool) -> dict[str, int]:
    """The ``{tier name: count}`` mapping of ``pool``, in tier order."""
    return {tier.name: count for tier, count in zip(pool.tiers, pool.counts, strict=True)}


@cache
def load_pool() -> PrizePool:
    """The checked-in pool of 6,500,000 plays."""
    text = resources.files("colour_collector.game.data").joinpath(COUNTS_NAME).read_text("utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise PoolError(f"{COUNTS_NAME!r} is not JSON: {error}") from None
    return pool_from_mapping(data)
