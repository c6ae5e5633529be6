"""Prize pools as the use cases see them: loaded, on sale, sold out, closed."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum, unique

PoolId = int
"""The database id of a loaded pool: pools go on sale in the order of their ids."""
Remaining = tuple[int, ...]
"""Undealt plays of each category: every tier in table order, then no win."""


@unique
class PoolStatus(StrEnum):
    """Where a loaded pool is."""

    QUEUED = "queued"
    """Loaded; it goes on sale when the pools loaded before it are sold out or closed."""
    ON_SALE = "on_sale"
    """Purchases are dealt from it."""
    SOLD_OUT = "sold_out"
    """Every play dealt; its secret is not published yet."""
    CLOSED = "closed"
    """Closed by the operator: no more sales, its secret is published."""


@dataclass(frozen=True, slots=True)
class StoredPool:
    """A pool as stored. Its secret is kept sealed (``service.pools.seal``) until it closes."""

    id: PoolId
    """Database id; pools go on sale in this order."""
    commitment: str
    """SHA-256 of parameters and secret, published before the sale (hex)."""
    parameters: str
    """The canonical parameters text (size, counts, versions) the commitment binds."""
    size: int
    """Plays in the pool."""
    sealed_secret: str
    """The secret sealed with the server's key (hex); useless without that key."""
    secret: str | None
    """The secret (hex), published when the pool is closed; None until then."""
    remaining: Remaining
    """Undealt plays of each category."""
    dealt: int
    """Plays dealt so far: the next purchase gets this position."""
    loaded_at: dt.datetime
    """When the operator loaded it."""
    started_at: dt.datetime | None
    """When its first play was dealt."""
    sold_out_at: dt.datetime | None
    """When its last play was dealt."""
    closed_at: dt.datetime | None
    """When the operator closed it and published its secret."""

    def __repr__(self) -> str:
        """The pool without its sealed secret."""
        return (
            f"StoredPool(id={self.id!r}, commitment={self.commitment!r}, dealt={self.dealt!r},"
            f" size={self.size!r}, closed_at={self.closed_at!r})"
        )

    @property
    def sold_out(self) -> bool:
        """Whether every play has been dealt."""
        return self.dealt >= self.size

    @property
    def left(self) -> int:
        """Plays not dealt yet."""
        return self.size - self.dealt


Checkpoint = tuple[int, Remaining]
"""A position of a closed pool and what remained undealt before it."""


@dataclass(frozen=True, slots=True)
class SoldPlay:
    """A play dealt from a pool, as the close checks it against the pool's secret."""

    position: int
    """Its position in the pool (from 0)."""
    play_number: str
    """Its Play Number."""
    tier_index: int | None
    """The prize tier it was sold with (None: no win)."""
    prize_pence: int
    """The prize it pays."""


@dataclass(frozen=True, slots=True)
class SoldRecord:
    """A play dealt from a pool with its stored record, as ``pool audit`` checks it against the
    pool's published secret."""

    position: int
    """Its position in the pool (from 0)."""
    play_number: str
    """Its Play Number."""
    tier_index: int | None
    """The prize tier it was sold with (None: no win)."""
    prize_pence: int
    """The prize it pays."""
    record: str
    """Its stored record (the play as sold, with the Bonus Game's picks as they were made)."""
