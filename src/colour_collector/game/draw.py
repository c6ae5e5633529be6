"""The independent outcome draw: which tier (or no win) a play gets, weighted by the prize pool.

An outcome is a ``Tier``, or ``None`` for no win. ``IndependentDraw``: every play is an
independent draw weighted by the pool counts (the no-win count included): ``rng.randrange(size)``
picks one of the pool's plays uniformly, and a bisect over the cumulative counts names its outcome.
No floats anywhere. (Pools dealt without replacement, fixed by a secret before their sale, are
``pool_deal``'s.)

Randomness is always passed in: production uses ``secure_rng()``, tests a seeded ``random.Random``.
"""

from __future__ import annotations

import bisect
import itertools
import random

from colour_collector.game.pool import PoolError, PrizePool
from colour_collector.game.prize_table import Tier, load_tiers

NO_WIN = -1
"""The outcome index of a play that wins nothing."""


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
