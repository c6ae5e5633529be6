"""The audit of a closed pool's sale: every sold play checked against the pool's published secret
and its purchase's audit entry (``colour-collector pool audit``, docs/pools.md).

``pool close`` checks each sold play's tier and prize against the secret's deal, and ``audit
verify`` replays each stored record through the rules; neither regenerates the plays, so a sale
whose records were built by altered code, with the right tiers, passes both. The audit
regenerates the play of every sold position from the published secret and compares the SHA-256
of the record as sold (``records.sold_sha256``: the Bonus Game's picks left out) three ways: the
stored record's, the regenerated play's, and the one the purchase's audit entry holds. It also
checks that the positions sold are exactly ``0 .. dealt - 1``, each held by one play sold with the
tier and prize the secret deals it and named, with its Play Number, by one purchase entry; and
that no play names the pool without a position.

The plays are read a batch at a time in position order and dealt as they are read (a ``Dealer``
keeps the remaining counts, not the order), so a pool of millions is never held whole. The
regeneration, the costly part, is cut into chunks that ``run`` maps (in this process, or on the
command's worker processes); their results come back in any order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from colour_collector.game import codec
from colour_collector.game.errors import GameError
from colour_collector.game.generator import generate
from colour_collector.game.pool_deal import (
    Category,
    Dealer,
    ProgressCallback,
    commitment,
    outcome_of,
    play_rng,
)
from colour_collector.service.models import AuditEntry, AuditKind
from colour_collector.service.pool_models import PoolId, SoldPlay, SoldRecord, StoredPool
from colour_collector.service.pool_sale_check import tier_problem
from colour_collector.service.pools import parameters_of, published
from colour_collector.service.ports import UnitOfWorkFactory
from colour_collector.service.purchase_entries import PurchaseEntries, PurchaseEntry
from colour_collector.service.records import record_sha256, sold_sha256

BATCH = 2_000
"""Sold plays read a unit of work (about 2 KB of record each)."""
CHUNK = 500
"""Sold plays regenerated a piece of work: a fraction of a second on one core."""
MAX_LISTED = 1_000
"""Mismatches described, at most (the first by position); all are counted."""


@dataclass(frozen=True, slots=True)
class Mismatch:
    """Something of the sale that does not match the secret or the audit log."""

    position: int | None
    """The position concerned (None: the pool as a whole)."""
    play_number: str | None
    """The play concerned, if one is."""
    problem: str
    """What differs."""


@dataclass(frozen=True, slots=True)
class SoldItem:
    """A sold play as a worker compares it with its position's play."""

    position: int
    """Its position."""
    category: Category
    """The category the secret deals the position."""
    play_number: str
    """Its Play Number."""
    record: str
    """Its stored record."""
    audited_sha256: str | None
    """The record SHA-256 its purchase entry holds (None: no entry names it)."""


@dataclass(frozen=True, slots=True)
class RecordChunk:
    """Sold plays of a pool, to regenerate and compare."""

    secret: bytes
    """The pool's (published) secret."""
    items: tuple[SoldItem, ...]
    """The plays, by position."""

    def __repr__(self) -> str:
        """The chunk without the secret or the records."""
        first = self.items[0].position if self.items else None
        return f"RecordChunk(first={first!r}, plays={len(self.items)!r})"


@dataclass(frozen=True, slots=True)
class ChunkResult:
    """What a chunk came to."""

    plays: int
    """Plays compared."""
    mismatches: tuple[Mismatch, ...]
    """Their records' mismatches."""


Run = Callable[[Callable[[RecordChunk], ChunkResult], Iterable[RecordChunk]], Iterable[ChunkResult]]
"""Maps the comparison over the chunks, here or on workers; the results in any order."""


@dataclass
class SaleAudit:
    """What the audit of a pool's sale found."""

    pool: StoredPool
    """The pool, as it was read."""
    checked: int = 0
    """Sold plays regenerated and compared."""
    found: int = 0
    """Mismatches found."""
    mismatches: list[Mismatch] = field(default_factory=list)
    """The first of them by position (at least ``MAX_LISTED``; the pool's own first)."""

    @property
    def ok(self) -> bool:
        """Whether every sold play matched."""
        return self.found == 0

    def add(self, mismatch: Mismatch) -> None:
        """Count ``mismatch``, and keep it while it is among the first by position."""
        self.found += 1
        self.mismatches.append(mismatch)
        if len(self.mismatches) > 2 * MAX_LISTED:
            self.mismatches = _first(self.mismatches)

    @property
    def listed(self) -> list[Mismatch]:
        """The mismatches described: the first ``MAX_LISTED`` by position."""
        return _first(self.mismatches)


def _first(mismatches: list[Mismatch]) -> list[Mismatch]:
    ordered = sorted(mismatches, key=lambda m: (m.position is not None, m.position or 0))
    return ordered[:MAX_LISTED]


def compare_chunk(chunk: RecordChunk) -> ChunkResult:
    """Regenerate each play of ``chunk`` from the secret and compare it with the stored record
    and the record SHA-256 of its purchase entry (runs in a worker)."""
    found: list[Mismatch] = []
    for item in chunk.items:
        where = (item.position, item.play_number)
        try:
            text = codec.dumps(
                generate(outcome_of(item.category), play_rng(chunk.secret, item.position))
            )
        except GameError as error:  # a generator that cannot make its position's play
            found.append(Mismatch(*where, f"the secret's play cannot be generated: {error}"))
            continue
        expected = record_sha256(text)
        stored = record_sha256(item.record)
        if stored != expected:  # as sold, the Bonus Game's picks left out
            try:
                stored = sold_sha256(item.record)
            except GameError as error:
                found.append(Mismatch(*where, f"its stored record cannot be read: {error}"))
                continue
        if stored != expected:
            found.append(
                Mismatch(
                    *where,
                    f"its stored record is not the play the secret gives its position (record"
                    f" SHA-256 {stored} as sold; the secret's play {expected})",
                )
            )
        if item.audited_sha256 is not None and item.audited_sha256 != stored:
            found.append(
                Mismatch(
                    *where,
                    f"its purchase entry holds record SHA-256 {item.audited_sha256}, but its"
                    f" stored record's is {stored}",
                )
            )
    return ChunkResult(len(chunk.items), tuple(found))


def _here(
    compare: Callable[[RecordChunk], ChunkResult], chunks: Iterable[RecordChunk]
) -> Iterable[ChunkResult]:
    return map(compare, chunks)


def audit_sale(
    factory: UnitOfWorkFactory,
    pool_id: PoolId,
    *,
    run: Run = _here,
    progress: ProgressCallback | None = None,
) -> SaleAudit:
    """Check every sold play of the closed pool ``pool_id`` against its published secret and
    the audit log. ``PoolNotFoundError`` if there is no such pool, ``PoolNotClosedError`` if
    its secret is not published yet; ``progress`` is told the plays compared so far."""
    with factory() as uow:
        pool, secret = published(uow.pools.get(pool_id), pool_id)
        naming = uow.plays.count_in_pool(pool_id)
    parameters = parameters_of(pool)
    audit = SaleAudit(pool)
    if commitment(secret, parameters) != pool.commitment:
        audit.add(
            Mismatch(
                None,
                None,
                f"the published secret does not match the pool's commitment {pool.commitment}",
            )
        )
    sale = _Sale(factory, pool, secret, audit)
    for result in run(compare_chunk, sale.chunks()):
        audit.checked += result.plays
        for mismatch in result.mismatches:
            audit.add(mismatch)
        if progress is not None:
            progress(audit.checked)
    if sale.read != naming:
        audit.add(
            Mismatch(
                None,
                None,
                f"{naming:,} plays name the pool but {sale.read:,} hold a position in it (a play"
                " without a position, or at one below 0)",
            )
        )
    return audit


class _Sale:
    """The pool's sold plays read in position order, dealt, matched to their purchase entries
    and cut into chunks; what is wrong with the positions themselves is added to the audit as
    it is found."""

    def __init__(
        self, factory: UnitOfWorkFactory, pool: StoredPool, secret: bytes, audit: SaleAudit
    ) -> None:
        self._factory = factory
        self._pool = pool
        self._secret = secret
        self._audit = audit
        self._dealer = Dealer(secret, parameters_of(pool).start)
        self._entries = PurchaseEntries(pool.id, self._purchases)
        self.read = 0
        """Plays read that hold a position in the pool (at or above 0)."""

    def _purchases(self, after: int, limit: int) -> Sequence[AuditEntry]:
        with self._factory() as uow:  # a unit of work a batch
            return uow.audit.entries_of(AuditKind.PURCHASE.value, after, limit)

    def chunks(self) -> Iterator[RecordChunk]:
        """The sold plays to regenerate, a chunk at a time, by position."""
        dealt = self._pool.dealt
        items: list[SoldItem] = []
        after = -1
        while True:
            with self._factory() as uow:  # a unit of work a batch
                batch = uow.plays.records_from(self._pool.id, after, BATCH)
            if not batch:
                break
            after = batch[-1].position
            self.read += len(batch)
            for sold in batch:
                if sold.position >= dealt:
                    self._add(
                        sold.position,
                        sold.play_number,
                        f"it holds position {sold.position:,}, but only {dealt:,} were dealt",
                    )
                    continue
                while self._dealer.position < sold.position:
                    self._missing()
                items.append(self._item(sold))
                if len(items) == CHUNK:
                    yield RecordChunk(self._secret, tuple(items))
                    items = []
        if items:
            yield RecordChunk(self._secret, tuple(items))
        while self._dealer.position < dealt:
            self._missing()
        for entry in self._entries.stray():
            self._stray(entry)

    def _item(self, sold: SoldRecord) -> SoldItem:
        """Deal ``sold``'s position, check its tier and purchase entry; what a worker compares."""
        category = self._dealer.deal()
        where = (sold.position, sold.play_number)
        problem = tier_problem(
            SoldPlay(sold.position, sold.play_number, sold.tier_index, sold.prize_pence),
            outcome_of(category),
        )
        if problem is not None:
            self._add(*where, f"it {problem}")
        entries = self._entries.take(sold.position)
        entry = next((e for e in entries if e.play_number == sold.play_number), None)
        if not entries:
            self._add(*where, "no purchase entry of the audit log names its position")
        elif entry is None:
            self._add(
                *where,
                f"its position's purchase entry (audit entry {entries[0].seq}) names play"
                f" {entries[0].play_number}",
            )
        if len(entries) > 1:
            seqs = ", ".join(str(e.seq) for e in entries)
            self._add(*where, f"{len(entries)} purchase entries name its position ({seqs})")
        audited = entry or (entries[0] if entries else None)
        digest = None if audited is None else audited.record_sha256
        if audited is not None and digest is None:
            self._add(
                *where, f"its purchase entry (audit entry {audited.seq}) has no record SHA-256"
            )
        return SoldItem(sold.position, category, sold.play_number, sold.record, digest)

    def _missing(self) -> None:
        """No play holds the next position: deal it, and tell any purchase entry naming it."""
        position = self._dealer.position
        self._dealer.deal()
        named = ", ".join(
            f"audit entry {e.seq} names play {e.play_number}" for e in self._entries.take(position)
        )
        self._add(position, None, "no play holds it" + (f" ({named})" if named else ""))

    def _stray(self, entry: PurchaseEntry) -> None:
        """A purchase entry of the pool that no sold position took."""
        if entry.position is None:
            why = "names no position"
        elif 0 <= entry.position < self._pool.dealt:
            why = (
                f"names position {entry.position:,} after the purchase entries of later positions"
                " (out of sale order, or a second entry for it)"
            )
        else:
            why = f"names a position beyond the {self._pool.dealt:,} dealt"
        self._add(
            entry.position, entry.play_number, f"its purchase entry (audit entry {entry.seq}) {why}"
        )

    def _add(self, position: int | None, play_number: str | None, problem: str) -> None:
        self._audit.add(Mismatch(position, play_number, problem))
