"""A plain forward simulation of the Main Game: what a play looks like when nothing is steered.

Every square gets a uniformly random colour before each spin, the wheel stops on a uniformly random
colour, refills follow ``GameConfig.item_weights``, every Bonus Game round is a fair guess and the
highlighted prize is uniform. The generator uses it for losing plays (a whole play is simulated and
kept only if it loses, so a losing play is exactly a natural play conditioned on losing), and the
naturalness report compares generated plays against it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from colour_collector.game.config import COUNTED_KINDS, SYMBOL_KINDS, BonusKind, GameConfig
from colour_collector.game.errors import GameError
from colour_collector.game.record import BonusPrize, BonusRound, Item, MainSpin, Panel, Step
from colour_collector.game.sampling import picker_for, uniform_digits

KINDS = tuple(BonusKind)
"""Every Bonus Prize kind, in configuration order."""


@dataclass(frozen=True, slots=True)
class NaturalMain:
    """A naturally simulated Main Game and its final state."""

    grid: tuple[Item, ...]
    """The grid at the start."""
    steps: tuple[Step, ...]
    """Its spins and bonus rounds."""
    filled: tuple[int, ...]
    """Filled boxes per Prize Table row at the end (capped at the row's boxes)."""
    boosts: int
    """Levels won, before the cap."""
    prize_game_unlocked: bool
    """Whether the Prize Game was unlocked."""
    bonus_games: int
    """Bonus Games played."""
    spins: int
    """Main Game spins played."""

    def completed_rows(self, config: GameConfig) -> tuple[int, ...]:
        """Rows whose boxes are all filled."""
        return tuple(r for r, row in enumerate(config.prize_table) if self.filled[r] >= row.boxes)


def random_panel(config: GameConfig, rng: random.Random, keep: frozenset[BonusKind]) -> Panel:
    """A Bonus Game panel: every kind but one left out at random (never one of ``keep``)."""
    spare = [k for k in KINDS if k not in keep]
    omit = spare[rng.randrange(len(spare))] if len(KINDS) > config.panel_size else None
    kinds = [k for k in KINDS if k is not omit][: config.panel_size]
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


def simulate_main(config: GameConfig, rng: random.Random) -> NaturalMain:
    """Play the Main Game forward with no steering at all."""
    main = simulate_main_unless(config, rng, lambda _filled, _boosts, _unlocked: False)
    if main is None:
        raise GameError("a simulation that never gives up gave up")
    return main


def simulate_main_unless(
    config: GameConfig, rng: random.Random, give_up: GiveUp
) -> NaturalMain | None:
    """Play the Main Game forward with no steering, stopping (None) when ``give_up`` says so."""
    cfg = config
    picker = picker_for(cfg.item_weights)
    size = cfg.grid_size
    boxes = [row.boxes for row in cfg.prize_table]
    shapes = cfg.shapes
    bonus_item = cfg.bonus_item
    grid = picker.pick_many(rng, size)
    start = tuple(grid)
    filled = [0] * shapes
    bonus = prize_symbols = boosts = games = spins = 0
    unlocked = False
    spins_left = cfg.starting_spins
    steps: list[Step] = []
    randrange = rng.randrange
    while spins_left > 0:
        spins_left -= 1
        spins += 1
        colours = uniform_digits(rng, 6, size)
        wheel = randrange(6)
        collected = [square for square, colour in enumerate(colours) if colour == wheel]
        refill = picker.pick_many(rng, len(collected))
        for square, new in zip(collected, refill, strict=True):
            item = grid[square]
            if item < shapes:
                if filled[item] < boxes[item]:
                    filled[item] += 1
            elif item == bonus_item:
                bonus += 1
            elif not unlocked:
                prize_symbols += 1
                unlocked = prize_symbols >= cfg.prize_game_box
            grid[square] = new
        panels = []
        while bonus >= cfg.bonus_box:
            bonus -= cfg.bonus_box
            panels.append(random_panel(cfg, rng, frozenset()))
        steps.append(MainSpin(colours, wheel, tuple(refill), tuple(panels)))
        for panel in panels:
            games += 1
            awards: list[tuple[BonusPrize, tuple[int, ...]]] = []
            pending = list(filled)
            while True:
                prize = randrange(len(panel))
                won = randrange(2) == 0
                rows: tuple[int, ...] = ()
                if won and panel[prize].kind in SYMBOL_KINDS:
                    rows = _place_uniformly(panel[prize].value, pending, boxes, rng)
                steps.append(BonusRound(prize, won, rows=rows))
                if not won:
                    break
                awards.append((panel[prize], rows))
            for award, rows in awards:
                kind = award.kind
                if kind is BonusKind.EXTRA_SPINS:
                    spins_left += award.value
                elif kind in SYMBOL_KINDS:
                    for row in rows:
                        filled[row] += 1
                elif kind is BonusKind.PRIZE_GAME_SYMBOLS:
                    prize_symbols = min(cfg.prize_game_box, prize_symbols + award.value)
                    unlocked = unlocked or prize_symbols >= cfg.prize_game_box
                elif kind is BonusKind.UNLOCK_PRIZE_GAME:
                    unlocked = True
                else:
                    boosts += cfg.bonus_prizes[kind].boost
        if give_up(filled, boosts, unlocked):
            return None
    return NaturalMain(start, tuple(steps), tuple(filled), boosts, unlocked, games, spins)


def _place_uniformly(
    count: int, pending: list[int], boxes: list[int], rng: random.Random
) -> tuple[int, ...]:
    """Put ``count`` added symbols into unfilled boxes chosen uniformly; updates ``pending``."""
    rows = []
    for _ in range(count):
        free = [r for r, n in enumerate(pending) for _ in range(boxes[r] - n)]
        if not free:
            break
        row = free[rng.randrange(len(free))]
        pending[row] += 1
        rows.append(row)
    return tuple(rows)
