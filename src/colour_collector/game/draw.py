"""The outcome draw: which tier (or no win) a play gets, from the prize pool.

An outcome is a ``Tier``, or ``None`` for no win. Two ways to draw one, both exact and unbiased:

* ``IndependentDraw``: every play is an independent draw weighted by the pool counts (the no-win
  count included): ``rng.randrange(size)`` picks one of the pool's plays uniformly, and a bisect
  over the cumulative counts names its outcome. No floats anywhere.
* ``FinitePool``: the pool is dealt without replacement, so when it is exhausted every tier has been
  dealt exactly its count. Its whole state is ``remaining``, a tuple of ints (one per tier, then
  the no-win count) that a server can keep in a database row; ``deal_from`` is the pure step
  ``remaining -> (index, new remaining)`` that several processes can apply under a row lock.

Randomness is always passed in: production uses ``secure_rng()``, tests a seeded ``random.Random``.
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from colour_collector.game.errors import GameError
from colour_collector.game.pool import PoolError, PrizePool
from colour_collector.game.prize_table import Tier, load_tiers

NO_WIN = -1
"""The outcome index of a play that wins nothing."""


class PoolExhaustedError(GameError):
    """A finite pool has no entries left to deal."""


def secure_rng() -> random.Random:
    """The production source of randomness: the operating system's, via ``SystemRandom``."""
    return random.SystemRandom()


def outcome_of(index: int) -> Tier | None:
    """The outcome with outcome index ``index``: a tier, or None for ``NO_WIN``."""
    if index == NO_WIN:
        return None
    tiers = load_tiers()
    if not 0 <= index < len(tiers):
        raise PoolError(f"outcome index must be -1 or 0..{len(tiers) - 1}, got {index!r}")
    return tiers[index]


def _pick(weights: Sequence[int], rng: random.Random) -> int:
    """A position in ``weights`` drawn with probability ``weights[i] / sum(weights)``, exactly."""
    cumulative = list(itertools.accumulate(weights))
    return bisect.bisect_right(cumulative, rng.randrange(cumulative[-1]))


class IndependentDraw:
    """Draws each play independently, weighted by the pool's counts and its no-win count."""

    __slots__ = ("_cumulative", "pool")

    def __init__(self, pool: PrizePool) -> None:
        """Prepare the cumulative counts of ``pool``: tiers in order, then no win."""
        self.pool = pool
        """The pool whose proportions the draw follows."""
        self._cumulative = tuple(itertools.accumulate((*pool.counts, pool.no_win_count)))

    def __repr__(self) -> str:
        """Code that builds the draw again."""
        return f"IndependentDraw({self.pool!r})"

    def draw_index(self, rng: random.Random) -> int:
        """The outcome index of one play: a tier index, or ``NO_WIN``."""
        index = bisect.bisect_right(self._cumulative, rng.randrange(self.pool.size))
        return NO_WIN if index == len(self.pool.counts) else index

    def draw(self, rng: random.Random) -> Tier | None:
        """The outcome of one play."""
        return outcome_of(self.draw_index(rng))


def check_remaining(remaining: Sequence[int]) -> tuple[int, ...]:
    """``remaining`` as a tuple, checked: one int >= 0 per tier, then the no-win count."""
    expected = len(load_tiers()) + 1
    if len(remaining) != expected:
        raise PoolError(f"remaining needs {expected} counts, got {len(remaining)!r}")
    for position, count in enumerate(remaining):
        if type(count) is not int or count < 0:
            raise PoolError(f"remaining[{position}] must be an int >= 0, got {count!r}")
    return tuple(remaining)


def deal_from(remaining: Sequence[int], rng: random.Random) -> tuple[int, tuple[int, ...]]:
    """Deal one entry: its outcome index (``NO_WIN`` for no win) and the remaining counts after."""
    state = check_remaining(remaining)
    if sum(state) == 0:
        raise PoolExhaustedError("the finite pool is exhausted: no entries remain to deal")
    position = _pick(state, rng)
    after = (*state[:position], state[position] - 1, *state[position + 1 :])
    return (NO_WIN if position == len(state) - 1 else position), after


@dataclass(frozen=True, slots=True)
class FinitePool:
    """A pool dealt without replacement; its state is the remaining count of each outcome."""

    remaining: tuple[int, ...]
    """Entries left of each tier, in tier order, then the entries left that win nothing."""

    def __post_init__(self) -> None:
        """Check the remaining counts."""
        object.__setattr__(self, "remaining", check_remaining(self.remaining))

    @classmethod
    def from_pool(cls, pool: PrizePool) -> FinitePool:
        """A full, undealt copy of ``pool``."""
        return cls((*pool.counts, pool.no_win_count))

    @property
    def size(self) -> int:
        """Entries left to deal."""
        return sum(self.remaining)

    @property
    def exhausted(self) -> bool:
        """Whether every entry has been dealt."""
        return self.size == 0

    def deal(self, rng: random.Random) -> tuple[Tier | None, FinitePool]:
        """Deal one entry: its outcome and the pool left after it."""
        index, after = deal_from(self.remaining, rng)
        return outcome_of(index), FinitePool(after)
