"""Small sampling helpers for the play generator. Randomness is always passed in."""

from __future__ import annotations

import random
from bisect import bisect_right
from itertools import accumulate


class WeightedPicker:
    """Picks an index with probability proportional to integer weights, without floats."""

    __slots__ = ("_cumulative", "_total")

    def __init__(self, weights: tuple[int, ...] | list[int]) -> None:
        if not weights or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError(f"weights must be non-negative with a positive sum, not {weights!r}")
        self._cumulative = list(accumulate(weights))
        self._total = self._cumulative[-1]

    def pick(self, rng: random.Random) -> int:
        """One index."""
        return bisect_right(self._cumulative, rng.randrange(self._total))


def binomial(rng: random.Random, n: int, numerator: int, denominator: int) -> int:
    """A Binomial(n, numerator/denominator) draw made of n integer trials."""
    return sum(1 for _ in range(n) if rng.randrange(denominator) < numerator)


def other_colour(rng: random.Random, colour: int, colours: int = 6) -> int:
    """A colour drawn uniformly from all but ``colour``."""
    pick = rng.randrange(colours - 1)
    return pick + 1 if pick >= colour else pick
