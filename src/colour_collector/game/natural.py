"""Natural play: the forward process of the rules when nothing is steered, told by what it collects.

A natural Main Game gives every square a uniformly random colour before each spin, stops the wheel
on a uniformly random colour, refills from ``GameConfig.item_weights``, plays every Bonus Game
round as a fair guess with the highlighted prize uniform on the panel, and places added Symbols in
uniformly chosen free boxes.

What a play *comes to* depends only on what each spin collects, never on where on the grid it
was. Given the wheel, each square shares its colour with probability 1/6, independently; every
item on the grid was drawn from the item weights independently of which squares get collected.
So a spin collects ``Binomial(20, 1/6)`` items, each drawn from the item weights, independently of
everything before. This module simulates that *haul* (the items collected by each spin and the
Bonus Games they start); ``layout.lay_out_main`` then puts a haul on the grid (which squares, their
colours, the refills) exactly as the full process would, given the haul. Generating the haul
first and the grid second is what lets the generator condition a play on its outcome.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from colour_collector.game.config import COUNTED_KINDS, SYMBOL_KINDS, BonusKind, GameConfig
from colour_collector.game.errors import GameError
from colour_collector.game.record import BonusPrize, BonusRound, Item, Panel
from colour_collector.game.sampling import binomial, picker_for

KINDS = tuple(BonusKind)
"""Every Bonus Prize kind, in configuration order."""


@dataclass(frozen=True, slots=True)
class BonusGamePlay:
    """One Bonus Game: its panel and its rounds (the last one lost)."""

    panel: Panel
    """The seven prizes on the panel."""
    rounds: tuple[BonusRound, ...]
    """Every round, won ones first, the lost one last; picks and numbers not yet drawn."""


@dataclass(frozen=True, slots=True)
class SpinHaul:
    """What one Main Game spin collected, and the Bonus Games it started."""

    items: tuple[Item, ...]
    """The collected items, in the order they go to the collected squares (square order)."""
    bonus_games: tuple[BonusGamePlay, ...]
    """The Bonus Games the spin started, in order."""


@dataclass(frozen=True, slots=True)
class MainHaul:
    """A whole Main Game told by what it collected, and where it ended."""

    spins: tuple[SpinHaul, ...]
    """Every spin, in order."""
    filled: tuple[int, ...]
    """Filled boxes per Prize Table row at the end."""
    boosts: int
    """Prize Table levels won, before the cap."""
    unlocked: bool
    """Whether the Prize Game was unlocked."""

    def completed_rows(self, config: GameConfig) -> tuple[int, ...]:
        """Rows whose boxes are all filled, top first."""
        return tuple(r for r, row in enumerate(config.prize_table) if self.filled[r] >= row.boxes)

    def level(self, config: GameConfig) -> int:
        """The Prize Table's level at the end."""
        return min(self.boosts, config.max_level)

    @property
    def bonus_games(self) -> int:
        """Bonus Games played."""
        return sum(len(spin.bonus_games) for spin in self.spins)


def random_panel(config: GameConfig, rng: random.Random) -> Panel:
    """A natural Bonus Game panel: every kind but one (left out at random), in random order, each
    carrying a number drawn uniformly from its kind's range."""
    omit = rng.randrange(len(KINDS)) if len(KINDS) > config.panel_size else None
    kinds = [k for i, k in enumerate(KINDS) if i != omit][: config.panel_size]
    rng.shuffle(kinds)
    prizes = []
    for kind in kinds:
        spec = config.bonus_prizes[kind]
        value = rng.randint(spec.minimum, spec.maximum) if kind in COUNTED_KINDS else 0
        prizes.append(BonusPrize(kind, value))
    return tuple(prizes)


GiveUp = Callable[[list[int], int, bool], bool]
"""Told the filled boxes, the boosts and whether the Prize Game is unlocked after each spin (and
its Bonus Games): True stops the simulation. Used for rejection, with conditions that can only
get worse (boxes never empty, boosts never fall, the Prize Game never locks again), so stopping
early rejects exactly the plays a whole simulation would have rejected."""


def simulate_haul(config: GameConfig, rng: random.Random) -> MainHaul:
    """A natural Main Game, simulated to its end."""
    haul = simulate_haul_unless(config, rng, None)
    if haul is None:
        raise GameError("a simulation that never gives up gave up")
    return haul


def simulate_haul_unless(
    config: GameConfig, rng: random.Random, give_up: GiveUp | None
) -> MainHaul | None:
    """A natural Main Game, or None as soon as ``give_up`` says it cannot come to what is wanted."""
    cfg = config
    picker = picker_for(cfg.item_weights)
    boxes = [row.boxes for row in cfg.prize_table]
    shapes = cfg.shapes
    bonus_item = cfg.bonus_item
    squares = cfg.grid_size
    bonus_box = cfg.bonus_box
    prize_box = cfg.prize_game_box
    filled = [0] * shapes
    bonus = prize_symbols = boosts = 0
    unlocked = False
    spins_left = cfg.starting_spins
    spins: list[tuple[list[Item], list[BonusGamePlay]]] = []
    pick_many = picker.pick_many
    while spins_left > 0:
        spins_left -= 1
        items = pick_many(rng, binomial(rng, squares, 1, 6))
        for item in items:
            if item < shapes:
                if filled[item] < boxes[item]:
                    filled[item] += 1
            elif item == bonus_item:
                bonus += 1
            elif not unlocked:
                prize_symbols += 1
                unlocked = prize_symbols >= prize_box
        games: list[BonusGamePlay] = []
        while bonus >= bonus_box:
            bonus -= bonus_box
            game = play_bonus_game(cfg, rng, filled)
            games.append(game)
            for prize, rows in won_prizes(game):
                kind = prize.kind
                if kind is BonusKind.EXTRA_SPINS:
                    spins_left += prize.value
                elif kind in SYMBOL_KINDS:
                    for row in rows:
                        filled[row] += 1
                elif kind is BonusKind.PRIZE_GAME_SYMBOLS:
                    prize_symbols = min(prize_box, prize_symbols + prize.value)
                    unlocked = unlocked or prize_symbols >= prize_box
                elif kind is BonusKind.UNLOCK_PRIZE_GAME:
                    unlocked = True
                else:
                    boosts += cfg.bonus_prizes[kind].boost
        spins.append((items, games))
        if give_up is not None and give_up(filled, boosts, unlocked):
            return None
    return MainHaul(
        tuple(SpinHaul(tuple(items), tuple(games)) for items, games in spins),
        tuple(filled),
        boosts,
        unlocked,
    )


def play_bonus_game(config: GameConfig, rng: random.Random, filled: list[int]) -> BonusGamePlay:
    """A natural Bonus Game for a Prize Table with ``filled`` boxes: a natural panel, fair rounds
    until the first lost one, added Symbols in uniformly chosen free boxes."""
    panel = random_panel(config, rng)
    boxes = [row.boxes for row in config.prize_table]
    pending = list(filled)
    rounds = []
    size = len(panel)
    while True:
        prize = rng.randrange(size)
        won = rng.randrange(2) == 0
        rows: tuple[int, ...] = ()
        if won and panel[prize].kind in SYMBOL_KINDS:
            rows = place_uniformly(panel[prize].value, pending, boxes, rng)
        rounds.append(BonusRound(prize, won, rows=rows))
        if not won:
            return BonusGamePlay(panel, tuple(rounds))


def won_prizes(game: BonusGamePlay) -> list[tuple[BonusPrize, tuple[int, ...]]]:
    """The prizes a Bonus Game awards, in the order won, with the rows of their added Symbols."""
    return [(game.panel[r.prize], r.rows) for r in game.rounds if r.won]


def place_uniformly(
    count: int, pending: list[int], boxes: list[int], rng: random.Random
) -> tuple[int, ...]:
    """Put ``count`` added Symbols into unfilled boxes chosen uniformly; updates ``pending``."""
    rows = []
    for _ in range(count):
        free = sum(b - n for b, n in zip(boxes, pending, strict=True))
        if not free:
            break
        pick = rng.randrange(free)
        row = 0
        while pick >= boxes[row] - pending[row]:
            pick -= boxes[row] - pending[row]
            row += 1
        pending[row] += 1
        rows.append(row)
    return tuple(rows)
