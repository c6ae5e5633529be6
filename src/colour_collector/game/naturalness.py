"""The naturalness battery: generated plays against natural plays of the same tier class.

For each *tier class* (tiers grouped by breakdown kind and size, ``CLASSES``) the battery takes a
reference sample of natural plays conditioned on the class and a generated sample with the same
tiers, measures both with ``play_statistics`` (through the rules engine, never through the
generator), and tests every statistic (``sample_comparison``: a z-test for each ratio, a
chi-square test for each category).

The p-values of a whole run are corrected together with Holm's step-down method. Reference plays
come from natural play conditioned on the class (``Reference``):

- ``NATURAL``: natural plays (Main Game and Prize Game) simulated until one lands in the class,
  the exact reference, used whenever the class is common enough;
- ``CELLS``: the same rejection from natural play restricted to the exactly weighed cells of
  ``main_game_sampler`` (level cells with natural other items, no-Bonus-Game cells): exact too,
  for classes too rare to simulate;
- ``WEIGHTED``: the chain's proposals weighted by natural over proposed chance (importance
  sampling, unbiased as the sample grows; the tests use the weights' own variance), for the top
  prize alone.

scipy and numpy are imported only when a test is computed, so importing the game core never loads
them.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum, unique
from typing import Any

from colour_collector.game.booster_level import LevelOdds, LevelWanted
from colour_collector.game.config import GameConfig, Pence, load_config
from colour_collector.game.errors import GameError
from colour_collector.game.generator import calibration, generate, main_sampler
from colour_collector.game.layout import lay_out_main, lay_out_prize
from colour_collector.game.main_game_sampler import Method, hopeless
from colour_collector.game.natural import MainHaul, simulate_haul_unless
from colour_collector.game.outcome import MainTarget, targets_for
from colour_collector.game.play_statistics import Measured, measure
from colour_collector.game.prize_game import PrizeHaul, prize_game_odds, simulate_prize_game
from colour_collector.game.prize_table import Tier, tier_by_name, tier_for_breakdown
from colour_collector.game.record import PlayRecord, Step
from colour_collector.game.sampling import choose_cumulative
from colour_collector.game.skeleton_chain import SkeletonChain

MAX_DRAWS = 50_000_000
"""Draws after which a reference gives up."""


@unique
class Reference(StrEnum):
    """How a class's natural plays are drawn."""

    NATURAL = "natural"
    """Natural plays simulated until one is in the class (exact)."""
    CELLS = "cells"
    """Rejection from natural play restricted to cells of known chance (exact)."""
    WEIGHTED = "weighted"
    """The chain's proposals with their importance weights (unbiased as the sample grows)."""


@dataclass(frozen=True, slots=True)
class TierClass:
    """Tiers compared together."""

    name: str
    """The class's name in reports."""
    tiers: tuple[Tier | None, ...]
    """Its tiers (None: no win)."""
    reference: Reference
    """How its natural plays are drawn."""


def _class(name: str, tier_names: Sequence[str | None], reference: Reference) -> TierClass:
    tiers = tuple(None if t is None else tier_by_name(t) for t in tier_names)
    return TierClass(name, tiers, reference)


_N, _C, _W = Reference.NATURAL, Reference.CELLS, Reference.WEIGHTED

CLASSES: tuple[TierClass, ...] = (
    _class("no win", [None], _N),
    _class("£5", ["£5"], _N),
    _class("£7", ["£7"], _N),
    _class("one row, £6 to £12", ["£6", "£8", "£10", "£12"], _N),
    _class("one row, £15 to £30", ["£15", "£20", "£25", "£30"], _N),
    _class(
        "one row, £50 and up",
        ["£50", "£75", "£100", "£250", "£500", "£750", "£1,000", "£2,000"],
        _C,
    ),
    _class(
        "two rows, £12 to £20",
        [
            "£12 (£5 + £7)",
            "£14 (£6 + £8)",
            "£15 (£5 + £10)",
            "£17 (£7 + £10)",
            "£18 (£8 + £10)",
            "£20 (£8 + £12)",
        ],
        _N,
    ),
    _class(
        "two rows, £25 and up",
        [
            "£25 (£5 + £20)",
            "£25 (£10 + £15)",
            "£28 (£8 + £20)",
            "£30 (£10 + £20)",
            "£33 (£8 + £25)",
            "£37 (£12 + £25)",
            "£40 (£10 + £30)",
            "£45 (£15 + £30)",
            "£60 (£10 + £50)",
        ],
        _C,
    ),
    _class(
        "three rows",
        [
            "£22 (£5 + £7 + £10)",
            "£26 (£6 + £8 + £12)",
            "£35 (£5 + £10 + £20)",
            "£45 (£8 + £12 + £25)",
            "£55 (£10 + £15 + £30)",
            "£90 (£10 + £30 + £50)",
            "£150 (£20 + £30 + £100)",
        ],
        _C,
    ),
    _class(
        "Prize Game only, £10 to £20",
        [
            "£10 (£10 Prize Game)",
            "£12 (£12 Prize Game)",
            "£15 (£15 Prize Game)",
            "£20 (£20 Prize Game)",
        ],
        _N,
    ),
    _class(
        "Prize Game only, £25 to £60",
        [
            "£25 (£25 Prize Game)",
            "£30 (£30 Prize Game)",
            "£35 (£35 Prize Game)",
            "£40 (£40 Prize Game)",
            "£45 (£45 Prize Game)",
            "£50 (£50 Prize Game)",
            "£60 (£60 Prize Game)",
        ],
        _N,
    ),
    _class(
        "Prize Game only, £75 and up",
        [
            "£75 (£75 Prize Game)",
            "£100 (£100 Prize Game)",
            "£150 (£150 Prize Game)",
            "£250 (£250 Prize Game)",
            "£500 (£500 Prize Game)",
            "£1,000 (£1,000 Prize Game)",
            "£1,500 (£1,500 Prize Game)",
            "£2,500 (£2,500 Prize Game)",
            "£5,000 (£5,000 Prize Game)",
        ],
        _N,
    ),
    _class(
        "a row and the Prize Game, £15 to £24",
        [
            "£15 (£5 + £10 Prize Game)",
            "£16 (£6 + £10 Prize Game)",
            "£17 (£7 + £10 Prize Game)",
            "£18 (£6 + £12 Prize Game)",
            "£19 (£7 + £12 Prize Game)",
            "£20 (£5 + £15 Prize Game)",
            "£20 (£8 + £12 Prize Game)",
            "£21 (£6 + £15 Prize Game)",
            "£23 (£8 + £15 Prize Game)",
            "£24 (£12 + £12 Prize Game)",
        ],
        _C,
    ),
    _class(
        "a row and the Prize Game, £25 and up",
        [
            "£25 (£5 + £20 Prize Game)",
            "£25 (£10 + £15 Prize Game)",
            "£27 (£7 + £20 Prize Game)",
            "£30 (£10 + £20 Prize Game)",
            "£32 (£12 + £20 Prize Game)",
            "£37 (£12 + £25 Prize Game)",
            "£38 (£8 + £30 Prize Game)",
            "£40 (£15 + £25 Prize Game)",
            "£42 (£12 + £30 Prize Game)",
            "£47 (£12 + £35 Prize Game)",
            "£50 (£5 + £45 Prize Game)",
            "£50 (£15 + £35 Prize Game)",
            "£52 (£12 + £40 Prize Game)",
            "£55 (£10 + £45 Prize Game)",
            "£60 (£10 + £50 Prize Game)",
            "£65 (£15 + £50 Prize Game)",
            "£95 (£20 + £75 Prize Game)",
            "£100 (£25 + £75 Prize Game)",
            "£110 (£50 + £60 Prize Game)",
            "£130 (£30 + £100 Prize Game)",
        ],
        _C,
    ),
    _class(
        "rows and the Prize Game",
        [
            "£70 (£10 + £20 + £40 Prize Game)",
            "£72 (£5 + £7 + £10 + £50 Prize Game)",
            "£80 (£5 + £10 + £20 + £45 Prize Game)",
            "£85 (£10 + £15 + £60 Prize Game)",
            "£115 (£10 + £15 + £30 + £60 Prize Game)",
            "£120 (£15 + £30 + £75 Prize Game)",
            "£125 (£10 + £15 + £100 Prize Game)",
            "£200 (£25 + £75 + £100 Prize Game)",
        ],
        _C,
    ),
    _class("£1,000,000", ["£1,000,000"], _W),
)
"""Every tier class, each tier in exactly one."""


# -- drawing natural plays of a class ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NaturalPlay:
    """A natural play of a class, with its tier and importance weight (1 for exact draws)."""

    record: PlayRecord
    """The play."""
    tier: Tier | None
    """Its tier."""
    weight: float = 1.0
    """Its importance weight."""


def tier_of(haul: MainHaul, prize: Pence, config: GameConfig) -> tuple[bool, Tier | None]:
    """Whether a Main Game and a Prize Game paying ``prize`` come to a tier or to no win, and
    which (None: no win)."""
    rows = haul.completed_rows(config)
    if not rows and not prize:
        return True, None
    level = haul.level(config)
    tier = tier_for_breakdown(tuple(config.row_amount(r, level) for r in rows), prize)
    return tier is not None, tier


def _record(
    haul: MainHaul, prize: PrizeHaul | None, config: GameConfig, rng: random.Random
) -> PlayRecord:
    grid, steps = lay_out_main(haul, config, rng)
    all_steps: list[Step] = list(steps)
    prize_grid = None
    if prize is not None:
        prize_grid, prize_steps = lay_out_prize(prize, config, rng)
        all_steps.extend(prize_steps)
    return PlayRecord(grid, tuple(all_steps), prize_grid)


class _PrizeGames:
    """Natural Prize Games for a class's plays: a Main Game that unlocks the Prize Game is kept
    with chance (the chance that a natural Prize Game pays an amount that puts the play in the
    class) over (the largest such chance of any of the class's Main Game targets), exactly as if
    whole natural plays were drawn and kept when in the class, and its Prize Game is then drawn
    from natural Prize Games until one pays such an amount."""

    def __init__(self, cls: TierClass, config: GameConfig) -> None:
        self.cfg = config
        self.tiers = frozenset(cls.tiers)
        self.odds = prize_game_odds(config)
        self._allowed: dict[tuple[Pence, ...], tuple[frozenset[Pence], float]] = {}
        self.envelope = max(
            (
                self.allowed(tuple(sorted(t.rows)))[1]
                for t in cls.tiers
                if t is not None and t.prize_game
            ),
            default=1.0,
        )

    def allowed(self, rows: tuple[Pence, ...]) -> tuple[frozenset[Pence], float]:
        """The Prize Game amounts that put a play with these row amounts in the class, and the
        chance that a natural Prize Game pays one of them."""
        held = self._allowed.get(rows)
        if held is None:
            amounts = frozenset(
                t.prize_game
                for t in self.tiers
                if t is not None and t.prize_game and t.rows == rows
            )
            chance = sum(sum(self.odds.doubled_chance(a)) for a in amounts)
            held = self._allowed[rows] = (amounts, chance)
        return held

    def finish(
        self, haul: MainHaul, rng: random.Random
    ) -> tuple[PrizeHaul | None, Tier | None] | None:
        """A natural Prize Game for ``haul`` if it has one and the tier, or None if the play is
        not kept."""
        cfg = self.cfg
        if not haul.unlocked:
            found, tier = tier_of(haul, 0, cfg)
            return (None, tier) if found and tier in self.tiers else None
        level = haul.level(cfg)
        rows = tuple(sorted(cfg.row_amount(r, level) for r in haul.completed_rows(cfg)))
        amounts, chance = self.allowed(rows)
        if not amounts or rng.random() * self.envelope >= chance:
            return None
        for _ in range(MAX_DRAWS):
            prize = simulate_prize_game(cfg, rng)
            if prize.pays in amounts:
                tier = tier_for_breakdown(rows, prize.pays)
                return prize, tier
        raise GameError(f"no natural Prize Game paid one of {sorted(amounts)!r}")


def natural_plays(
    cls: TierClass, count: int, rng: random.Random, config: GameConfig | None = None
) -> list[NaturalPlay]:
    """``count`` natural plays conditioned on ``cls`` (``NATURAL``: plain rejection)."""
    cfg = config or load_config()
    prizes = _PrizeGames(cls, cfg)
    targets = _targets(cls, cfg)
    give_up = hopeless(cfg, targets)
    found: list[NaturalPlay] = []
    for _ in range(MAX_DRAWS):
        if len(found) >= count:
            return found
        haul = simulate_haul_unless(cfg, rng, give_up)
        if haul is None or not any(t.reached_by(haul, cfg) for t in targets):
            continue
        done = prizes.finish(haul, rng)
        if done is not None:
            prize, tier = done
            found.append(NaturalPlay(_record(haul, prize, cfg, rng), tier))
    raise GameError(f"only {len(found)} natural plays of {cls.name!r} in {MAX_DRAWS} draws")


def _targets(cls: TierClass, config: GameConfig) -> tuple[MainTarget, ...]:
    found: list[MainTarget] = []
    for tier in cls.tiers:
        for target in targets_for(tier, config):
            if target not in found:
                found.append(target)
    return tuple(found)


def cell_plays(
    cls: TierClass, count: int, rng: random.Random, config: GameConfig | None = None
) -> list[NaturalPlay]:
    """``count`` natural plays conditioned on ``cls`` (``CELLS``): rejection from natural play
    restricted to cells covering the class's Main Games, each drawn with its chance: level cells
    (natural other items) and no-Bonus-Game cells conditioned on one target each."""
    cfg = config or load_config()
    calib = calibration(cfg)
    prizes = _PrizeGames(cls, cfg)
    targets = _targets(cls, cfg)
    cells: list[tuple[float, Any]] = []
    levels: set[LevelWanted] = set()
    for target in targets:
        if target.level is None or target.level == 0:
            quiet = calib.quiet(target)
            if quiet.chance > 0:
                cells.append((quiet.chance, quiet))
        for placed in (False, True):
            if target.level is None:
                levels.add(LevelWanted.any_level(placed))
            else:
                levels.add(LevelWanted.level(target.level, cfg, placed))
    if LevelWanted.any_level(False) in levels:
        levels = {LevelWanted.any_level(False), LevelWanted.any_level(True)}
    for wanted in sorted(levels, key=lambda w: (sorted(w.boosts), bool(w.placed))):
        odds: LevelOdds = calib.odds(wanted)
        cells.append((odds.chance, odds))
    cumulative = []
    running = 0.0
    for chance, _ in cells:
        running += chance
        cumulative.append(running)
    give_up = hopeless(cfg, targets)
    found: list[NaturalPlay] = []
    for _ in range(MAX_DRAWS):
        if len(found) >= count:
            return found
        _, cell = cells[choose_cumulative(rng, cumulative)]
        if isinstance(cell, LevelOdds):
            haul = cell.sample(rng, lambda filled, unlocked: give_up(filled, 0, unlocked))
        else:
            haul = cell.sample(rng)
        if haul is None or not any(t.reached_by(haul, cfg) for t in targets):
            continue
        done = prizes.finish(haul, rng)
        if done is not None:
            prize, tier = done
            found.append(NaturalPlay(_record(haul, prize, cfg, rng), tier))
    raise GameError(f"only {len(found)} cell plays of {cls.name!r} in {MAX_DRAWS} draws")


def weighted_plays(
    cls: TierClass, count: int, rng: random.Random, config: GameConfig | None = None
) -> list[NaturalPlay]:
    """``count`` proposals of the class's single tier's chain that reach it, each with its
    importance weight (natural over proposed chance, up to a constant)."""
    cfg = config or load_config()
    if len(cls.tiers) != 1 or cls.tiers[0] is None:
        raise ValueError(f"a weighted reference needs a class of one tier, not {cls.name!r}")
    tier = cls.tiers[0]
    sampler = main_sampler(tier, cfg)
    if sampler.method is not Method.CHAIN:
        raise ValueError(f"{tier.name!r} is not drawn by a chain")
    chain = SkeletonChain(cfg, sampler.targets, sampler.cells)
    found: list[NaturalPlay] = []
    for _ in range(MAX_DRAWS):
        if len(found) >= count:
            return found
        state, weight = chain.proposal(rng)
        if weight <= 0:
            continue
        if state is None:
            continue
        haul = state if isinstance(state, MainHaul) else state.fill(rng)
        prize = prize_game_odds(cfg).sample(tier.prize_game, rng) if haul.unlocked else None
        found.append(NaturalPlay(_record(haul, prize, cfg, rng), tier, weight))
    raise GameError(f"only {len(found)} weighted plays of {cls.name!r}")


def reference_plays(
    cls: TierClass, count: int, rng: random.Random, config: GameConfig | None = None
) -> list[NaturalPlay]:
    """The class's reference sample, drawn as its ``reference`` says."""
    draw = {
        Reference.NATURAL: natural_plays,
        Reference.CELLS: cell_plays,
        Reference.WEIGHTED: weighted_plays,
    }[cls.reference]
    return draw(cls, count, rng, config)


def generated_plays(
    tiers: Iterable[Tier | None], rng: random.Random, generator: Any = generate
) -> list[PlayRecord]:
    """One generated play for each tier of ``tiers``."""
    return [generator(tier, rng) for tier in tiers]


@dataclass(frozen=True, slots=True)
class ClassRun:
    """One class's samples, measured."""

    tier_class: TierClass
    """The class."""
    generated: list[Measured]
    """The generated plays' statistics."""
    reference: list[tuple[Measured, float]]
    """The natural plays' statistics and weights."""


def run_class(
    cls: TierClass,
    count: int,
    seed: int,
    generator: Any = generate,
    config: GameConfig | None = None,
) -> ClassRun:
    """Draw and measure a class's reference sample (``count`` plays) and a generated sample with
    the same tiers (weighted references: tiers drawn from the weighted mix)."""
    cfg = config or load_config()
    ref_rng = random.Random(seed)
    natural = reference_plays(cls, count, ref_rng, cfg)
    gen_rng = random.Random(seed + 1)
    if cls.reference is Reference.WEIGHTED:
        tiers = [cls.tiers[0]] * count
    else:
        tiers = [play.tier for play in natural]
    generated = [measure(record, cfg) for record in generated_plays(tiers, gen_rng, generator)]
    reference = [(measure(play.record, cfg), play.weight) for play in natural]
    return ClassRun(cls, generated, reference)
