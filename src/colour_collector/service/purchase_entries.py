"""A pool's purchase entries in the audit log, matched to its positions as an audit reaches them.

Every purchase dealt from a pool appends a ``purchase`` entry naming the pool, the position, the
Play Number and the SHA-256 of the record as sold, in the transaction that deals the position
under the pool row's lock: a pool's entries are therefore in the order of its positions. The
entries are read a batch at a time in that order and kept only until their position is reached,
so a pool of millions is never held whole. Each entry must name a later position than the one
before it: one that does not (out of sale order, or a position named twice) is set aside as it
is read, whatever the batches, and told at the end (``stray``), as is one that names a position
beyond the sale or none.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from colour_collector.service.models import AuditEntry
from colour_collector.service.pool_models import PoolId

BATCH = 5_000
"""Purchase entries read at a time."""

ReadPurchases = Callable[[int, int], Sequence[AuditEntry]]
"""``(after_seq, limit)``: the log's ``purchase`` entries after ``after_seq``, in order, at most
``limit``."""


@dataclass(frozen=True, slots=True)
class PurchaseEntry:
    """A purchase entry of the pool, as the audit compares it with the play sold."""

    seq: int
    """Its place in the audit log."""
    position: int | None
    """The position it names (None: not a whole number)."""
    play_number: str | None
    """The Play Number it names."""
    record_sha256: str | None
    """The SHA-256 of the record as sold, as it names it."""


class PurchaseEntries:
    """The pool's purchase entries, taken position by position in increasing order."""

    def __init__(self, pool_id: PoolId, read: ReadPurchases) -> None:
        self._pool_id = pool_id
        self._read = read
        self._after_seq = 0
        self._exhausted = False
        self._furthest = -1
        self._ahead: dict[int | None, list[PurchaseEntry]] = {}
        self._out_of_order: list[PurchaseEntry] = []

    def take(self, position: int) -> list[PurchaseEntry]:
        """The entries naming ``position`` (normally one), reading on until an entry of a later
        position is read or the log ends. Positions are taken in increasing order."""
        while not self._exhausted and self._furthest <= position:
            self._read_batch()
        return self._ahead.pop(position, [])

    def stray(self) -> list[PurchaseEntry]:
        """After the last position is taken: the entries no position took (beyond the sale, out
        of sale order, or without a position), in log order."""
        while not self._exhausted:
            self._read_batch()
        left = [e for entries in self._ahead.values() for e in entries]
        return sorted(left + self._out_of_order, key=lambda e: e.seq)

    def _read_batch(self) -> None:
        batch = self._read(self._after_seq, BATCH)
        if not batch:
            self._exhausted = True
            return
        self._after_seq = batch[-1].seq
        for entry in batch:
            found = _of_pool(entry, self._pool_id)
            if found is None:
                continue
            if found.position is not None and found.position <= self._furthest:
                self._out_of_order.append(found)
                continue
            self._ahead.setdefault(found.position, []).append(found)
            if found.position is not None:
                self._furthest = found.position


def _of_pool(entry: AuditEntry, pool_id: PoolId) -> PurchaseEntry | None:
    """The entry as a purchase of the pool, or None if it names another pool (or none). A
    payload that is not a JSON object is not read here: ``audit verify`` names it."""
    try:
        payload = json.loads(entry.payload)
    except ValueError:
        return None
    if not isinstance(payload, dict) or type(payload.get("pool")) is not int:
        return None
    if payload["pool"] != pool_id:
        return None
    position, number, digest = (
        payload.get("position"),
        payload.get("play_number"),
        payload.get("record_sha256"),
    )
    return PurchaseEntry(
        entry.seq,
        position if isinstance(position, int) and not isinstance(position, bool) else None,
        number if isinstance(number, str) else None,
        digest if isinstance(digest, str) else None,
    )
