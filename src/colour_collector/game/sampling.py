"""Small sampling helpers for the play generator. Randomness is always passed in.

Every draw here is exact (integers only, no floats). Drawing many small values is done with one
``rng.randrange`` over the product of their ranges, split into digits: the digits of a uniform
number in ``range(base ** n)`` are ``n`` independent uniform draws from ``range(base)``. This is
much faster than ``n`` calls to ``randrange``, which dominate the generator's profile.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from functools import cache
from itertools import accumulate, product
from math import comb

_CHUNK = 5
"""Digits looked up at once in ``uniform_digits`` (a table of ``base ** _CHUNK`` tuples)."""


class WeightedPicker:
    """Picks an index with probability proportional to integer weights, without floats."""

    __slots__ = ("_cumulative", "_table", "_total")

    def __init__(self, weights: tuple[int, ...] | list[int]) -> None:
        if not weights or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError(f"weights must be non-negative with a positive sum, not {weights!r}")
        self._cumulative = list(accumulate(weights))
        self._total = self._cumulative[-1]
        self._table = tuple(i for i, w in enumerate(weights) for _ in range(w))

    def pick(self, rng: random.Random) -> int:
        """One index."""
        return self._table[rng.randrange(self._total)]

    def pick_many(self, rng: random.Random, count: int) -> list[int]:
        """``count`` independent indices, from one draw of ``rng``."""
        if count <= 0:
            return []
        total, table = self._total, self._table
        x = rng.randrange(total**count)
        out = []
        for _ in range(count):
            x, r = divmod(x, total)
            out.append(table[r])
        return out


@cache
def picker_for(weights: tuple[int, ...]) -> WeightedPicker:
    """A shared ``WeightedPicker`` for ``weights`` (built once per distinct weights)."""
    return WeightedPicker(weights)


@cache
def _digit_table(base: int, width: int) -> tuple[tuple[int, ...], ...]:
    return tuple(product(range(base), repeat=width))


def uniform_digits(rng: random.Random, base: int, count: int) -> tuple[int, ...]:
    """``count`` independent uniform draws from ``range(base)``, from one draw of ``rng``."""
    full, rest = divmod(count, _CHUNK)
    table = _digit_table(base, _CHUNK)
    size = len(table)
    x = rng.randrange(base**count)
    out: list[int] = []
    for _ in range(full):
        x, r = divmod(x, size)
        out += table[r]
    if rest:
        out += _digit_table(base, rest)[x]
    return tuple(out)


@cache
def _binomial_cumulative(n: int, numerator: int, denominator: int) -> tuple[int, ...]:
    weights = (
        comb(n, k) * numerator**k * (denominator - numerator) ** (n - k) for k in range(n + 1)
    )
    return tuple(accumulate(weights))


def binomial(rng: random.Random, n: int, numerator: int, denominator: int) -> int:
    """A Binomial(n, numerator/denominator) draw, exact, from one draw of ``rng``."""
    cumulative = _binomial_cumulative(n, numerator, denominator)
    return bisect_right(cumulative, rng.randrange(cumulative[-1]))


def other_colour(rng: random.Random, colour: int, colours: int = 6) -> int:
    """A colour drawn uniformly from all but ``colour``."""
    pick = rng.randrange(colours - 1)
    return pick + 1 if pick >= colour else pick


def other_colours(rng: random.Random, colour: int, count: int, colours: int = 6) -> tuple[int, ...]:
    """``count`` colours, each drawn uniformly and independently from all but ``colour``."""
    return tuple(d + (d >= colour) for d in uniform_digits(rng, colours - 1, count))
