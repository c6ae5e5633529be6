"""A Main Game's skeleton (the Bonus symbols each spin collects and the Bonus Games they start),
and its drawing: the other items each spin collects, drawn as soon as they are needed.

``booster_level.LevelOdds`` draws a skeleton step by step into a ``SkeletonDrawing``; the other
items of a spin are drawn with it, or left until a Bonus Game must place Symbols in the free
boxes (``defer``), or drawn later by ``other_items``. ``with_others`` makes the Main Game of a
skeleton and its other items.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from colour_collector.game.config import SYMBOL_KINDS, BonusKind, GameConfig
from colour_collector.game.natural import BonusGamePlay, MainHaul, SpinHaul, won_prizes
from colour_collector.game.record import Item
from colour_collector.game.sampling import choose_cumulative, picker_for


@dataclass(frozen=True, slots=True)
class Skeleton:
    """A Main Game's skeleton and, once drawn, its other items."""

    bonus: tuple[int, ...]
    """Bonus symbols each spin collected."""
    games: tuple[tuple[BonusGamePlay, ...], ...]
    """Each spin's Bonus Games."""
    others: tuple[tuple[Item, ...], ...] | None
    """Each spin's other collected items; None when not drawn yet (then no Bonus Game placed
    Symbols)."""
    boosts: int
    """Levels won (counted up to BOOSTS_KNOWN)."""
    prize_symbols: int
    """Prize Game symbols from Bonus Prizes (up to the box), UNLOCK PRIZE GAME as a full box."""
    weight: float
    """Natural over proposed chance of the twisted Symbol placements (1 if none)."""

    def squares(self, config: GameConfig) -> int:
        """Squares not holding a collected Bonus symbol, over all the spins."""
        return config.grid_size * len(self.bonus) - sum(self.bonus)

    def haul(self, config: GameConfig) -> MainHaul:
        """The Main Game (its other items must have been drawn)."""
        if self.others is None:
            raise ValueError("the skeleton's other items are not drawn yet")
        return with_others(self, self.others, config)


def with_others(
    skeleton: Skeleton, others: Sequence[Sequence[Item]], config: GameConfig
) -> MainHaul:
    """The Main Game of ``skeleton`` with each spin's other items ``others``."""
    shapes = config.shapes
    boxes = [row.boxes for row in config.prize_table]
    filled = [0] * shapes
    prize_symbols = skeleton.prize_symbols
    bonus_item = config.bonus_item
    spins = []
    for bonus, games, got in zip(skeleton.bonus, skeleton.games, others, strict=True):
        for item in got:
            if item < shapes:
                filled[item] += 1
            else:
                prize_symbols += 1
        for game in games:
            for prize, rows in won_prizes(game):
                if prize.kind in SYMBOL_KINDS:
                    for row in rows:
                        filled[row] += 1
        spins.append(SpinHaul((bonus_item,) * bonus + tuple(got), games))
    capped = tuple(min(n, b) for n, b in zip(filled, boxes, strict=True))
    return MainHaul(tuple(spins), capped, skeleton.boosts, prize_symbols >= config.prize_game_box)


class SkeletonDrawing:
    """A skeleton being drawn, with its other items drawn as they are needed."""

    def __init__(
        self, config: GameConfig, rng: random.Random, defer: bool, tilt: Sequence[int] | None
    ) -> None:
        self.cfg = config
        self.rng = rng
        self.shapes = config.shapes
        self.boxes = [row.boxes for row in config.prize_table]
        self.prize_item = config.prize_game_item
        weights = (*config.item_weights[: self.shapes], config.item_weights[self.prize_item])
        self.tilted: list[float] | None = None
        if tilt is not None:
            tilted = tuple(w * t for w, t in zip(weights, tilt, strict=True))
            # An item of kind k drawn from the tilted weights: natural over tilted chance.
            self.tilted = [sum(tilted) / (sum(weights) * t) for t in tilt]
            weights = tilted
        self.picker = picker_for(weights)
        self.bonus: list[int] = []
        self.count_chances: list[Sequence[float]] = []
        self.games: list[tuple[BonusGamePlay, ...]] = []
        self.others: list[tuple[Item, ...]] | None = None if defer else []
        self.filled: list[int] | None = None if defer else [0] * self.shapes
        self.prize_items = 0
        self.prize_symbols = 0
        self.weight = 1.0

    @property
    def unlocked(self) -> bool:
        return self.prize_items + self.prize_symbols >= self.cfg.prize_game_box

    def _draw_others(self, running: Sequence[float], filled: list[int]) -> tuple[Item, ...]:
        shapes, prize_item = self.shapes, self.prize_item
        count = choose_cumulative(self.rng, running)
        codes = self.picker.pick_many(self.rng, count)
        if self.tilted is not None:
            for code in codes:
                self.weight *= self.tilted[code]
        got = tuple(c if c < shapes else prize_item for c in codes)
        boxes = self.boxes
        for item in got:
            if item < shapes:
                if filled[item] < boxes[item]:
                    filled[item] += 1
            else:
                self.prize_items += 1
        return got

    def spin(self, bonus: int, running: Sequence[float]) -> None:
        """A spin that collected ``bonus`` Bonus symbols; its other items drawn unless deferred."""
        self.bonus.append(bonus)
        self.count_chances.append(running)
        if self.others is not None and self.filled is not None:
            self.others.append(self._draw_others(running, self.filled))

    def need_filled(self) -> list[int]:
        """The filled boxes now, drawing the other items so far if they were deferred."""
        if self.others is None or self.filled is None:
            self.others = []
            self.filled = filled = [0] * self.shapes
            for running in self.count_chances:
                self.others.append(self._draw_others(running, filled))
            # Bonus Games so far placed no Symbols (else the items would have been drawn).
        return self.filled

    def bonus_game(self, game: BonusGamePlay) -> None:
        """Take a played Bonus Game's Symbols and Prize Game symbols into account."""
        full = self.cfg.prize_game_box
        for prize, rows in won_prizes(game):
            if prize.kind is BonusKind.PRIZE_GAME_SYMBOLS:
                self.prize_symbols = min(full, self.prize_symbols + prize.value)
            elif prize.kind is BonusKind.UNLOCK_PRIZE_GAME:
                self.prize_symbols = full
            elif prize.kind in SYMBOL_KINDS and self.filled is not None:
                for row in rows:
                    self.filled[row] += 1

    def skeleton(self, boosts: int) -> Skeleton:
        others = None if self.others is None else tuple(self.others)
        return Skeleton(
            tuple(self.bonus), tuple(self.games), others, boosts, self.prize_symbols, self.weight
        )
