"""How a tier's Main Game is drawn: natural play conditioned on the tier's Main Game part.

A tier's Main Game part is a union of disjoint ``MainTarget``s (``outcome.targets_for``). Natural
play is cut into *cells* whose chances are known exactly and from which natural play can be
drawn exactly:

- ``no Bonus Game, T``: no Bonus Game and target T (``without_bonus``, already conditioned on T);
- ``level L, no Symbols``: ending on level L after at least one Bonus Game, none of which wins a
  SYMBOLS or MORE SYMBOLS prize (``booster_level``); the other items of such a play can be summed
  out (``other_items``), so a draw is a skeleton whose chance of reaching the tier is known;
- ``level L, Symbols``: the same with a Symbols prize won (its other items drawn naturally).

Three methods draw natural play conditioned on the tier; each tier uses the cheapest exact one
whose expected cost is within ``EXACT_BUDGET``, and the chain otherwise:

- ``NATURAL``: natural Main Games until one comes to the tier (rejection; exact). A simulation
  stops as soon as it can no longer come to the tier.
- ``CELLS``: rejection from the cells covering the tier (exact). A cell is drawn with chance in
  proportion to its chance times its *envelope* (the most a draw from it can be worth: 1, or for
  a no-Symbols level cell the largest chance that other items bring the tier about), and a draw
  is kept with chance its worth over the envelope: 1 for a no-Bonus-Game cell, whether it comes
  to the tier for a Symbols cell, the chance its other items bring the tier about for a
  no-Symbols cell (whose other items are then drawn conditioned on that). A kept Main Game is
  exactly natural play conditioned on the tier: on the tier, the proposal's density is
  ``natural x worth / (sum of chance x envelope)``.
- ``CHAIN``: an independence Metropolis-Hastings chain over the same cells (``SkeletonChain``),
  for tiers too rare for both (``skeleton_chain``): an approximation whose stationary law is
  natural play conditioned on the tier.

Which method a tier uses is decided once a process from fixed-seed estimates of the tier's
chance in each cell (``Calibration``), so ``generate`` stays a function of the tier and the
random state.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum, unique

from colour_collector.game.booster_level import LevelOdds, LevelWanted
from colour_collector.game.config import GameConfig
from colour_collector.game.errors import GameError
from colour_collector.game.natural import GiveUp, MainHaul, simulate_haul_unless
from colour_collector.game.other_items import OtherItems
from colour_collector.game.outcome import MainTarget, targets_for
from colour_collector.game.prize_table import Tier, load_tiers
from colour_collector.game.sampling import choose, choose_cumulative
from colour_collector.game.skeleton import Skeleton
from colour_collector.game.skeleton_chain import CHAIN_PROPOSALS, SkeletonChain
from colour_collector.game.without_bonus import WithoutBonus

EXACT_BUDGET = 100e-3
"""Expected seconds a play may take by an exact method before the chain is used instead.

It was 7 ms, and the chain drew about 0.9% of plays; but the chain's weights are heavy-tailed
(one Symbols proposal in 60,000 weighs 1,400 times their mean for £35 (£5 + £10 + £20)), so
after the 56 proposals it then made it under-drew what those rare proposals stand for, and the
share of plays without a Bonus Game it estimated from them was off. Against the exact cells method,
generated £35 (£5 + £10 + £20) plays had no Bonus Game in 70% of plays against natural play's
38% (1,500 plays each), £500 in 78% against 66%, and £33 (£8 + £25) plays won a Symbols prize in 47%
against 68% (600 each): both plain to see. At 100 ms only the rarest tiers (0.007% of plays)
are left to the chain (now of CHAIN_PROPOSALS); the tiers drawn exactly since are slower than
the 50 ms aim. Exact draws' times are geometric, so a larger budget would put some plays over
the purchase floor (1 s); the chain's time barely varies."""
TRIAL_COST = {"natural": 25e-6, "quiet": 35e-6, "summed": 60e-6, "symbols": 160e-6}
"""Rough seconds one draw takes from each kind of cell (measured on the development machine);
they set a method's expected cost."""
CHAIN_COST = 0.3
"""Rough seconds a chain takes for a play (CHAIN_PROPOSALS proposals)."""
EXACT_FIRST = 10e-3
"""Rough seconds of exact draws a too slow tier makes before the chain."""
EXACT_FIRST_SHARE = 0.2
"""The share of plays those draws must be expected to catch for them to be made."""
NATURAL_PLAYS = 20_000
"""Natural Main Games simulated to estimate the common targets' chances."""
CELL_PLAYS = 600
"""Draws from each level cell to estimate the targets' chances in it."""
SEED = 20261203
"""Seed of the estimates, so every process makes the same choices."""
MAX_TRIES = 10_000_000
"""Draws after which a sampler gives up (a bug: every tier is reachable)."""


@unique
class Method(StrEnum):
    """How a tier's Main Game is drawn."""

    NATURAL = "natural"
    """Rejection from natural play (exact)."""
    CELLS = "cells"
    """Rejection from cells of natural play of known chance (exact)."""
    CHAIN = "chain"
    """Independence Metropolis-Hastings chain over the cells (approximate)."""
    CELLS_THEN_CHAIN = "cells, then chain"
    """Up to a fixed number of draws by ``CELLS`` (exact when one is kept), then ``CHAIN``."""


@dataclass(frozen=True, slots=True)
class Cell:
    """A part of natural play of known chance, with the tier's targets in it."""

    name: str
    """What the cell is, e.g. ``'level 1, no Symbols'``."""
    chance: float
    """The chance that a natural Main Game is in the cell."""
    kind: str
    """``'quiet'`` (no Bonus Game, conditioned on its target), ``'summed'`` (a level cell with
    no Symbols: other items summed out) or ``'symbols'`` (a level cell with Symbols)."""
    quiet: WithoutBonus | None = None
    """The sampler of a ``'quiet'`` cell."""
    odds: LevelOdds | None = None
    """The sampler of a level cell."""
    others: tuple[OtherItems, ...] = ()
    """For a ``'summed'`` cell: each target's other items given a skeleton."""
    envelope: float = 1.0
    """The most a draw from the cell can be worth (its chance of coming to the tier)."""
    reaches: float = 0.0
    """Estimated chance that a natural Main Game is in the cell and comes to the tier."""

    def level_odds(self) -> LevelOdds:
        """The sampler of a level cell."""
        if self.odds is None:
            raise GameError(f"cell {self.name!r} has no sampler")
        return self.odds

    def skeleton(self, rng: random.Random) -> tuple[Skeleton, list[float]] | None:
        """A draw from a ``'summed'`` cell: a skeleton, and for each of the cell's targets the
        chance that its other items bring that target about (None: the draw left the cell)."""
        skeleton = self.level_odds().draw(rng, defer=True)
        if skeleton is None:
            return None
        return skeleton, [o.chance(skeleton) for o in self.others]


@dataclass
class MainGameSampler:
    """Draws a tier's Main Game as natural play conditioned on the tier's Main Game part."""

    config: GameConfig
    """The configuration."""
    targets: tuple[MainTarget, ...]
    """The tier's targets."""
    method: Method
    """How the Main Game is drawn."""
    cells: tuple[Cell, ...] = ()
    """The cells drawn from (``CELLS`` and ``CHAIN``)."""
    acceptance: float = 1.0
    """Estimated share of draws kept (rejection methods)."""
    exact_trials: int = 0
    """``CELLS_THEN_CHAIN``: the draws made by the cells method before the chain."""
    _cumulative: list[float] = field(default_factory=list)
    _give_up: GiveUp | None = None
    _chain: SkeletonChain | None = None

    def __post_init__(self) -> None:
        total = 0.0
        for cell in self.cells:
            total += cell.chance * cell.envelope
            self._cumulative.append(total)
        self._give_up = hopeless(self.config, self.targets)
        if self.method in (Method.CHAIN, Method.CELLS_THEN_CHAIN):
            self._chain = SkeletonChain(self.config, self.targets, self.cells)

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["_give_up"] = None  # a closure, which pickle cannot keep: made again on loading
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._give_up = hopeless(self.config, self.targets)

    @property
    def exact_share(self) -> float:
        """Estimated share of plays drawn exactly (1 but for the chain methods)."""
        if self.method is Method.CHAIN:
            return 0.0
        if self.method is Method.CELLS_THEN_CHAIN:
            return 1 - (1 - self.acceptance) ** self.exact_trials
        return 1.0

    def sample(self, rng: random.Random) -> MainHaul:
        """One Main Game of the tier."""
        cfg, targets, give_up = self.config, self.targets, self._give_up
        if self._chain is not None:
            # A draw kept by the cells method is exactly natural play conditioned on the tier,
            # whichever draw it is (the draws are independent); the chain draws the rest.
            for _ in range(self.exact_trials):
                cell = self.cells[choose_cumulative(rng, self._cumulative)]
                kept = _draw_kept(cell, rng, targets, cfg, give_up)
                if kept is not None:
                    return kept
            return self._chain.sample(rng, CHAIN_PROPOSALS)
        for _ in range(MAX_TRIES):
            if self.method is Method.NATURAL:
                haul = simulate_haul_unless(cfg, rng, give_up)
                if haul is not None and any(t.reached_by(haul, cfg) for t in targets):
                    return haul
                continue
            cell = self.cells[choose_cumulative(rng, self._cumulative)]
            kept = _draw_kept(cell, rng, targets, cfg, give_up)
            if kept is not None:
                return kept
        raise GameError(f"no Main Game came to {targets!r} in {MAX_TRIES} draws")


def _draw_kept(
    cell: Cell,
    rng: random.Random,
    targets: tuple[MainTarget, ...],
    config: GameConfig,
    give_up: GiveUp | None,
) -> MainHaul | None:
    """One draw from ``cell``, kept with chance its worth over the cell's envelope (None if not)."""
    if cell.quiet is not None:
        return cell.quiet.sample(rng)
    if cell.kind == "summed":
        drawn = cell.skeleton(rng)
        if drawn is None:
            return None
        skeleton, chances = drawn
        if rng.random() * cell.envelope >= sum(chances):
            return None
        return cell.others[choose(rng, chances)].fill(skeleton, rng)
    stop = None if give_up is None else _level_give_up(give_up)
    haul = cell.level_odds().sample(rng, stop)
    if haul is not None and any(t.reached_by(haul, config) for t in targets):
        return haul
    return None


def _level_give_up(give_up: GiveUp) -> Callable[[list[int], bool], bool]:
    return lambda filled, unlocked: give_up(filled, 0, unlocked)


def hopeless(config: GameConfig, targets: Sequence[MainTarget]) -> GiveUp:
    """When a Main Game can no longer come to any of ``targets``: a row none of them has is
    complete, an unwanted Prize Game is unlocked, or more levels than any of them can use."""
    boxes = [row.boxes for row in config.prize_table]
    rows = frozenset().union(*(t.rows for t in targets))
    watched = [(r, boxes[r]) for r in range(config.shapes) if r not in rows]
    unlock_ok = any(t.unlocked for t in targets)
    capped = any(t.level is None or t.level >= config.max_level or not t.rows for t in targets)
    top = max((t.level or 0) for t in targets)

    def give_up(filled: list[int], boosts: int, unlocked: bool) -> bool:
        if (unlocked and not unlock_ok) or (boosts > top and not capped):
            return True
        for row, full in watched:  # noqa: SIM110 - a plain loop is faster; runs every spin
            if filled[row] >= full:
                return True
        return False

    return give_up


@dataclass
class Draws:
    """What draws from a level cell came to, counted."""

    count: int = 0
    """Draws made."""
    skeletons: Counter[tuple[int, int]] = field(default_factory=Counter)
    """Skeletons with no Symbols placed, by (squares whose other items are to draw, Prize Game
    symbols from Bonus Prizes)."""
    ends: Counter[tuple[frozenset[int], int, bool]] = field(default_factory=Counter)
    """Whole Main Games, by (completed rows, level, Prize Game unlocked)."""


class Calibration:
    """Fixed-seed estimates of the targets' chances and the cells, for one configuration."""

    def __init__(self, config: GameConfig) -> None:
        self.cfg = config
        self._natural: dict[MainTarget, int] | None = None
        self._odds: dict[LevelWanted, LevelOdds] = {}
        self._draws: dict[LevelWanted, Draws] = {}
        self._quiet: dict[MainTarget, WithoutBonus] = {}
        self._others: dict[MainTarget, OtherItems] = {}

    def natural_chance(self, target: MainTarget) -> float:
        """Estimated chance that a natural Main Game comes to ``target``."""
        if self._natural is None:
            targets = set(targets_for(None, self.cfg))
            for tier in load_tiers():
                targets.update(targets_for(tier, self.cfg))
            counts = dict.fromkeys(targets, 0)
            rng = random.Random(SEED)
            for _ in range(NATURAL_PLAYS):
                haul = simulate_haul_unless(self.cfg, rng, None)
                if haul is None:
                    continue
                for t in targets:
                    if t.reached_by(haul, self.cfg):
                        counts[t] += 1
            self._natural = counts
        return self._natural.get(target, 0) / NATURAL_PLAYS

    def odds(self, wanted: LevelWanted) -> LevelOdds:
        """The level cell ``wanted``."""
        held = self._odds.get(wanted)
        if held is None:
            held = self._odds[wanted] = LevelOdds(self.cfg, wanted)
        return held

    def draws(self, wanted: LevelWanted) -> Draws:
        """What CELL_PLAYS draws from the level cell ``wanted`` came to (from a cell with no
        Symbols: skeletons, their other items to draw; otherwise whole Main Games)."""
        held = self._draws.get(wanted)
        if held is None:
            odds = self.odds(wanted)
            rng = random.Random(SEED + 1)
            held = Draws()
            cfg = self.cfg
            for _ in range(CELL_PLAYS):
                held.count += 1
                if wanted.placed is False:
                    skeleton = odds.draw(rng, defer=True)
                    if skeleton is not None:
                        held.skeletons[(skeleton.squares(cfg), skeleton.prize_symbols)] += 1
                else:
                    haul = odds.sample(rng)
                    if haul is not None:
                        rows = frozenset(haul.completed_rows(cfg))
                        held.ends[(rows, haul.level(cfg), haul.unlocked)] += 1
            self._draws[wanted] = held
        return held

    def quiet(self, target: MainTarget) -> WithoutBonus:
        """The no-Bonus-Game cell of ``target``."""
        held = self._quiet.get(target)
        if held is None:
            held = self._quiet[target] = WithoutBonus(self.cfg, target)
        return held

    def others(self, target: MainTarget) -> OtherItems:
        """The other items of ``target``, given a skeleton."""
        held = self._others.get(target)
        if held is None:
            held = self._others[target] = OtherItems(self.cfg, target)
        return held

    def chance_in(self, targets: Sequence[MainTarget], wanted: LevelWanted) -> float:
        """Estimated chance that a draw from the level cell ``wanted`` comes to ``targets``."""
        draws = self.draws(wanted)
        total = 0.0
        for (squares, symbols), count in draws.skeletons.items():
            total += count * sum(self.others(t).chance_for(squares, symbols) for t in targets)
        for (rows, level, unlocked), count in draws.ends.items():
            if any(t.reached(rows, level, unlocked) for t in targets):
                total += count
        return total / max(1, draws.count)

    # -- the cells of a tier -------------------------------------------------------------------

    def cells_for(self, targets: Sequence[MainTarget]) -> list[Cell]:
        """Disjoint cells covering ``targets``."""
        cfg = self.cfg
        cells: list[Cell] = []
        groups: dict[LevelWanted, list[MainTarget]] = {}
        for target in targets:
            if target.level is None or target.level == 0:
                quiet = self.quiet(target)
                if quiet.chance > 0:
                    name = f"no Bonus Game, {target.label(cfg)}"
                    cells.append(
                        Cell(name, quiet.chance, "quiet", quiet=quiet, reaches=quiet.chance)
                    )
            for placed in (False, True):
                if target.level is None:
                    wanted = LevelWanted.any_level(placed)
                else:
                    wanted = LevelWanted.level(target.level, cfg, placed)
                groups.setdefault(wanted, []).append(target)
        for wanted, group in groups.items():
            odds = self.odds(wanted)
            reaches = odds.chance * self.chance_in(group, wanted)
            level = (
                "any level"
                if wanted.boosts == LevelWanted.any_level().boosts
                else f"level {group[0].level}"
            )
            if wanted.placed is False:
                others = tuple(self.others(t) for t in group)
                envelope = min(1.0, sum(o.most for o in others))
                name = f"{level} after a Bonus Game, no Symbols"
                cells.append(
                    Cell(
                        name,
                        odds.chance,
                        "summed",
                        odds=odds,
                        others=others,
                        envelope=envelope,
                        reaches=reaches,
                    )
                )
            else:
                name = f"{level} after a Bonus Game, Symbols"
                cells.append(Cell(name, odds.chance, "symbols", odds=odds, reaches=reaches))
        return cells

    def sampler(self, tier: Tier | None) -> MainGameSampler:
        """The sampler of ``tier``'s Main Game (None: no win): the cheapest exact method within
        EXACT_BUDGET, or the chain."""
        cfg = self.cfg
        targets = targets_for(tier, cfg)
        natural = sum(self.natural_chance(t) for t in targets)
        options: list[tuple[float, MainGameSampler]] = []
        if natural > 0:
            cost = TRIAL_COST["natural"] / natural
            options.append(
                (cost, MainGameSampler(cfg, targets, Method.NATURAL, acceptance=natural))
            )
        cells = self.cells_for(targets)
        reached = sum(c.reaches for c in cells)
        mass = sum(c.chance * c.envelope for c in cells)
        trial = sum(c.chance * c.envelope * TRIAL_COST[c.kind] for c in cells) / mass
        acceptance = reached / mass
        if reached > 0:
            sampler = MainGameSampler(cfg, targets, Method.CELLS, tuple(cells), acceptance)
            options.append((trial / acceptance, sampler))
        exact = [o for o in options if o[0] <= EXACT_BUDGET]
        if exact:
            options = exact
        else:
            # Too slow for every play: exact draws for as long as EXACT_FIRST allows, the chain
            # for the plays they miss (if they would catch enough of them).
            trials = int(EXACT_FIRST / trial)
            method = Method.CHAIN
            if reached > 0 and 1 - (1 - acceptance) ** trials >= EXACT_FIRST_SHARE:
                method = Method.CELLS_THEN_CHAIN
            else:
                trials = 0
            sampler = MainGameSampler(cfg, targets, method, tuple(cells), acceptance, trials)
            options = [(CHAIN_COST, sampler)]
        if not options:
            raise GameError(f"no way to draw the Main Game of {tier!r}")
        return min(options, key=lambda o: o[0])[1]
