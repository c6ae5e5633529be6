"""Purchased plays and free Try plays."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Protocol

from colour_collector.service.models import AccountId
from colour_collector.service.play_models import StoredPlay, TryPlay
from colour_collector.service.pool_models import PoolId, SoldPlay, SoldRecord


class Plays(Protocol):
    """Purchased plays."""

    def add(self, play: StoredPlay) -> StoredPlay:
        """Store a new play (its ``id`` is ignored and returned set); raise
        ``DuplicatePlayError`` if its Play Number or (account, Idempotency-Key) is taken."""
        ...

    def get(self, play_number: str) -> StoredPlay | None:
        """The play with this Play Number."""
        ...

    def get_for_update(self, play_number: str) -> StoredPlay | None:
        """The play with this Play Number, locked."""
        ...

    def session_play_for_update(
        self, token_hash: str, play_number: str, now: dt.datetime
    ) -> StoredPlay | None:
        """The play with this Play Number, locked, if it belongs to the account of the session
        with this token hash and the session is live at ``now``."""
        ...

    def by_idempotency_key(self, account_id: AccountId, key: str) -> StoredPlay | None:
        """The play the account bought with this Idempotency-Key."""
        ...

    def unfinished(self, account_id: AccountId) -> StoredPlay | None:
        """The account's play in progress, if any."""
        ...

    def page(self, account_id: AccountId, offset: int, limit: int) -> Sequence[StoredPlay]:
        """The account's plays, newest first."""
        ...

    def count(self, account_id: AccountId) -> int:
        """How many plays the account has."""
        ...

    def due(self, now: dt.datetime, limit: int) -> Sequence[str]:
        """Play Numbers of plays in progress whose ``finish_by`` has passed, oldest first."""
        ...

    def after(self, play_id: int, limit: int) -> Sequence[StoredPlay]:
        """Every account's plays with an id above ``play_id``, by id, at most ``limit`` (to
        read them all a batch at a time)."""
        ...

    def unfinished_plays(self) -> Mapping[tuple[PoolId, int | None], int]:
        """Plays dealt from a pool and not finished yet: how many, by pool and tier index (None:
        no win)."""
        ...

    def unfinished_in_pool(self, pool_id: PoolId) -> tuple[int, dt.datetime | None]:
        """How many plays dealt from the pool are in progress, and the latest ``finish_by``
        among them."""
        ...

    def count_in_pool(self, pool_id: PoolId) -> int:
        """How many plays name the pool, whatever their positions."""
        ...

    def sold_from(self, pool_id: PoolId, after: int, limit: int) -> Sequence[SoldPlay]:
        """The plays dealt from the pool at positions above ``after``, by position, at most
        ``limit`` (to read them all a batch at a time)."""
        ...

    def records_from(self, pool_id: PoolId, after: int, limit: int) -> Sequence[SoldRecord]:
        """As :meth:`sold_from`, with each play's stored record."""
        ...

    def save(self, play: StoredPlay, *, was: StoredPlay) -> None:
        """Store ``play``'s progress (record, revealed, status, balance after, finished at) over
        ``was``, the play as read in this unit of work. Raise ``PlayChangedError`` (writing
        nothing) if the stored play is no longer at ``was.revealed``."""
        ...


class TryPlays(Protocol):
    """Free Try plays, found by the SHA-256 of their secret token."""

    def add(self, token_hash: str, play: TryPlay, client: str) -> TryPlay:
        """Store a new Try play started by ``client`` (its network address)."""
        ...

    def get(self, token_hash: str) -> TryPlay | None:
        """The Try play with this token hash."""
        ...

    def get_for_update(self, token_hash: str) -> TryPlay | None:
        """The Try play with this token hash, locked."""
        ...

    def save(self, play: TryPlay, *, was: TryPlay) -> None:
        """Store ``play``'s progress over ``was`` (as :meth:`Plays.save`)."""
        ...

    def started_after(self, client: str, after: dt.datetime) -> int:
        """How many Try plays ``client`` started later than ``after``."""
        ...

    def start_times(self, client: str, after: dt.datetime) -> tuple[dt.datetime, ...]:
        """When ``client`` started each Try play it started later than ``after``, oldest first."""
        ...

    def remove_before(self, before: dt.datetime) -> int:
        """Forget Try plays started before ``before``; how many."""
        ...
