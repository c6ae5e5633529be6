"""What a Main Game must come to for a play to win a given tier (or nothing).

A tier's breakdown names row amounts and a Prize Game amount. The Main Game's part of it is a
*target*: which Prize Table rows end complete, at which level, and whether the Prize Game is
unlocked. A breakdown may be paid by several targets (a £10 row is the square row at level 0,
the triangle row at level 2 or the circle row at level 3); they are disjoint events, and natural
play conditioned on the tier picks among them in proportion to their natural chances.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from colour_collector.game.config import GameConfig, Pence
from colour_collector.game.natural import MainHaul
from colour_collector.game.prize_table import Tier


@dataclass(frozen=True, slots=True)
class MainTarget:
    """One way a Main Game can come to a tier's Main Game part."""

    rows: frozenset[int]
    """The Prize Table rows that end complete; no other row may."""
    level: int | None
    """The Prize Table's level at the end; None when any level pays the same (no rows, or the
    top row alone, whose amount never changes)."""
    unlocked: bool
    """Whether the Prize Game is unlocked."""

    def __repr__(self) -> str:
        return f"MainTarget(frozenset({sorted(self.rows)!r}), {self.level!r}, {self.unlocked!r})"

    def reached_by(self, haul: MainHaul, config: GameConfig) -> bool:
        """Whether ``haul`` comes to this target."""
        if haul.unlocked != self.unlocked or frozenset(haul.completed_rows(config)) != self.rows:
            return False
        return self.level is None or haul.level(config) == self.level

    def reached(self, rows: frozenset[int], level: int, unlocked: bool) -> bool:
        """Whether a Main Game that completes ``rows`` on ``level`` comes to this target."""
        if unlocked != self.unlocked or rows != self.rows:
            return False
        return self.level is None or level == self.level

    def label(self, config: GameConfig) -> str:
        """A short description, e.g. ``'circle + triangle at level 1, Prize Game'``."""
        shapes = " + ".join(config.prize_table[r].shape for r in sorted(self.rows)) or "no row"
        level = "" if self.level is None else f" at level {self.level}"
        return f"{shapes}{level}{', Prize Game' if self.unlocked else ''}"


def targets_for(tier: Tier | None, config: GameConfig) -> tuple[MainTarget, ...]:
    """Every target whose Main Game pays ``tier``'s rows (None: no win), level by level."""
    if tier is None:
        return (MainTarget(frozenset(), None, False),)
    unlocked = tier.prize_game > 0
    if not tier.rows:
        return (MainTarget(frozenset(), None, True),)
    found: dict[frozenset[int], list[int]] = {}
    for level in range(config.max_level + 1):
        for chosen in combinations(range(config.shapes), len(tier.rows)):
            if _amounts(config, chosen, level) == tier.rows:
                found.setdefault(frozenset(chosen), []).append(level)
    targets = []
    for rows, levels in found.items():
        if len(levels) == config.max_level + 1:  # every level pays it: the level is free
            targets.append(MainTarget(rows, None, unlocked))
        else:
            targets.extend(MainTarget(rows, level, unlocked) for level in levels)
    if not targets:
        raise ValueError(f"no Prize Table rows and level pay {tier.rows!r} for tier {tier.name!r}")
    return tuple(sorted(targets, key=lambda t: (t.level or 0, sorted(t.rows))))


def _amounts(config: GameConfig, rows: tuple[int, ...], level: int) -> tuple[Pence, ...]:
    return tuple(sorted(config.row_amount(r, level) for r in rows))
