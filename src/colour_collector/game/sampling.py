"""Small sampling helpers for the play generator. Randomness is always passed in.

Every draw here is exact (integers only, no floats). Drawing many small values is done with one
``rng.randrange`` over the product of their ranges, split into digits: the digits of a uniform
number in ``range(base ** n)`` are ``n`` independent uniform draws from ``range(base)``. This is
much faster than ``n`` calls to ``randrange``, which dominate the generator's profile.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Iterable, Sequence
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


@cache
def _skipping_table(base: int, width: int, skip: int) -> tuple[tuple[int, ...], ...]:
    """``_digit_table(base, width)`` with every digit at or above ``skip`` moved up one."""
    return tuple(tuple(d + (d >= skip) for d in digits) for digits in _digit_table(base, width))


def other_colours(rng: random.Random, colour: int, count: int, colours: int = 6) -> tuple[int, ...]:
    """``count`` colours, each drawn uniformly and independently from all but ``colour`` (the
    digits of ``uniform_digits``, each at or above ``colour`` moved up one)."""
    base = colours - 1
    return skipping_digits(rng.randrange(base**count), base, count, colour)


def skipping_digits(x: int, base: int, count: int, skip: int) -> tuple[int, ...]:
    """The ``count`` base-``base`` digits of ``x`` (``0 <= x < base ** count``), each at or above
    ``skip`` moved up one: uniform draws from ``range(base + 1)`` without ``skip`` when ``x``
    is uniform."""
    full, rest = divmod(count, _CHUNK)
    table = _skipping_table(base, _CHUNK, skip)
    size = len(table)
    out: list[int] = []
    for _ in range(full):
        x, r = divmod(x, size)
        out += table[r]
    if rest:
        out += _skipping_table(base, rest, skip)[x]
    return tuple(out)


def choose(rng: random.Random, weights: Sequence[float]) -> int:
    """An index drawn with probability proportional to ``weights`` (non-negative, some positive).

    For the conditioned samplers, whose weights are chances computed in floating point: one
    ``rng.random()`` and a scan, so the same ``rng`` state always gives the same index.
    """
    total = 0.0
    for weight in weights:
        total += weight
    if not total > 0:
        raise ValueError(f"weights must have a positive sum, not {list(weights)!r}")
    target = rng.random() * total
    last = 0
    for index, weight in enumerate(weights):
        if weight > 0:
            last = index
            target -= weight
            if target < 0:
                return index
    return last  # rounding left the target at the very end: the last positive weight


def choose_scanning(rng: random.Random, total: float, weights: Iterable[tuple[int, float]]) -> int:
    """An index drawn with probability proportional to its weight, given the weights' sum.

    ``weights`` yields ``(index, weight)`` pairs, best put in decreasing order: the scan stops
    at the drawn one, so the weights after it are never computed. If rounding leaves the draw
    past the last weight, the last index with a positive weight is taken.
    """
    if not total > 0:
        raise ValueError(f"total must be positive, not {total!r}")
    target = rng.random() * total
    last = None
    for index, weight in weights:
        if weight > 0:
            last = index
            target -= weight
            if target < 0:
                return index
    if last is None:
        raise ValueError("no positive weight to choose from")
    return last


def power(x: float, n: int) -> float:
    """``x ** n`` for an integer ``n >= 0`` by repeated multiplication, so the same on every
    platform (``**`` on floats goes to the C library's ``pow``)."""
    result = 1.0
    while n:
        if n & 1:
            result *= x
        x *= x
        n >>= 1
    return result


def choose_cumulative(rng: random.Random, cumulative: Sequence[float]) -> int:
    """An index drawn with probability proportional to its weight, given the running totals of
    the weights (non-decreasing, the last positive): one ``rng.random()`` and a bisection."""
    target = rng.random() * cumulative[-1]
    return min(bisect_right(cumulative, target), len(cumulative) - 1)


@cache
def arrangements(n: int, k: int) -> int:
    """The number of ordered choices of ``k`` of ``n`` things."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


def arrangement(rng: random.Random, n: int, k: int) -> list[int]:
    """``k`` distinct values of ``range(n)`` in uniform random order (every ordered choice equally
    likely), from one ``randrange`` over the number of ordered choices, read as mixed-radix
    digits (exact: each rank gives a different choice)."""
    return arrangement_of(rng.randrange(arrangements(n, k)), n, k)


def arrangement_of(rank: int, n: int, k: int) -> list[int]:
    """The ordered choice of ``k`` of ``range(n)`` with rank ``rank`` (``0 <= rank <
    arrangements(n, k)``), read as mixed-radix digits."""
    pool = list(range(n))
    out = []
    for base in range(n, n - k, -1):
        rank, index = divmod(rank, base)
        out.append(pool.pop(index))
    return out
