"""Certifying a pool: every play regenerated from the secret, replayed through the rules, counted.

The outcomes are dealt in order first (``pool_deal.categories``, one byte a position, cheap and
sequential); the positions are then cut into chunks that are regenerated and replayed
independently, in this process, in local worker processes or on a Dask cluster, and their
tallies add up in any order. A play is **invalid** when it cannot be generated, breaks a rule, or
replays to another outcome than the one dealt to its position.

Each chunk also reports the SHA-256 of its plays (over each record's SHA-256, in position order)
and the versions of the process that made them, so that plays made on other machines are known
to come from the same generator; ``Certificate.plays_sha256`` chains the chunks in position order,
so the same pool gives the same digest on any engine.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from colour_collector.game import codec, simulation
from colour_collector.game.errors import GameError
from colour_collector.game.generator import generate
from colour_collector.game.pool_deal import outcome_of, play_rng
from colour_collector.game.pool_parameters import PoolParameters
from colour_collector.game.prize_table import load_tiers
from colour_collector.game.replay import replay
from colour_collector.game.simulation import name_of
from colour_collector.game.versions import Versions, current_versions

CHUNK = 5_000
"""Positions in a chunk of work."""
MAX_EXAMPLES = simulation.MAX_EXAMPLES
"""Invalid plays described, at most."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """Positions ``start .. start + len(categories) - 1`` of a pool, and what was dealt to each."""

    secret: bytes
    """The pool's secret."""
    start: int
    """The first position."""
    categories: bytes
    """The category dealt to each position (``pool_deal``'s numbering)."""

    def __repr__(self) -> str:
        """The chunk without the secret."""
        return f"Chunk(start={self.start!r}, plays={len(self.categories)!r})"


@dataclass(kw_only=True)
class Tally(simulation.Tally):
    """What some positions of a pool came to when regenerated and replayed (the counts of a
    simulation's tally, and where they start, their digest and the versions)."""

    start: int
    """The first position counted."""
    plays_sha256: str = ""
    """SHA-256 over each play's record SHA-256, in position order."""
    versions: Versions | None = None
    """The versions of the process that regenerated the plays."""


def verify_chunk(chunk: Chunk) -> Tally:
    """Regenerate, replay and count the plays of ``chunk`` (runs in a worker)."""
    tally = Tally(start=chunk.start, plays=len(chunk.categories), versions=current_versions())
    digest = hashlib.sha256()
    secret = chunk.secret
    for offset, category in enumerate(chunk.categories):
        position = chunk.start + offset
        tier = outcome_of(category)
        try:
            record = generate(tier, play_rng(secret, position))
            digest.update(hashlib.sha256(codec.dumps(record).encode("utf-8")).digest())
            result = replay(record)
        except GameError as error:
            tally.refuse(f"position {position}: {error}")
            continue
        if result.tier != tier:
            tally.refuse(
                f"position {position}: dealt {name_of(tier)}, replayed {name_of(result.tier)}"
            )
            continue
        tally.count(result)
    tally.plays_sha256 = digest.hexdigest()
    return tally


def chunks(secret: bytes, start: int, dealt: bytes, size: int = CHUNK) -> Iterator[Chunk]:
    """``dealt`` (the categories of positions from ``start`` on) cut into chunks of ``size``."""
    for offset in range(0, len(dealt), size):
        yield Chunk(secret, start + offset, dealt[offset : offset + size])


@dataclass
class Certificate:
    """The tallies of positions ``start .. stop - 1`` of a pool, added up."""

    parameters: PoolParameters
    """The pool's parameters."""
    start: int
    """The first position."""
    stop: int
    """One past the last position."""
    dealt: list[int]
    """How many plays of each category the deal gave these positions."""
    tallies: list[Tally] = field(default_factory=list)
    """The chunks' tallies, as they came."""

    @property
    def whole(self) -> bool:
        """Whether every position of the pool is covered."""
        return self.start == 0 and self.stop == self.parameters.size

    def add(self, tally: Tally) -> None:
        """Count one chunk."""
        self.tallies.append(tally)

    @property
    def plays(self) -> int:
        """Positions counted so far."""
        return sum(t.plays for t in self.tallies)

    @property
    def observed(self) -> list[int]:
        """Replayed plays of each category."""
        total = [0] * len(self.dealt)
        for tally in self.tallies:
            total = [a + b for a, b in zip(total, tally.observed, strict=True)]
        return total

    @property
    def invalid(self) -> int:
        """Invalid plays."""
        return sum(t.invalid for t in self.tallies)

    @property
    def prize_pence(self) -> int:
        """Prize money of the valid plays."""
        return sum(t.prize_pence for t in self.tallies)

    @property
    def examples(self) -> list[str]:
        """The first invalid plays, in position order."""
        ordered = sorted(self.tallies, key=lambda t: t.start)
        return [e for t in ordered for e in t.examples][:MAX_EXAMPLES]

    @property
    def plays_sha256(self) -> str:
        """SHA-256 over the chunks' digests in position order."""
        digest = hashlib.sha256()
        for tally in sorted(self.tallies, key=lambda t: t.start):
            digest.update(bytes.fromhex(tally.plays_sha256))
        return digest.hexdigest()

    def problems(self) -> list[str]:
        """Everything that fails the certification; empty if it passes."""
        found: list[str] = []
        if self.plays != self.stop - self.start:
            found.append(f"{self.plays:,} of {self.stop - self.start:,} positions were counted")
        if self.invalid:
            found.append(f"{self.invalid:,} invalid plays: " + "; ".join(self.examples))
        names = [*(t.name for t in load_tiers()), "no win"]
        expected = list(self.parameters.start) if self.whole else self.dealt
        against = "the prize structure" if self.whole else "the deal"
        for name, want, got in zip(names, expected, self.observed, strict=True):
            if want != got and not self.invalid:
                found.append(f"{name!r}: {got:,} plays, {against} has {want:,}")
        if self.whole and self.dealt != list(self.parameters.start):
            found.append("the deal did not give every tier its count (a bug in the deal)")
        versions = {t.versions for t in self.tallies}
        for other in versions - {self.parameters.versions}:
            if other is not None and other.differences(self.parameters.versions):
                found.append(
                    "a worker runs another version of the game: "
                    + "; ".join(other.differences(self.parameters.versions))
                )
        return found
