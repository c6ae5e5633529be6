"""The simulate engine: draw outcomes, generate a play for each, replay it, tally what it won.

``simulate(plays, seed, workers)`` draws ``plays`` outcomes with ``IndependentDraw`` over the
checked-in pool, builds each play with the generator, replays it through the rules and counts:

- the replayed outcome of every play (per tier, and no win);
- the prize money, so payout and hit rate can be compared with the published 73.50% and 1 in 2.77;
- invalid plays: a play the generator could not build, that breaks a rule, or whose replayed tier
  differs from the drawn one. There must be none.

The work is cut into blocks of ``BLOCK`` plays; block ``b`` gets its own ``random.Random`` seeded
from ``(seed, b)`` by SHA-256. Tallies add up in any order, so a report depends only on
``(plays, seed)``: the same with 1 worker or 8. Workers are ``multiprocessing`` processes (spawned,
so nothing but the arguments is shared).

Floats appear only in the statistics of the report (chi-square); counts and money are exact.
The chi-square p-value needs scipy, imported only when asked for; the game core never needs it.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import random
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from colour_collector.game.config import Pence, load_config
from colour_collector.game.draw import NO_WIN, IndependentDraw
from colour_collector.game.errors import GameError
from colour_collector.game.generator import generate
from colour_collector.game.pool import PrizePool, load_pool
from colour_collector.game.prize_table import Tier, load_tiers
from colour_collector.game.replay import Result, replay

BLOCK = 2_000
"""Plays per block of work: the unit of seeding, of work sent to a worker and of progress."""
MIN_EXPECTED = 5
"""Smallest expected count of a chi-square bin; rarer tiers are grouped."""
MAX_EXAMPLES = 5
"""Invalid plays described in a report, at most."""
MAX_PLAYS = 1_000_000_000
"""The most plays one run takes: its blocks are listed up front (half a million at most)."""

ProgressCallback = Callable[[int], None]
"""Called with the number of plays finished so far."""


def block_seed(seed: int, block: int) -> int:
    """The seed of block ``block`` of a simulation seeded with ``seed`` (SHA-256, 256 bits)."""
    digest = hashlib.sha256(f"colour-collector simulate {seed} {block}".encode()).digest()
    return int.from_bytes(digest, "big")


@dataclass
class Tally:
    """What a number of simulated plays came to."""

    plays: int = 0
    """Plays simulated."""
    observed: list[int] = field(default_factory=lambda: [0] * (len(load_tiers()) + 1))
    """Plays whose replayed outcome is each tier, in tier order; the last entry is no win."""
    prize_pence: Pence = 0
    """Prize money of every valid play."""
    prize_squares: int = 0
    """Sum of the squared prizes (pence squared), for the payout's standard error."""
    invalid: int = 0
    """Plays that could not be built, broke a rule or replayed to another tier than drawn."""
    examples: list[str] = field(default_factory=list)
    """Descriptions of the first invalid plays."""

    def add(self, other: Tally) -> None:
        """Add ``other``'s counts to this tally."""
        self.plays += other.plays
        self.observed = [a + b for a, b in zip(self.observed, other.observed, strict=True)]
        self.prize_pence += other.prize_pence
        self.prize_squares += other.prize_squares
        self.invalid += other.invalid
        self.examples.extend(other.examples[: MAX_EXAMPLES - len(self.examples)])

    def refuse(self, description: str) -> None:
        """Count an invalid play; describe it if it is among the first few."""
        self.invalid += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(description)

    def count(self, result: Result) -> None:
        """Count a valid play's replayed outcome and prize."""
        self.observed[-1 if result.tier is None else result.tier.index] += 1
        self.prize_pence += result.prize
        self.prize_squares += result.prize * result.prize


def name_of(tier: Tier | None) -> str:
    """A tier as the invalid plays' descriptions name it."""
    return "no win" if tier is None else repr(tier.name)


def run_block(task: tuple[int, int, int]) -> Tally:
    """Simulate one block: ``(seed, block index, plays)``. Runs in a worker process."""
    seed, block, plays = task
    rng = random.Random(block_seed(seed, block))
    config = load_config()
    draw = IndependentDraw(load_pool())
    tiers = load_tiers()
    tally = Tally(plays=plays)
    for number in range(plays):
        index = draw.draw_index(rng)
        tier = None if index == NO_WIN else tiers[index]
        try:
            result = replay(generate(tier, rng, config), config)
        except GameError as error:
            drawn = "no win" if tier is None else tier.name
            tally.refuse(f"block {block} play {number} ({drawn}): {error}")
            continue
        if result.tier != tier:
            drew, got = name_of(tier), name_of(result.tier)
            tally.refuse(f"block {block} play {number}: drew {drew}, replayed {got}")
            continue
        tally.count(result)
    return tally


def blocks(plays: int, seed: int) -> list[tuple[int, int, int]]:
    """The blocks of a simulation: ``(seed, block index, plays in the block)``."""
    return [(seed, b, min(BLOCK, plays - start)) for b, start in enumerate(range(0, plays, BLOCK))]


def run(
    plays: int,
    seed: int,
    workers: int = 1,
    progress: ProgressCallback | None = None,
    start: Callable[[], object] | None = None,
) -> Tally:
    """Simulate ``plays`` plays from ``seed`` on ``workers`` processes; the total tally.

    ``start`` (a module-level function) runs first in each worker process: the command line's
    ``generator_cache.warm``, which loads the generator's tables rather than work them out."""
    if plays < 0:
        raise ValueError(f"plays must be >= 0, not {plays!r}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, not {workers!r}")
    total = Tally()
    for tally in _tallies(blocks(plays, seed), workers, start):
        total.add(tally)
        if progress is not None:
            progress(total.plays)
    return total


def _tallies(
    tasks: list[tuple[int, int, int]], workers: int, start: Callable[[], object] | None
) -> Iterator[Tally]:
    if workers == 1 or len(tasks) <= 1:
        yield from map(run_block, tasks)
        return
    context = multiprocessing.get_context("spawn")
    with context.Pool(min(workers, len(tasks)), initializer=start) as pool:
        yield from pool.imap_unordered(run_block, tasks)


def secure_seed() -> int:
    """A fresh seed from the operating system, for a run without ``--seed``."""
    return secrets.randbits(64)


# -- the report ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bin:
    """One bin of the chi-square test: a tier, no win, or a group of rare tiers."""

    name: str
    """What the bin holds."""
    expected: Fraction
    """Expected plays in the bin."""
    observed: int
    """Plays observed in the bin."""


@dataclass(frozen=True, slots=True)
class Pooling:
    """The bins of a chi-square over outcomes, and how they were formed."""

    bins: list[Bin]
    """The bins the statistic is worked out over."""
    alone: list[Bin]
    """Outcomes expected ``MIN_EXPECTED`` times or more, a bin each (one may be in ``joined``)."""
    pooled: list[Bin]
    """Outcomes expected fewer times, pooled into one bin."""
    joined: Bin | None
    """The smallest of ``alone``, added to the pooled bin when that alone expects too few."""


def pool_bins(outcomes: Sequence[Bin]) -> Pooling:
    """``outcomes`` binned so each bin expects ``MIN_EXPECTED`` or more where their total allows
    it: the outcomes expected that often a bin each, the rarer ones one bin; if that one expects
    fewer, the smallest of the others joins it. (The simulation's check and the pool report's.)"""
    alone = [b for b in outcomes if b.expected >= MIN_EXPECTED]
    pooled = [b for b in outcomes if b.expected < MIN_EXPECTED]
    bins = list(alone)
    joined = None
    if pooled:
        group = Bin(
            f"{len(pooled)} rarer outcomes",
            sum((b.expected for b in pooled), Fraction(0)),
            sum(b.observed for b in pooled),
        )
        if group.expected < MIN_EXPECTED and bins:
            joined = min(bins, key=lambda b: b.expected)
            bins.remove(joined)
            group = Bin(
                f"{group.name} and {joined.name}",
                group.expected + joined.expected,
                group.observed + joined.observed,
            )
        bins.append(group)
    return Pooling(bins, alone, pooled, joined)


def chi_square_bins(tally: Tally, pool: PrizePool) -> list[Bin]:
    """The bins of the tally's outcomes against the pool's proportions (``pool_bins``)."""
    counts = (*pool.counts, pool.no_win_count)
    names = (*(t.name for t in load_tiers()), "no win")
    outcomes = [
        Bin(name, Fraction(tally.plays * count, pool.size), observed)
        for name, count, observed in zip(names, counts, tally.observed, strict=True)
    ]
    return pool_bins(outcomes).bins


def chi_square(bins: list[Bin]) -> tuple[float, int]:
    """The chi-square statistic of ``bins`` and its degrees of freedom."""
    statistic = sum(
        (float((b.observed - b.expected) ** 2 / b.expected) for b in bins if b.expected), 0.0
    )
    return statistic, max(0, len(bins) - 1)


def chi_square_pvalue(statistic: float, dof: int) -> float | None:
    """P(chi-square with ``dof`` degrees of freedom >= ``statistic``); None without scipy."""
    if dof < 1:
        return None
    try:
        from scipy.stats import chi2  # noqa: PLC0415  (lazy: the core imports without scipy)
    except ImportError:
        return None
    return float(chi2.sf(statistic, dof))


def report(tally: Tally, seed: int, workers: int, seconds: float | None) -> dict[str, object]:
    """The JSON object ``simulate --json`` prints."""
    pool = load_pool()
    price = load_config().price
    bins = chi_square_bins(tally, pool) if tally.plays else []
    statistic, dof = chi_square(bins)
    winners = tally.plays - tally.invalid - tally.observed[-1]
    valid = tally.plays - tally.invalid
    payout = Fraction(tally.prize_pence, valid * price) if valid else Fraction(0)
    hit_rate = Fraction(winners, valid) if valid else Fraction(0)
    standard_error = None
    if tally.plays:
        # From the pool's own prize variance (the £1,000,000 dominates it), not the sample's.
        prizes = [t.prize_pence for t in pool.tiers]
        mean = Fraction(pool.total_prize_pence, pool.size)
        square = Fraction(
            sum(c * p * p for c, p in zip(pool.counts, prizes, strict=True)), pool.size
        )
        standard_error = float((square - mean * mean) / tally.plays) ** 0.5 / price * 100
    return {
        "plays": tally.plays,
        "seed": seed,
        "workers": workers,
        "invalid": tally.invalid,
        "invalid_examples": tally.examples,
        "prize_pence": tally.prize_pence,
        "payout_percent": float(payout * 100),
        "payout_standard_error_percent": standard_error,
        "expected_payout_percent": float(pool.payout * 100),
        "winners": winners,
        "hit_rate": float(hit_rate),
        "odds_1_in": float(1 / hit_rate) if hit_rate else None,
        "expected_hit_rate": float(Fraction(pool.winners, pool.size)),
        "chi2": statistic,
        "chi2_dof": dof,
        "chi2_bins": len(bins),
        "chi2_pvalue": chi_square_pvalue(statistic, dof),
        "no_win": {
            "expected": float(Fraction(tally.plays * pool.no_win_count, pool.size)),
            "observed": tally.observed[-1],
        },
        "tiers": [
            {
                "name": tier.name,
                "expected": float(Fraction(tally.plays * count, pool.size)),
                "observed": observed,
            }
            for tier, count, observed in zip(
                pool.tiers, pool.counts, tally.observed[:-1], strict=True
            )
        ],
        "seconds": seconds,
    }
