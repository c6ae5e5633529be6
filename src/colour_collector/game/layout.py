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
from colour_collector.game.sampling import arrangement_of, arrangements, picker_for, skipping_digits

_UNSET = -99
"""Marks a grid or refill entry no collection has fixed yet."""


def lay_out_main(
    haul: MainHaul, config: GameConfig, rng: random.Random
) -> tuple[tuple[Item, ...], list[Step]]:
    """The starting grid and the steps (spins and bonus rounds) of ``haul``."""
    size = config.grid_size
    grid, refills, screens = _deal([s.items for s in haul.spins], range(size), size, rng)
    _fill_unset(grid, refills, config.item_weights, None, rng)
    steps: list[Step] = []
    for spin, (wheel, colours), refill in zip(haul.spins, screens, refills, strict=True):
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
    last = len(haul.spins) - 1
    ending = [s for s, hit in ((win, haul.win), (win_x2, haul.win_x2)) if hit]
    grid, refills, screens = _deal(haul.spins, money, size, rng, {last: ending})
    grid[win], grid[win_x2] = WIN, WIN_X2
    refills[-1] = []  # the last spin ends the Prize Game: nothing refills
    _fill_unset(grid, refills, config.prize_amount_weights, config.prize_amounts, rng)
    return tuple(grid), [
        PrizeSpin(colours, wheel, tuple(refill))
        for (wheel, colours), refill in zip(screens, refills, strict=True)
    ]


def _deal(
    spins: Sequence[Sequence[int]],
    squares: Sequence[int],
    size: int,
    rng: random.Random,
    also: dict[int, list[int]] | None = None,
) -> tuple[list[int], list[list[int]], list[tuple[Colour, tuple[Colour, ...]]]]:
    """Each spin's screen and where its items sit.

    For each spin, with one ``randrange``: a uniform wheel colour, uniformly chosen distinct
    squares of ``squares`` for its items (each arrangement equally likely: the first squares of
    a uniform ordering) and a colour drawn uniformly from the other five for every other square
    (``also[spin]`` lists further squares the spin collects, such as a WIN symbol's). Returns the
    starting grid and each spin's refills, with every entry a later collection reads set to what
    it collects and every other entry ``_UNSET``, and each spin's (wheel, colours)."""
    grid = [_UNSET] * size
    holder: list[list[int]] = [grid] * size  # where each square's current item is written
    place = list(range(size))
    refills: list[list[int]] = []
    screens: list[tuple[Colour, tuple[Colour, ...]]] = []
    choices = len(squares)
    others = 5**size
    for number, items in enumerate(spins):
        count = len(items)
        ways = arrangements(choices, count)
        draw = rng.randrange(6 * ways * others)
        draw, wheel = divmod(draw, 6)
        draw, rank = divmod(draw, ways)
        colours = list(skipping_digits(draw, 5, size, wheel))
        refill = [_UNSET] * count
        if count:
            order = arrangement_of(rank, choices, count)
            for position, (square, item) in enumerate(
                sorted(zip([squares[i] for i in order], items, strict=True))
            ):
                holder[square][place[square]] = item
                holder[square] = refill
                place[square] = position
                colours[square] = wheel
        if also:
            for square in also.get(number, ()):
                colours[square] = wheel
        refills.append(refill)
        screens.append((wheel, tuple(colours)))
    return grid, refills, screens


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
