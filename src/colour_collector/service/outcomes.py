"""Where a purchase's outcome comes from: fixed at purchase, never adapted to anything.

- ``IndependentSource``: each play drawn independently, weighted by the pool counts.
- ``FinitePoolSource``: plays dealt without replacement from the stored 6,500,000-entry pool; the
  remaining counts live in one database row that each purchase locks, so several server
  processes share the pool and never deal the same entry twice.
- ``ScriptedSource``: test environments only (refused by the settings elsewhere): a list of tiers
  the next plays take in order, then the source behind it. There is no way over HTTP to choose an
  outcome.
"""

from __future__ import annotations

import random
import threading
from collections import deque
from collections.abc import Iterable
from typing import Protocol

from colour_collector.game.draw import FinitePool, IndependentDraw, deal_from, outcome_of
from colour_collector.game.pool import PrizePool
from colour_collector.game.prize_table import Tier, tier_by_name
from colour_collector.service.errors import PoolExhaustedServiceError
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory


class OutcomeSource(Protocol):
    """Draws the outcome of a new play, inside the purchase's unit of work."""

    def draw(self, uow: UnitOfWork, rng: random.Random) -> Tier | None:
        """The outcome: a prize tier, or None for no win."""
        ...


class IndependentSource:
    """Independent draws weighted by the pool counts."""

    def __init__(self, pool: PrizePool) -> None:
        self._draw = IndependentDraw(pool)

    def draw(self, uow: UnitOfWork, rng: random.Random) -> Tier | None:
        """One independent draw (nothing stored is read)."""
        return self._draw.draw(rng)


class FinitePoolSource:
    """Deals from the finite pool stored in the database."""

    def __init__(self, pool: PrizePool) -> None:
        self._full = FinitePool.from_pool(pool).remaining

    def prepare(self, factory: UnitOfWorkFactory) -> None:
        """Store the full pool if no pool is stored yet (at server start; safe to race)."""
        with factory() as uow:
            uow.pool.add_if_missing(self._full)
            uow.commit()

    def draw(self, uow: UnitOfWork, rng: random.Random) -> Tier | None:
        """Lock the pool row, deal one entry, store what remains."""
        remaining = uow.pool.get_for_update()
        if remaining is None:
            raise PoolExhaustedServiceError("the prize pool is not set up: no plays are on sale")
        if sum(remaining) == 0:
            raise PoolExhaustedServiceError("the prize pool is sold out: no more plays are on sale")
        index, left = deal_from(remaining, rng)
        uow.pool.save(left, sum(self._full) - sum(left))
        return outcome_of(index)


class ScriptedSource:
    """Test environments only: the listed outcomes first, in order, then ``then``."""

    def __init__(self, names: Iterable[str | None], then: OutcomeSource) -> None:
        self._queue: deque[Tier | None] = deque(
            None if name is None else tier_by_name(name) for name in names
        )
        self._then = then
        self._lock = threading.Lock()

    def draw(self, uow: UnitOfWork, rng: random.Random) -> Tier | None:
        """The next scripted outcome, or a draw from the source behind."""
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self._then.draw(uow, rng)
