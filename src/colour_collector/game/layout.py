"""Puts a haul on the grid: which squares each spin collects, every colour, every refill.

Given what each spin collected (a ``MainHaul`` or a ``PrizeHaul``), the full natural process
leaves the rest of the screen distributed like this, independently of the outcome:

- the collected squares of a spin are a uniformly chosen set of the right size (each square
  shares the wheel's colour with probability 1/6, independently, so given how many did, every
  set of that size is equally likely);
- the wheel is a uniform colour, the collected squares have its colour and every other square a
  uniform colour among the other five;
- the item a collected square holds is the one the haul says it collected (the haul's items of
  a spin are exchangeable, so they go to the chosen squares in a uniform order); an item never
  collected (on the starting grid, or refilled after a square's last
  collection) is drawn from the natural weights.

So a play laid out from a haul drawn as natural play conditioned on its outcome is itself
distributed as natural play conditioned on that outcome.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from colour_collector.game.config import GameConfig
from colour_collector.game.natural import MainHaul
from colour_collector.game.prize_game import PrizeHaul
from colour_collector.game.record import WIN, WIN_X2, Colour, Item, MainSpin, PrizeSpin, Step
from colour_collector.game.sampling import arrangement, other_colours, picker_for

_UNSET = -99
"""Marks a grid or refill entry no collection has fixed yet."""


def lay_out_main(
    haul: MainHaul, config: GameConfig, rng: random.Random
) -> tuple[tuple[Item, ...], list[Step]]:
    """The starting grid and the steps (spins and bonus rounds) of ``haul``."""
    size = config.grid_size
    collected = []
    dealt = []
    for spin in haul.spins:
        squares, items = _scatter(spin.items, range(size), rng)
        collected.append(squares)
        dealt.append(items)
    grid, refills = _deal(collected, dealt, size)
    _fill_unset(grid, refills, config.item_weights, None, rng)
    steps: list[Step] = []
    for spin, squares, refill in zip(haul.spins, collected, refills, strict=True):
        wheel, colours = _colours(squares, size, rng)
        panels = tuple(game.panel for game in spin.bonus_games)
        steps.append(MainSpin(colours, wheel, tuple(refill), panels))
        for game in spin.bonus_games:
            steps.extend(game.rounds)
    return tuple(grid), steps


def lay_out_prize(
    haul: PrizeHaul, config: GameConfig, rng: random.Random
) -> tuple[tuple[Item, ...], list[PrizeSpin]]:
    """The Prize Game grid and spins of ``haul``."""
    size = config.prize_grid_size
    win, win_x2 = rng.sample(range(size), 2)
    money = [s for s in range(size) if s not in (win, win_x2)]
    collected = []
    dealt = []
    for amounts in haul.spins:
        squares, items = _scatter(amounts, money, rng)
        collected.append(squares)
        dealt.append(items)
    grid, refills = _deal(collected, dealt, size)
    grid[win], grid[win_x2] = WIN, WIN_X2
    refills[-1] = []  # the last spin ends the Prize Game: nothing refills
    weights = config.prize_amount_weights
    _fill_unset(grid, refills, weights, config.prize_amounts, rng)
    steps = []
    last = len(haul.spins) - 1
    for number, (squares, refill) in enumerate(zip(collected, refills, strict=True)):
        ending = []
        if number == last:
            ending = [s for s, hit in ((win, haul.win), (win_x2, haul.win_x2)) if hit]
        wheel, colours = _colours(sorted(squares + ending), size, rng)
        steps.append(PrizeSpin(colours, wheel, tuple(refill)))
    return tuple(grid), steps


def _scatter(
    items: tuple[int, ...], squares: Sequence[int], rng: random.Random
) -> tuple[list[int], list[int]]:
    """Uniformly chosen distinct squares for ``items`` and the items in square order, each
    arrangement equally likely: the first ``len(items)`` squares of a uniform permutation of
    ``squares`` (drawn with one ``randrange``), sorted with their items."""
    count = len(items)
    if not count:
        return [], []
    order = arrangement(rng, len(squares), count)
    placed = sorted((squares[i], item) for i, item in zip(order, items, strict=True))
    return [square for square, _ in placed], [item for _, item in placed]


def _deal(
    collected: list[list[int]], items: list[list[int]], size: int
) -> tuple[list[int], list[list[int]]]:
    """The starting grid and each spin's refills, with every entry a later collection reads set
    to what it collects and every other entry ``_UNSET``."""
    grid = [_UNSET] * size
    refills: list[list[int]] = []
    # Where each square's current item is written: (-1, square) for the starting grid,
    # (spin, position) for a refill.
    source = [(-1, square) for square in range(size)]
    for spin, (squares, got) in enumerate(zip(collected, items, strict=True)):
        refills.append([_UNSET] * len(squares))
        for position, (square, item) in enumerate(zip(squares, got, strict=True)):
            where, index = source[square]
            if where < 0:
                grid[index] = item
            else:
                refills[where][index] = item
            source[square] = (spin, position)
    return grid, refills


def _fill_unset(
    grid: list[int],
    refills: list[list[int]],
    weights: tuple[int, ...],
    values: tuple[int, ...] | None,
    rng: random.Random,
) -> None:
    """Draw every ``_UNSET`` entry from ``weights`` (item codes, or ``values[code]``)."""
    lists = [grid, *refills]
    holes = [(lst, i) for lst in lists for i, item in enumerate(lst) if item == _UNSET]
    drawn = picker_for(weights).pick_many(rng, len(holes))
    for (lst, i), code in zip(holes, drawn, strict=True):
        lst[i] = code if values is None else values[code]


def _colours(collected: list[int], size: int, rng: random.Random) -> tuple[Colour, tuple[int, ...]]:
    """A uniform wheel, its colour on the collected squares and another colour elsewhere."""
    wheel = rng.randrange(6)
    colours = list(other_colours(rng, wheel, size))
    for square in collected:
        colours[square] = wheel
    return wheel, tuple(colours)
