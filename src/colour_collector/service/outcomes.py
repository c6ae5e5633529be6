"""Where a purchase's outcome comes from: fixed at purchase, never adapted to anything.

A purchase (or a Try play) asks its source twice. First ``expect``, read without a lock: the deal
it would get now (the outcome and the random source the whole play is generated from, and for a
pool the pool and position). The play is generated from that deal with no unit of work open, so
the time a rare prize's play takes to build holds no lock that other requests would wait on (on
SQLite, the one write lock): how long anything else waits says nothing of what was bought. Then
``take``, inside the purchase's unit of work: the deal made for good, or ``DealMovedError`` when
another purchase took that deal in between, and the purchase starts again from a new one.

- ``IndependentSource``: each play drawn independently, weighted by the pool counts, from the
  server's secure random source.
- ``PoolSource``: the next position of the prize pool on sale (``service.pools``): the pool's row
  is locked, the position's outcome is dealt from the pool's secret and remaining counts
  (``game.pool_deal``), and the play is generated from the position's seed, so the sold play is
  exactly the pool's play at that position. When a pool is sold out the next one loaded goes on
  sale; with none left the purchase is refused (``sold_out``), nothing debited.
- ``ScriptedSource``: test environments only (refused by the settings elsewhere): a list of tiers
  the next plays (purchases and Try plays alike, each outcome to one play) take in order, then
  the source behind it. There is no way over HTTP to choose an
  outcome.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Protocol

from colour_collector.game.draw import IndependentDraw
from colour_collector.game.pool import PrizePool
from colour_collector.game.pool_deal import deal_one, outcome_of, play_seed
from colour_collector.game.prize_table import Tier, tier_by_name
from colour_collector.service.errors import (
    PoolExhaustedServiceError,
    PoolRefusedError,
    PoolUnavailableError,
    ServiceError,
)
from colour_collector.service.pool_models import PoolId, StoredPool
from colour_collector.service.pools import Sale
from colour_collector.service.ports import UnitOfWork

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Deal:
    """What a purchase (or a Try play) is given: its outcome and how to generate its play."""

    tier: Tier | None
    """The prize tier, or None for no win."""
    rng: random.Random
    """The random source the play is generated from."""
    pool_id: PoolId | None = None
    """The pool the play was dealt from; None for an independent draw."""
    position: int | None = None
    """Its position in that pool."""
    script_index: int | None = None
    """For a test's scripted outcome, its index in the script."""
    seed: int | None = None
    """For a pool's position, the seed its play is generated from (``rng``'s), which names that
    play in any pool (``play_builds``)."""


class DealMovedError(Exception):
    """The deal a purchase expected was taken by another purchase before it locked the pool:
    the purchase starts again (never answered to a client)."""


class OutcomeSource(Protocol):
    """Deals the outcome of a new play: expected without a lock, taken inside the purchase's
    unit of work."""

    def expect(self, uow: UnitOfWork, rng: random.Random) -> Deal | None:
        """The deal a play bought now would get, read without locking anything (None when
        nothing can be dealt now: ``take`` then refuses with the reason); ``rng`` is the
        server's random source."""
        ...

    def take(self, uow: UnitOfWork, expected: Deal | None, now: dt.datetime) -> Deal:
        """Make ``expected`` the deal of the play bought at ``now``, or raise
        :class:`DealMovedError` if it is no longer the next one (or the refusal of a purchase
        when nothing can be dealt)."""
        ...

    def refusal(self, uow: UnitOfWork) -> ServiceError | None:
        """The error ``take`` would refuse a purchase with now (``sold_out``, a pool this
        server cannot deal from), found without dealing or locking: for the purchase screen."""
        ...


class IndependentSource:
    """Independent draws weighted by the pool counts."""

    def __init__(self, pool: PrizePool) -> None:
        self._draw = IndependentDraw(pool)

    def expect(self, uow: UnitOfWork, rng: random.Random) -> Deal:
        """One independent draw (nothing stored is read); the play comes from ``rng`` too."""
        return Deal(self._draw.draw(rng), rng)

    def take(self, uow: UnitOfWork, expected: Deal | None, now: dt.datetime) -> Deal:
        """``expected``: no other purchase can take an independent draw."""
        if expected is None:
            raise DealMovedError("an independent draw is always expected")
        return expected

    def refusal(self, uow: UnitOfWork) -> ServiceError | None:
        """None: an independent draw refuses nothing."""
        return None


class PoolSource:
    """Deals the next position of the prize pool on sale."""

    def __init__(self, sale: Sale) -> None:
        """``sale``: how this server sells from the pools (its seal key, and whether it sells
        only the published prize structure)."""
        self._sale = sale

    def expect(self, uow: UnitOfWork, rng: random.Random) -> Deal | None:
        """The next position of the pool on sale, read without its lock (None when it cannot be
        dealt from: ``take`` says why)."""
        try:
            pool, secret = self._dealable(uow.pools.on_sale(), tell_operator=False)
        except (PoolExhaustedServiceError, PoolUnavailableError):
            return None
        category, _ = deal_one(secret, pool.dealt, pool.remaining)
        seed = play_seed(secret, pool.dealt)
        return Deal(outcome_of(category), random.Random(seed), pool.id, pool.dealt, seed=seed)

    def take(self, uow: UnitOfWork, expected: Deal | None, now: dt.datetime) -> Deal:
        """Lock the pool on sale, deal its next position if it is ``expected``'s, store what
        remains."""
        pool, secret = self._dealable(uow.pools.on_sale_for_update(), tell_operator=True)
        position = pool.dealt
        category, remaining = deal_one(secret, position, pool.remaining)
        if (
            expected is None
            or (expected.pool_id, expected.position) != (pool.id, position)
            or expected.tier != outcome_of(category)
        ):
            raise DealMovedError(f"position {position} of pool {pool.id} is not the one expected")
        uow.pools.save(
            replace(
                pool,
                remaining=remaining,
                dealt=position + 1,
                started_at=pool.started_at or now,
                sold_out_at=now if position + 1 == pool.size else None,
            )
        )
        return expected

    def refusal(self, uow: UnitOfWork) -> ServiceError | None:
        """Whether the pool on sale can be dealt from, read without its lock."""
        try:
            self._dealable(uow.pools.on_sale(), tell_operator=False)
        except (PoolExhaustedServiceError, PoolUnavailableError) as error:
            return error
        return None

    def _dealable(
        self, pool: StoredPool | None, *, tell_operator: bool
    ) -> tuple[StoredPool, bytes]:
        """``pool`` (the pool on sale) and its secret, or the error a purchase is refused with."""
        if pool is None:
            raise PoolExhaustedServiceError(
                "the prize pools are sold out: no plays are on sale until the next pool is loaded"
            )
        try:
            return pool, self._sale.secret(pool)
        except PoolRefusedError as error:
            # The reason is for the operator (it names the fix; the console shows it too); the
            # player is told only to wait.
            if tell_operator:
                log.error("no plays can be sold from pool %s: %s", pool.id, error)
            raise PoolUnavailableError(
                "the prize pool cannot be used just now; try again later"
            ) from None


class _Script:
    """Scripted outcomes, each dealt to one play, in order."""

    def __init__(self, names: Iterable[str | None]) -> None:
        self.queue: deque[Tier | None] = deque(
            None if name is None else tier_by_name(name) for name in names
        )
        self.lock = threading.Lock()
        self.taken = 0
        """How many scripted outcomes plays have taken."""


class ScriptedSource:
    """Test environments only: the listed outcomes first, in order, then ``then``."""

    def __init__(self, names: Iterable[str | None], then: OutcomeSource) -> None:
        self._script = _Script(names)
        self._then = then

    def sharing(self, then: OutcomeSource) -> ScriptedSource:
        """A source dealing from this one's script, then from ``then``: each scripted outcome
        goes to one play, whichever source deals it (purchases and Try plays share one script,
        so a free Try never shows the outcome a purchase will get)."""
        source = ScriptedSource((), then)
        source._script = self._script
        return source

    def expect(self, uow: UnitOfWork, rng: random.Random) -> Deal | None:
        """The next scripted outcome, or the deal the source behind expects."""
        script = self._script
        with script.lock:
            if script.queue:
                return Deal(script.queue[0], rng, script_index=script.taken)
        return self._then.expect(uow, rng)

    def take(self, uow: UnitOfWork, expected: Deal | None, now: dt.datetime) -> Deal:
        """The expected scripted outcome if it is still the next one, or the source behind's."""
        scripted = None if expected is None else expected.script_index
        script = self._script
        with script.lock:
            if script.queue or scripted is not None:
                if expected is None or scripted != script.taken or not script.queue:
                    raise DealMovedError(f"scripted outcome {scripted} is not the next one")
                script.queue.popleft()
                script.taken += 1
                return expected
        return self._then.take(uow, expected, now)

    def refusal(self, uow: UnitOfWork) -> ServiceError | None:
        """None while scripted outcomes are left (they refuse nothing), then the source's."""
        with self._script.lock:
            if self._script.queue:
                return None
        return self._then.refusal(uow)
