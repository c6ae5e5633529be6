"""Where a chain's proposals put the Symbols a Bonus Game adds: leaning to the tier's rows.

Naturally each added Symbol goes to a uniformly chosen free box. A chain proposal for a rare
tier instead takes each free box in proportion to the natural chance times a look-ahead: how
much more likely the tier's rows still get filled if the Symbol goes there. The look-ahead for a
wanted row counts the rest of the prize's Symbols, dealt uniformly over the free boxes
(hypergeometric), and the row's shapes natural play collects in the spins left (binomial: each
spin collects each square with chance 1/6, holding each item with its weight); each row is taken
on its own. A box that would complete a row no target of the tier has is never taken. The twist
is mixed with the natural placement (``LEAN_NATURAL``), so no placement's weight, natural over
proposed chance, exceeds ``1 / LEAN_NATURAL``. The chain corrects for the twist exactly with that
weight; the look-ahead only decides how well its proposals cover the tier.
"""

from __future__ import annotations

import random
from math import comb

from colour_collector.game.config import GameConfig

LEAN_FLOOR = 1e-3
"""The smallest look-ahead chance used (so a look-ahead ratio stays finite)."""
LEAN_NATURAL = 0.2
"""The share of each added Symbol's placement left natural (uniform over the free boxes)."""
LOOK_AHEADS_KEPT = 50_000
"""Look-ahead ratios a process remembers (the memo starts afresh when full)."""


class LookAhead:
    """The look-ahead ratios of one configuration, shared by every chain of a process."""

    def __init__(self, config: GameConfig) -> None:
        self.grid = config.grid_size
        rows = len(config.prize_table)
        total = sum(config.item_weights)
        colours = len(config.colours)
        self.collect = [w / (total * colours) for w in config.item_weights[:rows]]
        """Each row's chance that a square collects its shape in a spin."""
        self.most = max(row.boxes for row in config.prize_table)
        self._later: dict[tuple[int, int], tuple[float, ...]] = {}
        self._ratios: dict[tuple[int, int, int, int, int], float] = {}

    def later(self, row: int, spins: int) -> tuple[float, ...]:
        """For each count ``m`` from 0 to the most boxes a row has, the chance that natural play
        collects at least ``m`` of ``row``'s shape in ``spins`` spins."""
        key = (row, spins)
        held = self._later.get(key)
        if held is None:
            tries, q = self.grid * spins, self.collect[row]
            at_least, below, term = [], 0.0, (1 - q) ** tries
            for k in range(self.most + 1):
                at_least.append(max(0.0, 1.0 - below))
                below += term
                term *= (tries - k) * q / ((k + 1) * (1 - q)) if q < 1 else 0.0
            held = self._later[key] = tuple(at_least)
        return held

    def filled(self, row: int, spaces: int, lacking: int, left: int, spins: int) -> float:
        """Chance that ``left`` Symbols dealt uniformly over ``spaces`` free boxes, ``lacking``
        of them in ``row``, and then ``spins`` spins of natural play fill the row (at least
        LEAN_FLOOR)."""
        if lacking <= 0:
            return 1.0
        later = self.later(row, spins)
        drawn = min(left, spaces)
        others = spaces - lacking
        if others < 0:  # only asked when no other box is free: the answer is never used
            return max(later[lacking - drawn], LEAN_FLOOR)
        y = max(0, drawn - others)
        chance = comb(lacking, y) * comb(others, drawn - y) / comb(spaces, drawn)
        total = 0.0
        while y <= min(lacking, drawn):
            total += chance * later[lacking - y]
            chance *= (lacking - y) * (drawn - y) / ((y + 1) * (others - drawn + y + 1))
            y += 1
        return max(total, LEAN_FLOOR)

    def ratio(self, row: int, spaces: int, lacking: int, left: int, spins: int) -> float:
        """How much more likely the wanted ``row`` gets filled if this Symbol goes into it than
        if it goes to a row the tier does not want (the wanted rows' look-aheads multiply, so
        the other wanted rows' cancel out)."""
        key = (row, spaces, lacking, left, spins)
        held = self._ratios.get(key)
        if held is None:
            if len(self._ratios) >= LOOK_AHEADS_KEPT:  # a bounded memo: a server runs for long
                self._ratios.clear()
            into = self.filled(row, spaces - 1, lacking - 1, left - 1, spins)
            away = self.filled(row, spaces - 1, lacking, left - 1, spins)
            held = self._ratios[key] = into / away
        return held


_look_aheads: dict[int, tuple[GameConfig, LookAhead]] = {}


def look_ahead(config: GameConfig) -> LookAhead:
    """The shared ``LookAhead`` of ``config`` (one a process)."""
    held = _look_aheads.get(id(config))
    if held is None or held[0] is not config:  # the entry keeps its config alive: ids stay true
        held = _look_aheads[id(config)] = (config, LookAhead(config))
    return held[1]


class PlacementLean:
    """The lean of one tier's chain (``booster_level.Lean``): places a Bonus Game's added
    Symbols, each free box taken with chance (1 - LEAN_NATURAL) times its twisted share plus
    LEAN_NATURAL over the boxes that may be taken."""

    def __init__(self, config: GameConfig, wanted: frozenset[int]) -> None:
        self.boxes = [row.boxes for row in config.prize_table]
        self.wanted = tuple(sorted(wanted))
        """The rows the tier's targets complete."""
        self.ahead = look_ahead(config)

    def place(
        self, count: int, pending: list[int], spins: int, rng: random.Random
    ) -> tuple[tuple[int, ...], float] | None:
        """Rows for ``count`` added Symbols with ``spins`` spins left to play after them, and
        the natural over proposed chance of the choice; None if no free box may be taken.
        Updates ``pending``."""
        boxes, wanted, ratio = self.boxes, self.wanted, self.ahead.ratio
        free = [b - n for n, b in zip(pending, boxes, strict=True)]
        spaces = sum(free)
        rows: list[int] = []
        factor = 1.0
        for left in range(count, 0, -1):
            if not spaces:
                break
            # Boxes of rows the tier does not want, in rows that they cannot complete, are taken
            # uniformly (look-ahead 1); a wanted row's are leaned by its look-ahead ratio.
            plain = sum(f for r, f in enumerate(free) if f > 1 and r not in wanted)
            leaned = [
                free[r] * ratio(r, spaces, free[r], left, spins) if free[r] else 0.0 for r in wanted
            ]
            twisted = plain + sum(leaned)
            if not twisted > 0:
                return None
            allowed = plain + sum(free[r] for r in wanted)
            per_twisted, per_allowed = (1 - LEAN_NATURAL) / twisted, LEAN_NATURAL / allowed
            # The chance of each wanted row; the rest of the chance goes to the plain boxes.
            chances = [
                w * per_twisted + free[r] * per_allowed for r, w in zip(wanted, leaned, strict=True)
            ]
            u = rng.random()
            row = -1
            for r, c in zip(wanted, chances, strict=True):
                if u < c:
                    row = r
                    factor *= free[r] / (spaces * c)
                    break
                u -= c
            if row < 0:
                if not plain:  # rounding left the draw past the wanted rows
                    row = next(r for r, c in zip(wanted, chances, strict=True) if c > 0)
                    factor *= free[row] / (spaces * chances[wanted.index(row)])
                else:
                    # A uniform plain box: each has chance per_twisted + per_allowed.
                    factor /= spaces * (per_twisted + per_allowed)
                    pick = rng.randrange(plain)
                    row = 0
                    while True:
                        room = free[row]
                        if room > 1 and row not in wanted:
                            if pick < room:
                                break
                            pick -= room
                        row += 1
            free[row] -= 1
            spaces -= 1
            pending[row] += 1
            rows.append(row)
        return tuple(rows), factor
