"""How a tier's Main Game is drawn: natural play conditioned on the tier's Main Game part.

A tier's Main Game part is a union of disjoint ``MainTarget``s (``outcome.targets_for``). Three
methods draw natural play conditioned on it; each tier uses the cheapest exact one whose expected
cost is within ``EXACT_BUDGET``, and the independence chain otherwise:

- ``NATURAL``: natural Main Games until one comes to the tier (rejection; exact). A simulation
  stops as soon as it can no longer come to the tier.
- ``CELLS``: rejection from natural play *restricted to cells* that cover the tier and whose
  chances are known exactly: ``level L`` (L = 1, 2, 3: natural play conditioned on ending on
  level L, ``booster_level``), ``level 0 with a Bonus Game`` (the same, conditioned on ending on
  level 0 after at least one Bonus Game) and ``no Bonus Game, target T`` (``without_bonus``,
  already conditioned on T). The cells are disjoint; a cell is drawn in proportion to its chance
  and a Main Game from it, kept if it comes to the tier. Natural play restricted to the union of
  the cells has density ``natural / (sum of the cells' chances)`` everywhere on the tier, so a
  kept Main Game is exactly natural play conditioned on the tier.
- ``CHAIN``: the independence Metropolis chain of ``conditioned.py`` (an approximation with the
  natural law as its stationary law), for tiers too rare for both.

Which method a tier uses is decided once a process from fixed-seed estimates of its chance
(``Calibration``), so ``generate`` stays a function of the tier and the random state.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum, unique

from colour_collector.game.booster_level import LevelOdds, LevelWanted
from colour_collector.game.conditioned import ConditionedSampler
from colour_collector.game.config import GameConfig
from colour_collector.game.errors import GameError
from colour_collector.game.natural import GiveUp, MainHaul, simulate_haul_unless
from colour_collector.game.outcome import MainTarget, targets_for
from colour_collector.game.outlook import GamesOutlook, RowsOutlook
from colour_collector.game.prize_table import Tier, load_tiers
from colour_collector.game.sampling import choose_cumulative
from colour_collector.game.without_bonus import WithoutBonus

EXACT_BUDGET = 6e-3
"""Expected seconds a play may take by an exact method before the chain is used instead."""
TRIAL_COST = {"natural": 12e-6, "level": 25e-6, "quiet": 60e-6}
"""Rough seconds one draw of each kind of cell takes (they set the expected cost of a method)."""
CHAIN_HITS = 24
"""Proposals that reach the target in a chain before its state is taken."""
NATURAL_PLAYS = 20_000
"""Natural Main Games simulated to estimate the common targets' chances."""
LEVEL_PLAYS = 2_000
"""Main Games drawn from each level cell to estimate the chances of the targets in it."""
SEED = 20261203
"""Seed of the estimates, so every process makes the same choices."""
MAX_TRIES = 10_000_000
"""Draws after which a rejection gives up (a bug: every tier is reachable)."""


@unique
class Method(StrEnum):
    """How a tier's Main Game is drawn."""

    NATURAL = "natural"
    """Rejection from natural play (exact)."""
    CELLS = "cells"
    """Rejection from natural play restricted to cells of known chance (exact)."""
    CHAIN = "chain"
    """Independence Metropolis-Hastings chain with twisted proposals (approximate)."""


@dataclass(frozen=True, slots=True)
class Cell:
    """A part of natural play with a known chance and an exact sampler."""

    name: str
    """What the cell is, e.g. ``'level 1'`` or ``'no Bonus Game, circle at level 0'``."""
    chance: float
    """The chance that a natural Main Game is in the cell."""
    draw: Callable[[random.Random, GiveUp | None], MainHaul | None]
    """A natural Main Game conditioned on the cell (None if ``give_up`` stopped it)."""
    cost: float
    """Rough seconds a draw takes."""


class MainGameSampler:
    """Draws a tier's Main Game as natural play conditioned on the tier's Main Game part."""

    def __init__(
        self,
        config: GameConfig,
        targets: tuple[MainTarget, ...],
        method: Method,
        cells: Sequence[Cell] = (),
        chain: ConditionedSampler | None = None,
        acceptance: float = 1.0,
    ) -> None:
        self.cfg = config
        self.targets = targets
        """The tier's targets."""
        self.method = method
        """How the Main Game is drawn."""
        self.cells = tuple(cells)
        """The cells drawn from (``CELLS``)."""
        self.chain = chain
        """The chain (``CHAIN``)."""
        self.acceptance = acceptance
        """Estimated share of draws kept (rejection methods)."""
        self._cumulative = []
        total = 0.0
        for cell in self.cells:
            total += cell.chance
            self._cumulative.append(total)
        self._give_up = _hopeless(config, targets)

    def sample(self, rng: random.Random) -> MainHaul:
        """One Main Game of the tier."""
        cfg, targets = self.cfg, self.targets
        if self.chain is not None:
            return self.chain.sample(rng, CHAIN_HITS)
        for _ in range(MAX_TRIES):
            if self.method is Method.NATURAL:
                haul = simulate_haul_unless(cfg, rng, self._give_up)
            else:
                cell = self.cells[choose_cumulative(rng, self._cumulative)]
                haul = cell.draw(rng, self._give_up)
            if haul is not None and any(t.reached_by(haul, cfg) for t in targets):
                return haul
        raise GameError(f"no Main Game came to {targets!r} in {MAX_TRIES} draws")


def _hopeless(config: GameConfig, targets: Sequence[MainTarget]) -> GiveUp:
    """When a Main Game can no longer come to any of ``targets``: a row none of them has is
    complete, an unwanted Prize Game is unlocked, or more levels than any of them can use."""
    boxes = [row.boxes for row in config.prize_table]
    rows = frozenset().union(*(t.rows for t in targets))
    watched = [(r, boxes[r]) for r in range(config.shapes) if r not in rows]
    unlock_ok = any(t.unlocked for t in targets)
    capped = any(t.level is None or t.level >= config.max_level or not t.rows for t in targets)
    top = max((t.level or 0) for t in targets)

    def give_up(filled: list[int], boosts: int, unlocked: bool) -> bool:
        if unlocked and not unlock_ok:
            return True
        if boosts > top and not capped:
            return True
        for row, full in watched:  # noqa: SIM110 - a plain loop is faster; runs every spin
            if filled[row] >= full:
                return True
        return False

    return give_up


class Calibration:
    """Fixed-seed estimates of every target's natural chance, and the cells, for one config."""

    def __init__(self, config: GameConfig) -> None:
        self.cfg = config
        self._natural: Counter[MainTarget] | None = None
        self._levels: dict[LevelWanted, tuple[LevelOdds, Counter[MainTarget]]] = {}
        self._quiet: dict[MainTarget, WithoutBonus] = {}
        self._outlooks: tuple[GamesOutlook, RowsOutlook] | None = None

    def _all_targets(self) -> set[MainTarget]:
        found = set(targets_for(None, self.cfg))
        for tier in load_tiers():
            found.update(targets_for(tier, self.cfg))
        return found

    def _tally(self, hauls: Sequence[MainHaul]) -> Counter[MainTarget]:
        targets = self._all_targets()
        counts: Counter[MainTarget] = Counter()
        for haul in hauls:
            for target in targets:
                if target.reached_by(haul, self.cfg):
                    counts[target] += 1
        return counts

    def natural_chance(self, target: MainTarget) -> float:
        """Estimated chance that a natural Main Game comes to ``target``."""
        if self._natural is None:
            rng = random.Random(SEED)
            hauls = []
            for _ in range(NATURAL_PLAYS):
                haul = simulate_haul_unless(self.cfg, rng, None)
                if haul is not None:
                    hauls.append(haul)
            self._natural = self._tally(hauls)
        return self._natural[target] / NATURAL_PLAYS

    def level(self, wanted: LevelWanted) -> tuple[LevelOdds, Counter[MainTarget]]:
        """The level cell ``wanted`` and how many of LEVEL_PLAYS draws from it came to each
        target."""
        held = self._levels.get(wanted)
        if held is None:
            odds = LevelOdds(self.cfg, wanted)
            rng = random.Random(SEED)
            hauls = [odds.sample(rng) for _ in range(LEVEL_PLAYS)]
            held = self._levels[wanted] = (odds, self._tally([h for h in hauls if h]))
        return held

    def quiet(self, target: MainTarget) -> WithoutBonus:
        """The no-Bonus-Game cell of ``target``."""
        held = self._quiet.get(target)
        if held is None:
            held = self._quiet[target] = WithoutBonus(self.cfg, target)
        return held

    def outlooks(self) -> tuple[GamesOutlook, RowsOutlook]:
        """The outlook tables the chain twists with."""
        if self._outlooks is None:
            self._outlooks = (GamesOutlook(self.cfg), RowsOutlook(self.cfg))
        return self._outlooks

    # -- choosing a method ---------------------------------------------------------------------

    def cells_for(self, targets: Sequence[MainTarget]) -> tuple[list[Cell], float] | None:
        """Disjoint cells covering ``targets``, and the estimated chance of the targets; None if
        some target has no cells (no rows: any level; the top row: any level)."""
        cfg = self.cfg
        cells: dict[str, Cell] = {}
        reached = 0.0
        for target in targets:
            if target.level is None:
                return None
            if target.level >= 1:
                wanted = LevelWanted.level(target.level, cfg)
                odds, counts = self.level(wanted)
                cells.setdefault(
                    f"level {target.level}",
                    Cell(f"level {target.level}", odds.chance, _draw_level(odds), TRIAL_COST["level"]),
                )
                reached += odds.chance * counts[target] / LEVEL_PLAYS
            else:
                quiet = self.quiet(target)
                name = f"no Bonus Game, {target.label(cfg)}"
                if quiet.chance > 0:
                    cells[name] = Cell(name, quiet.chance, _draw_quiet(quiet), TRIAL_COST["quiet"])
                wanted = LevelWanted.level(0, cfg)
                odds, counts = self.level(wanted)
                cells.setdefault(
                    "level 0 with a Bonus Game",
                    Cell("level 0 with a Bonus Game", odds.chance, _draw_level(odds), TRIAL_COST["level"]),
                )
                reached += quiet.chance + odds.chance * counts[target] / LEVEL_PLAYS
        return list(cells.values()), reached

    def sampler(self, tier: Tier | None) -> MainGameSampler:
        """The sampler of ``tier``'s Main Game (None: no win), with the cheapest exact method
        within EXACT_BUDGET, or the chain."""
        cfg = self.cfg
        targets = targets_for(tier, cfg)
        natural = sum(self.natural_chance(t) for t in targets)
        best: tuple[float, MainGameSampler] | None = None
        if natural > 0:
            cost = TRIAL_COST["natural"] / natural
            best = (cost, MainGameSampler(cfg, targets, Method.NATURAL, acceptance=natural))
        if best is None or best[0] > EXACT_BUDGET / 10:
            covered = self.cells_for(targets)
            if covered is not None:
                cells, reached = covered
                mass = sum(c.chance for c in cells)
                if reached > 0:
                    trial = sum(c.chance * c.cost for c in cells) / mass
                    cost = trial * mass / reached
                    if best is None or cost < best[0]:
                        sampler = MainGameSampler(cfg, targets, Method.CELLS, cells, acceptance=reached / mass)
                        best = (cost, sampler)
        if best is not None and best[0] <= EXACT_BUDGET:
            return best[1]
        return self._chain(targets)

    def _chain(self, targets: tuple[MainTarget, ...]) -> MainGameSampler:
        games, rows = self.outlooks()
        mix = [max(self._estimate(t), 1e-9) for t in targets]
        chain = ConditionedSampler(self.cfg, targets, mix, games, rows)
        return MainGameSampler(self.cfg, targets, Method.CHAIN, chain=chain)

    def _estimate(self, target: MainTarget) -> float:
        """The best cheap estimate of a target's chance (for the chain's mix)."""
        covered = self.cells_for((target,))
        if covered is not None:
            return covered[1]
        return self.natural_chance(target)


def _draw_level(odds: LevelOdds) -> Callable[[random.Random, GiveUp | None], MainHaul | None]:
    def draw(rng: random.Random, give_up: GiveUp | None) -> MainHaul | None:
        if give_up is None:
            return odds.sample(rng)
        return odds.sample(rng, lambda filled, unlocked: give_up(filled, 0, unlocked))

    return draw


def _draw_quiet(quiet: WithoutBonus) -> Callable[[random.Random, GiveUp | None], MainHaul | None]:
    def draw(rng: random.Random, give_up: GiveUp | None) -> MainHaul | None:
        return quiet.sample(rng)

    return draw
