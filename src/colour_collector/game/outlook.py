"""The outlook: an approximate chance that a Main Game in a given state comes to a target, given
how many more Bonus Games it will have.

``conditioned.py`` twists the natural process towards a target by weighting every choice with
the outlook of the state it leads to (an approximate Doob transform) and corrects the twist
exactly with importance weights, so the outlook only has to be good, never right: a poor outlook
costs time and never bias of its own. It must be positive wherever the target is still possible
and zero where it is not (a choice it rules out is never proposed).

Bonus Games are what tie the parts of a play together: they are the only way to a level, they
add Symbols to rows and symbols to the Prize Game Box. Given how many more Bonus Games a play
has, the rest comes apart into nearly independent factors, so the outlook is kept *per number of
Bonus Games still to come* (``games``), each a product of small tables worked out once a process
for a simplified game (``s`` spins still to collect, each collecting ``Binomial(20, w/486)`` items
of each kind with weight ``w``; a Bonus Game's wins independent uniform draws among the eight
kinds; its Symbols dealt over about ``TYPICAL_FREE`` free boxes):

- ``games_left[g][box][s]``: the chance that exactly ``g`` more Bonus Games start;
- ``row_complete[g][filled][s]`` (per row): the chance that a row ends complete, from its items
  and the Symbols of ``g`` Bonus Games;
- ``ends_well[g][prize_box][boosts][s]`` (per target): the chance that the level and the Prize
  Game come out as the target wants after ``g`` Bonus Games.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from colour_collector.game.config import BonusKind, GameConfig

SPINS_KNOWN = 24
"""Spins to collect beyond this many are looked up as this many."""
MOST_GAMES = 5
"""Most Bonus Games a conditioned play has (more in one play: below one natural play in 10**9)."""
BOOSTS_KNOWN = 4
"""Boosts are counted up to this many (the level stops at 3; 4 means "more than 3")."""
TYPICAL_FREE = 40
"""Free Prize Table boxes assumed when a Bonus Game places Symbols."""
MOST_SYMBOLS = 30
"""Symbols one Bonus Game places, counted up to this many."""

Grid3 = list[list[list[float]]]
"""A table ``t[a][b][c]``."""


def box_known(config: GameConfig) -> int:
    """The largest Bonus Game Box count the tables know (enough for every Bonus Game due)."""
    return config.bonus_box * (MOST_GAMES + 1) - 1


@dataclass(frozen=True, slots=True)
class BonusEffect:
    """What one Bonus Game does to the level and the Prize Game Box, with its chance."""

    chance: float
    """Chance of this effect."""
    boosts: int
    """Levels won (counted up to ``BOOSTS_KNOWN``)."""
    prize_symbols: int
    """Prize Game symbols added (up to the box's size)."""
    unlocks: bool
    """Whether UNLOCK PRIZE GAME was won."""


def _binomial(n: int, p: Fraction) -> list[float]:
    """The chances of 0..n successes in n trials of chance p."""
    return [float(comb(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n + 1)]


def _item_chance(config: GameConfig, item: int) -> Fraction:
    """Chance that a given square is collected on a spin and holds ``item``."""
    return Fraction(config.item_weights[item], sum(config.item_weights) * 6)


def _wins(config: GameConfig) -> list[tuple[float, BonusKind, int]]:
    """One won round: a kind uniform among all kinds (each kind is on the panel 7 times in 8 and
    then highlighted 1 time in 7) and a value uniform in its range."""
    kinds = tuple(BonusKind)
    out = []
    for kind in kinds:
        spec = config.bonus_prizes[kind]
        values = range(spec.minimum, spec.maximum + 1)
        for value in values:
            out.append((1 / len(kinds) / len(values), kind, value))
    return out


def _compound(
    config: GameConfig,
    start: tuple[int, ...],
    add: Callable[[tuple[int, ...], BonusKind, int], tuple[int, ...]],
) -> dict[tuple[int, ...], float]:
    """The distribution of a Bonus Game's summed effect: each round is lost (the game ends) with
    chance 1/2 or won, adding a prize with ``add``."""
    wins = _wins(config)
    dist = {start: 1.0}
    for _ in range(80):  # the fixed point of E = 1/2 start + 1/2 (a win, then E): error < 2**-80
        grown: dict[tuple[int, ...], float] = {start: 0.5}
        for state, chance in dist.items():
            for p, kind, value in wins:
                key = add(state, kind, value)
                grown[key] = grown.get(key, 0.0) + 0.5 * chance * p
        dist = grown
    return dist


def bonus_effects(config: GameConfig) -> tuple[BonusEffect, ...]:
    """The effects one Bonus Game has on the level and the Prize Game Box."""
    box = config.prize_game_box

    def add(state: tuple[int, ...], kind: BonusKind, value: int) -> tuple[int, ...]:
        boosts, symbols, unlocks = state
        boosts = min(BOOSTS_KNOWN, boosts + config.bonus_prizes[kind].boost)
        if kind is BonusKind.PRIZE_GAME_SYMBOLS:
            symbols = min(box, symbols + value)
        if kind is BonusKind.UNLOCK_PRIZE_GAME:
            unlocks = 1
        return (boosts, symbols, unlocks)

    dist = _compound(config, (0, 0, 0), add)
    return tuple(BonusEffect(c, b, s, bool(u)) for (b, s, u), c in sorted(dist.items()))


def symbols_placed(config: GameConfig) -> list[float]:
    """Chance that one Bonus Game places each number of Symbols (up to MOST_SYMBOLS)."""

    def add(state: tuple[int, ...], kind: BonusKind, value: int) -> tuple[int, ...]:
        if kind in (BonusKind.SYMBOLS, BonusKind.MORE_SYMBOLS):
            return (min(MOST_SYMBOLS, state[0] + value),)
        return state

    dist = _compound(config, (0,), add)
    return [dist.get((s,), 0.0) for s in range(MOST_SYMBOLS + 1)]


def _convolve(a: list[float], b: list[float], top: int) -> list[float]:
    """The distribution of a sum, counts above ``top`` lumped into ``top``."""
    out = [0.0] * (top + 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[min(top, i + j)] += x * y
    return out


class GamesOutlook:
    """``chance[g][box][s]``: that exactly ``g`` more Bonus Games start, with ``box`` symbols in the
    Bonus Game Box (six or more: a Bonus Game is due) and ``s`` spins still to collect."""

    def __init__(self, config: GameConfig) -> None:
        per_square = _item_chance(config, config.bonus_item)
        size = config.bonus_box
        self.chance: Grid3 = [
            [[0.0] * (SPINS_KNOWN + 1) for _ in range(box_known(config) + 1)]
            for _ in range(MOST_GAMES + 1)
        ]
        for s in range(SPINS_KNOWN + 1):
            collected = _binomial(config.grid_size * s, per_square)
            for box in range(box_known(config) + 1):
                for more, chance in enumerate(collected):
                    games = (box + more) // size
                    if games > MOST_GAMES:
                        break
                    self.chance[games][box][s] += chance


class RowsOutlook:
    """``complete[row][g][filled][s]``: that a row ends complete with ``g`` more Bonus Games."""

    def __init__(self, config: GameConfig) -> None:
        placed = symbols_placed(config)
        self.complete: list[Grid3] = []
        for row in range(config.shapes):
            boxes = config.prize_table[row].boxes
            items = [
                _binomial(config.grid_size * s, _item_chance(config, row))
                for s in range(SPINS_KNOWN + 1)
            ]
            tails = [[sum(dist[k:]) for k in range(boxes + 1)] for dist in items]
            per_row: Grid3 = [[[0.0] * (SPINS_KNOWN + 1) for _ in range(boxes + 1)]
                              for _ in range(MOST_GAMES + 1)]
            for filled in range(boxes + 1):
                free = boxes - filled
                # Symbols one Bonus Game adds here: its placed Symbols dealt over TYPICAL_FREE
                # boxes, ``free`` of them this row's.
                one = [0.0] * (free + 1)
                for count, chance in enumerate(placed):
                    drawn = min(count, TYPICAL_FREE)
                    ways = comb(TYPICAL_FREE, drawn)
                    for y in range(min(free, drawn) + 1):
                        one[y] += chance * comb(free, y) * comb(TYPICAL_FREE - free, drawn - y) / ways
                added = [1.0] + [0.0] * free
                for games in range(MOST_GAMES + 1):
                    for s in range(SPINS_KNOWN + 1):
                        per_row[games][filled][s] = sum(
                            chance * tails[s][max(0, free - y)] for y, chance in enumerate(added)
                        )
                    added = _convolve(added, one, free)
            self.complete.append(per_row)


class TargetOutlook:
    """``ends_well[g][prize_box * stride + boosts][s]``: that the level and the Prize Game come
    out as wanted after ``g`` more Bonus Games, for one (level, unlocked) pair."""

    def __init__(self, config: GameConfig, level: int | None, unlocked: bool) -> None:
        effects = bonus_effects(config)
        full = config.prize_game_box
        top = config.max_level
        self.stride = BOOSTS_KNOWN + 1
        """Boost counts per Prize Game Box count in the table's middle index."""
        # The summed effect of g Bonus Games: (boosts, prize symbols, unlocked) -> chance.
        summed: list[dict[tuple[int, int, bool], float]] = [{(0, 0, False): 1.0}]
        for _ in range(MOST_GAMES):
            grown: dict[tuple[int, int, bool], float] = {}
            for (b, p, u), c in summed[-1].items():
                for e in effects:
                    key = (min(BOOSTS_KNOWN, b + e.boosts), min(full, p + e.prize_symbols), u or e.unlocks)
                    grown[key] = grown.get(key, 0.0) + c * e.chance
            summed.append(grown)
        items = [_binomial(config.grid_size * s, _item_chance(config, config.prize_game_item))
                 for s in range(SPINS_KNOWN + 1)]

        def level_ok(boosts: int) -> bool:
            if level is None:
                return True
            return boosts >= top if level >= top else boosts == level

        self.ends_well: Grid3 = []
        for games in range(MOST_GAMES + 1):
            table = [[0.0] * (SPINS_KNOWN + 1) for _ in range((full + 1) * self.stride)]
            for box in range(full + 1):
                for boosts in range(self.stride):
                    for s in range(SPINS_KNOWN + 1):
                        total = 0.0
                        for (b, p, u), c in summed[games].items():
                            if not level_ok(min(BOOSTS_KNOWN, boosts + b)):
                                continue
                            if u or box >= full:
                                total += c if unlocked else 0.0
                                continue
                            need = full - box - p  # grid symbols still needed to unlock
                            reach = sum(items[s][max(0, need):]) if need > 0 else 1.0
                            total += c * (reach if unlocked else 1.0 - reach)
                        table[box * self.stride + boosts][s] = total
            self.ends_well.append(table)
