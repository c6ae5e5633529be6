"""The chain that draws the rarest tiers' Main Games: natural play conditioned on a tier, by an
independence Metropolis-Hastings chain over the cells of natural play that ``main_game_sampler``
works out (decisions 0101, 0103 and 0104; ``docs/generator.md``). It is an approximation, used
only for tiers too rare to draw exactly within ``main_game_sampler.EXACT_BUDGET``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

from colour_collector.game.config import GameConfig
from colour_collector.game.errors import GameError
from colour_collector.game.natural import MainHaul
from colour_collector.game.outcome import MainTarget
from colour_collector.game.placement_lean import PlacementLean
from colour_collector.game.sampling import choose, choose_cumulative
from colour_collector.game.skeleton import Skeleton

if TYPE_CHECKING:
    from colour_collector.game.main_game_sampler import Cell

CHAIN_PROPOSALS = 2000
"""Proposals a chain makes before its state is taken. The weights are heavy-tailed, so a short
chain stays where its first heavy proposal put it: with 56 (112 for £1,000,000), 29% of £45
(£8 + £12 + £25) plays won a Symbols prize against 87% of natural ones, and £250 64% against
73%. With 2,000 the independent reference's natural plays of every chain tier are matched
(``benchmarks/rare_tiers.py compare``; decision 0104), at 0.2 to 0.6 s a play, within the
purchase floor."""
SPARE_MIX = 0.05
"""Each cell of a chain is proposed at least this share of the time."""
BIG_ROW = 8
"""Rows with this many boxes or more are big: a chain's Symbols proposals favour their shapes."""
BIG_ROW_TILT = 2
"""How much more often than naturally those proposals collect a big row's shape the tier wants."""
SYMBOLS_FAVOUR = 3.0
"""How much more often than naturally a chain's Symbols proposals for a tier with a big row win
Symbols prizes in a Bonus Game (below 6, where a Bonus Game would never end)."""
CHAIN_CALIBRATION = 300
"""Proposals drawn from each cell of a chain (at a fixed seed) to estimate its share."""
SEED = 20261205
"""Seed of the proposals that estimate each cell's share (``main_game_sampler.SEED`` + 2)."""
MAX_PROPOSALS = 10_000_000
"""Proposals after which a chain gives up if none came to the tier (a bug: every tier is
reachable)."""


@dataclass(frozen=True, slots=True)
class Unfilled:
    """A chain state whose other items are summed out: drawn only if it is the final state."""

    skeleton: Skeleton
    """The skeleton."""
    cell: Cell
    """The no-Symbols level cell it came from."""
    chances: list[float]
    """For each of the cell's targets, the chance its other items bring that target about."""

    def fill(self, rng: random.Random) -> MainHaul:
        """The Main Game: a target drawn in proportion to its chance, then the other items
        conditioned on it."""
        return self.cell.others[choose(rng, self.chances)].fill(self.skeleton, rng)


class SkeletonChain:
    """Natural Main Games conditioned on a tier, by an independence Metropolis-Hastings chain.

    A proposal picks a cell (with chances near the tier's share in each, ``SPARE_MIX`` at least)
    and draws from it: from a no-Bonus-Game cell, a Main Game conditioned on its target
    (exact); from a no-Symbols level cell, a skeleton, weighted by the exact chance that its
    other items bring the tier about (they are drawn, conditioned on that, only for the chain's
    final state); from a Symbols level cell, a Main Game whose added Symbols lean to the tier's
    rows (``placement_lean``), weighted by natural over twisted chance if it comes to the tier. Each
    weight is natural chance over proposed chance, so the chain's stationary law is natural play
    conditioned on the tier, and after ``n`` proposals its state is within ``(1 - 1/W) ** n`` of
    it in total variation when weights stay below ``W`` times their mean (Mengersen and Tweedie
    1996).
    """

    def __init__(
        self, config: GameConfig, targets: Sequence[MainTarget], cells: Sequence[Cell]
    ) -> None:
        self.cfg = config
        self.targets = tuple(targets)
        self.cells = tuple(cells)
        wanted = frozenset().union(*(t.rows for t in targets))
        self.lean = PlacementLean(config, wanted)
        big = any(config.prize_table[r].boxes >= BIG_ROW for r in wanted)
        self.tilt = (
            *(
                BIG_ROW_TILT if r in wanted and row.boxes >= BIG_ROW else 1
                for r, row in enumerate(config.prize_table)
            ),
            1,
        )
        """How much more often than naturally a Symbols cell's proposals collect each other item
        (the shapes, then the Prize Game symbol): the tier's big rows are favoured."""
        self.favour = SYMBOLS_FAVOUR if big else 1.0
        """How much more often than naturally a Symbols cell's proposals win Symbols prizes."""
        # The no-Bonus-Game cells are drawn exactly and their chances are exact: a play is drawn
        # from one of them with their share of the tier, and the chain runs over the others.
        self.quiet = [c for c in self.cells if c.quiet is not None]
        """The no-Bonus-Game cells."""
        self.cells = tuple(c for c in self.cells if c.quiet is None)
        # Each cell's share of the tier, estimated from its own proposals (their mean weight is
        # an unbiased estimate of the chance of the tier within the cell).
        rng = random.Random(SEED)
        reaches = []
        for index in range(len(self.cells)):
            total = sum(self.draw(index, rng)[1] for _ in range(CHAIN_CALIBRATION))
            reaches.append(total / CHAIN_CALIBRATION)
        whole = sum(reaches)
        quiet = sum(c.chance for c in self.quiet)
        self.quiet_share = quiet / (quiet + whole) if whole > 0 else 1.0
        """The estimated share of the tier's plays without a Bonus Game."""
        self._quiet_cumulative = list(accumulate(c.chance for c in self.quiet))
        mix = [max(r / (whole or 1.0), SPARE_MIX) for r in reaches]
        norm = sum(mix)
        self.mix = [m / norm for m in mix]
        """The chance each proposal picks each cell."""
        self._cumulative = list(accumulate(self.mix))

    def draw(self, index: int, rng: random.Random) -> tuple[MainHaul | Unfilled | None, float]:
        """A proposal from cell ``index`` and its worth: the cell's chance times natural over
        proposed chance within it (0 if it misses the tier)."""
        cell = self.cells[index]
        if cell.quiet is not None:
            return cell.quiet.sample(rng), cell.chance
        if cell.kind == "summed":
            summed = cell.skeleton(rng)
            if summed is None:
                return None, 0.0
            skeleton, chances = summed
            return Unfilled(skeleton, cell, chances), cell.chance * sum(chances)
        drawn = cell.level_odds().draw(rng, lean=self.lean, tilt=self.tilt, favour=self.favour)
        if drawn is None:
            return None, 0.0
        haul = drawn.haul(self.cfg)
        if not any(t.reached_by(haul, self.cfg) for t in self.targets):
            return None, 0.0
        return haul, cell.chance * drawn.weight

    def proposal(self, rng: random.Random) -> tuple[MainHaul | Unfilled | None, float]:
        """A proposed state (a Main Game, or a skeleton with its cell and targets' chances) and
        its weight, natural over proposed chance (up to a constant)."""
        pick = choose_cumulative(rng, self._cumulative)
        state, worth = self.draw(pick, rng)
        return state, worth / self.mix[pick]

    def sample(self, rng: random.Random, proposals: int) -> MainHaul:
        """A play without a Bonus Game with the estimated share of those, drawn exactly; else
        the chain's state after ``proposals`` proposals (more until one reaches the tier)."""
        if self.quiet and rng.random() < self.quiet_share:
            cell = self.quiet[choose_cumulative(rng, self._quiet_cumulative)]
            if cell.quiet is None:
                raise GameError(f"cell {cell.name!r} has no sampler")
            return cell.quiet.sample(rng)
        current: MainHaul | Unfilled | None = None
        weight = 0.0
        for made in range(MAX_PROPOSALS):
            state, w = self.proposal(rng)
            if w > 0 and (current is None or rng.random() * weight < w):
                current, weight = state, w
            if made + 1 >= proposals and current is not None:
                break
        if current is None:
            raise GameError(f"no proposal reached {self.targets!r}")
        return current if isinstance(current, MainHaul) else current.fill(rng)
