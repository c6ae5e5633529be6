"""Prize pools: loaded, committed to, dealt from, closed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from colour_collector.service.pool_models import Checkpoint, PoolId, StoredPool


class Pools(Protocol):
    """Prize pools loaded for sale, what each has dealt, and the checkpoints of closed ones.

    Dealers lock the pool on sale (:meth:`on_sale_for_update`) after the account and before the
    play: account, pool, play, audit head. A read that meets a row it cannot read as a pool or a
    checkpoint (altered by hand, or damaged) raises ``DamagedRowError`` naming it.
    """

    def add(self, pool: StoredPool) -> StoredPool:
        """Store a newly loaded pool (its ``id`` is ignored and returned set); raise
        ``DuplicatePoolError`` if a pool with its commitment is stored."""
        ...

    def get(self, pool_id: PoolId) -> StoredPool | None:
        """The pool with this id."""
        ...

    def get_for_update(self, pool_id: PoolId) -> StoredPool | None:
        """The pool with this id, locked."""
        ...

    def by_commitment(self, commitment: str) -> StoredPool | None:
        """The pool with this commitment."""
        ...

    def on_sale(self) -> StoredPool | None:
        """The pool the next purchase is dealt from: the first loaded that is neither sold out
        nor closed."""
        ...

    def on_sale_for_update(self) -> StoredPool | None:
        """:meth:`on_sale`, locked: dealers serialise here, and each reads what the one before
        it dealt."""
        ...

    def unsold(self) -> Sequence[StoredPool]:
        """Pools neither sold out nor closed, in the order they go on sale (the one on sale
        first)."""
        ...

    def newest(self, limit: int) -> Sequence[StoredPool]:
        """The pools loaded last, newest first."""
        ...

    def save(self, pool: StoredPool) -> None:
        """Store what changes as a pool sells and closes (remaining, dealt, started at, sold out
        at, sealed secret, secret, closed at), after :meth:`get_for_update` or
        :meth:`on_sale_for_update`."""
        ...

    def add_checkpoints(self, pool_id: PoolId, checkpoints: Sequence[Checkpoint]) -> None:
        """Store checkpoints of a pool being closed."""
        ...

    def checkpoint(self, pool_id: PoolId, position: int) -> Checkpoint | None:
        """The last checkpoint of the pool at or before ``position``."""
        ...
