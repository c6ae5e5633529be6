"""Prize pools as anyone may see them: the pool on sale, its top prizes left, every pool, and
the plays of a closed pool regenerated from its published secret (``service.pools`` loads, sells
from and closes them)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from colour_collector.game import codec
from colour_collector.game.pool_deal import Dealer, outcome_of, play_at
from colour_collector.game.pool_parameters import PoolParameters, PoolVersionError, check_versions
from colour_collector.game.prize_table import Tier, load_tiers
from colour_collector.game.record import PlayRecord
from colour_collector.service.errors import (
    InvalidInputError,
    PoolNotFoundError,
    PoolUnavailableError,
)
from colour_collector.service.models import Pence
from colour_collector.service.pool_models import PoolId, PoolStatus, StoredPool
from colour_collector.service.pools import Sale, parameters_of, published
from colour_collector.service.ports import UnitOfWorkFactory
from colour_collector.service.records import record_sha256

log = logging.getLogger(__name__)

TOP_PRIZE_PENCE: Pence = 100_000
"""Prizes of £1,000 and more are the "top prizes" whose remaining numbers are shown."""
MAX_LISTED = 100
"""Pools listed at most."""
FIGURES_MIN_OPEN = 10_000
"""A pool's top prizes left are public only while at least this many of its plays are open (not
sold yet, or sold and not finished), or none is (every play sold and finished), or once its
secret is published. The figure is the number of top prizes among the open plays, so over a few
of them it tells something of their prizes before the reveal: all of it to the holder of a
sold-out pool's last unfinished play, or, since plays are sold in the order of their positions,
to whoever is about to buy a pool's last play. Over 10,000 open plays it puts the chance of any
one of them being a top prize at no more than one in 10,000 for each one left; of the published
pool (6,500,000 plays) it is withheld over the last 0.15%."""


# -- what anyone may see ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TopPrize:
    """A top prize tier of a pool and how many of it are left."""

    tier: Tier
    """The tier."""
    total: int
    """Plays of this tier in the pool."""
    left: int | None
    """Those not won yet: not dealt, or dealt to a play not finished yet; None while the pool's
    figures are withheld (:data:`FIGURES_MIN_OPEN`). A prize counts as won when its play is
    finished, as a scratchcard's when it is claimed: counted at purchase, the figure would drop
    the moment a top prize was bought, telling its buyer before the reveal."""


@dataclass(frozen=True, slots=True)
class PoolView:
    """A pool as the public sees it (its secret only once it is closed)."""

    pool: StoredPool
    """The stored pool."""
    status: PoolStatus
    """Where it is."""
    parameters: PoolParameters
    """Size, counts and versions."""
    unfinished: Mapping[int, int] = field(default_factory=dict)
    """Plays dealt from it and not finished yet that win a prize, by tier index."""
    in_progress: int = 0
    """Plays dealt from it and not finished yet, whatever they win."""

    @property
    def figures_withheld(self) -> bool:
        """Whether its top prizes left are withheld: fewer than :data:`FIGURES_MIN_OPEN` of its
        plays are open, but some are, and its secret is not published."""
        open_plays = self.pool.left + self.in_progress
        return self.pool.secret is None and 0 < open_plays < FIGURES_MIN_OPEN

    @property
    def top_prizes(self) -> list[TopPrize]:
        """Each tier of £1,000 or more in the pool, most valuable first."""
        withheld = self.figures_withheld
        return [
            TopPrize(tier, total, None if withheld else left + self.unfinished.get(tier.index, 0))
            for tier, total, left in zip(
                load_tiers(), self.parameters.counts, self.pool.remaining, strict=False
            )
            if tier.prize_pence >= TOP_PRIZE_PENCE and total > 0
        ][::-1]


@dataclass(frozen=True, slots=True)
class Current:
    """What the start screen shows of the pools."""

    on_sale: PoolView | None
    """The pool purchases are dealt from; None when none is on sale."""
    queued: int
    """Pools loaded that go on sale after it."""


def _status(pool: StoredPool, on_sale: StoredPool | None) -> PoolStatus:
    if pool.closed_at is not None:
        return PoolStatus.CLOSED
    if pool.sold_out:
        return PoolStatus.SOLD_OUT
    if on_sale is not None and on_sale.id == pool.id:
        return PoolStatus.ON_SALE
    return PoolStatus.QUEUED


Unfinished = Mapping[tuple[PoolId, int | None], int]
"""The plays of every pool not finished yet, by pool and tier index (None: no win)."""


def _view(pool: StoredPool, on_sale: StoredPool | None, unfinished: Unfinished) -> PoolView:
    mine = {t: count for (pool_id, t), count in unfinished.items() if pool_id == pool.id}
    prizes = {tier: count for tier, count in mine.items() if tier is not None}
    return PoolView(pool, _status(pool, on_sale), parameters_of(pool), prizes, sum(mine.values()))


def _dealt_from(on_sale: StoredPool | None, sale: Sale | None) -> StoredPool | None:
    """The pool a purchase on this server is dealt from, as the public is told: none on a
    server that draws every play independently (``sale`` None), nor one this server refuses to
    sell (``Sale.refusal``: another version of the game, a secret sealed with another key, or on
    a production server another prize structure than the published one)."""
    if on_sale is None or sale is None or sale.refusal(on_sale) is not None:
        return None
    return on_sale


def current(factory: UnitOfWorkFactory, sale: Sale | None) -> Current:
    """The pool on sale and how many are queued after it (``sale``: the server's, as for
    :func:`view`)."""
    with factory() as uow:
        found = uow.pools.on_sale()
        on_sale = _dealt_from(found, sale)
        waiting = len(uow.pools.unsold()) if on_sale is not None else 0
        unfinished = uow.plays.unfinished_plays() if on_sale is not None else None
    if on_sale is None or unfinished is None:
        return Current(None, 0)
    return Current(_view(on_sale, on_sale, unfinished), waiting - 1)


def view(factory: UnitOfWorkFactory, pool_id: PoolId, sale: Sale | None) -> PoolView:
    """One pool. ``sale``: how this server sells from the pools (None: it draws every play
    independently, and no pool is on sale); a pool it refuses to sell is not on sale, whatever
    the database says."""
    with factory() as uow:
        pool = uow.pools.get(pool_id)
        found = uow.pools.on_sale()
        unfinished = uow.plays.unfinished_plays()
    if pool is None:
        raise PoolNotFoundError(f"there is no pool {pool_id!r}")
    return _view(pool, _dealt_from(found, sale), unfinished)


def newest(
    factory: UnitOfWorkFactory, sale: Sale | None, limit: int = MAX_LISTED
) -> list[PoolView]:
    """The pools loaded last, newest first (``sale``: as for :func:`view`)."""
    with factory() as uow:
        pools = uow.pools.newest(limit)
        found = uow.pools.on_sale()
        unfinished = uow.plays.unfinished_plays()
    on_sale = _dealt_from(found, sale)
    return [_view(pool, on_sale, unfinished) for pool in pools]


# -- checking a play -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RegeneratedPlay:
    """A play of a closed pool, regenerated from its published secret."""

    pool: PoolView
    """The pool."""
    position: int
    """The play's position."""
    tier: Tier | None
    """The outcome dealt to the position."""
    record: PlayRecord
    """The play as generated (no Bonus Game picks yet)."""
    text: str
    """Its JSON text."""

    @property
    def sha256(self) -> str:
        """SHA-256 of the text: the same as the sold play's (``records.sold_sha256``)."""
        return record_sha256(self.text)


def regenerate(factory: UnitOfWorkFactory, pool_id: PoolId, position: int) -> RegeneratedPlay:
    """The play at ``position`` of a closed pool, regenerated from its published secret."""
    with factory() as uow:
        stored = uow.pools.get(pool_id)
        # A position the pool does not have is refused whether or not its secret is out yet
        # (its size is public): it was 409 pool_not_closed before the close, 422 after.
        if stored is not None and not 0 <= position < stored.size:
            raise InvalidInputError(
                f"position must be 0 to {stored.size - 1:,} in pool {pool_id}, not {position!r}",
                field="position",
            )
        pool, secret = published(stored, pool_id)
        mark = uow.pools.checkpoint(pool_id, position)
        on_sale = uow.pools.on_sale()
        unfinished = uow.plays.unfinished_plays()
    shown = _view(pool, on_sale, unfinished)
    if mark is None:
        # Told to the operator, who can mend it; whoever asked is told only to come back later.
        log.error("pool %s has no checkpoints: close it again (pool close)", pool_id)
        raise PoolUnavailableError(
            f"the plays of pool {pool_id} cannot be regenerated just now; try again later"
        )
    try:
        check_versions(shown.parameters)
    except PoolVersionError as error:
        raise PoolUnavailableError(str(error)) from None
    dealer = Dealer(secret, mark[1], mark[0])
    dealer.skip(position - mark[0])
    category = dealer.deal()
    record = play_at(secret, position, category)
    return RegeneratedPlay(shown, position, outcome_of(category), record, codec.dumps(record))
