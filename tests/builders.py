"""Hand-built play records for the rules tests: say which squares a spin collects, nothing more."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from colour_collector.game.config import BonusKind, load_config
from colour_collector.game.record import (
    WIN,
    WIN_X2,
    BonusPrize,
    BonusRound,
    Item,
    MainSpin,
    Panel,
    Parity,
    PrizeSpin,
)

CFG = load_config()
CIRCLE, TRIANGLE, SQUARE, DIAMOND, PENTAGON, HEXAGON, STAR = range(7)
BONUS = CFG.bonus_item
PRIZE = CFG.prize_game_item
FILLER = STAR
"""What fills squares a test does not care about (a star: never collected unless asked for)."""

PANEL: Panel = (
    BonusPrize(BonusKind.EXTRA_SPINS, 2),
    BonusPrize(BonusKind.PRIZE_BOOSTER),
    BonusPrize(BonusKind.SUPER_PRIZE_BOOSTER),
    BonusPrize(BonusKind.MEGA_PRIZE_BOOSTER),
    BonusPrize(BonusKind.SYMBOLS, 4),
    BonusPrize(BonusKind.PRIZE_GAME_SYMBOLS, 2),
    BonusPrize(BonusKind.UNLOCK_PRIZE_GAME),
)
EXTRA_SPINS, BOOSTER, SUPER, MEGA, SYMBOLS, PG_SYMBOLS, UNLOCK = range(7)
"""Indices of the prizes on ``PANEL``."""


def grid(
    items: dict[int, Item] | Sequence[Item] = (), size: int = CFG.grid_size
) -> tuple[Item, ...]:
    """A grid of fillers with ``items`` at the given squares (or the first squares, in order)."""
    cells = [FILLER] * size
    placed = items.items() if isinstance(items, dict) else enumerate(items)
    for square, item in placed:
        cells[square] = item
    return tuple(cells)


def spin(
    collect: Iterable[int] = (),
    refill: Sequence[Item] | None = None,
    wheel: int = 0,
    panels: Sequence[Panel] = (),
) -> MainSpin:
    """A Main Game spin that collects exactly the squares ``collect``."""
    chosen = sorted(set(collect))
    colours = tuple(wheel if s in chosen else (wheel + 1) % 6 for s in range(CFG.grid_size))
    items = tuple(refill) if refill is not None else (FILLER,) * len(chosen)
    return MainSpin(colours, wheel, items, tuple(panels))


def spins(count: int) -> list[MainSpin]:
    """``count`` spins that collect nothing."""
    return [spin() for _ in range(count)]


def won(prize: int, rows: Sequence[int] = ()) -> BonusRound:
    """A won bonus round (picked ODD, reel shows 1)."""
    return BonusRound(prize, True, Parity.ODD, 1, tuple(rows))


def lost(prize: int = 0) -> BonusRound:
    """A lost bonus round (picked ODD, reel shows 2)."""
    return BonusRound(prize, False, Parity.ODD, 2)


def prize_grid(items: dict[int, Item]) -> tuple[Item, ...]:
    """A Prize Game grid of £1 amounts with ``items`` at the given squares; a WIN and a WIN x2
    not placed by ``items`` go to the last squares (which the test spins never collect)."""
    cells: list[Item] = [100] * CFG.prize_grid_size
    for square, item in items.items():
        cells[square] = item
    if WIN not in items.values():
        cells[-1] = WIN
    if WIN_X2 not in items.values():
        cells[-2] = WIN_X2
    return tuple(cells)


def prize_spin(
    collect: Iterable[int],
    refill: Sequence[Item] | None = None,
    wheel: int = 0,
    *,
    final: bool = False,
) -> PrizeSpin:
    """A Prize Game spin that collects exactly the squares ``collect`` (refilling none if final)."""
    chosen = sorted(set(collect))
    colours = tuple(wheel if s in chosen else (wheel + 1) % 6 for s in range(CFG.prize_grid_size))
    default = () if final else (100,) * len(chosen)
    items = tuple(refill) if refill is not None else default
    return PrizeSpin(colours, wheel, items)
