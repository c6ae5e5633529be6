"""Builds a Prize Game that pays a given amount.

The WIN and WIN x2 symbols are coloured, and the wheel stops, exactly as in a natural Prize Game
kept only when it ends the planned way (on WIN, or on WIN x2 for a doubled pot). The pot is split
into amounts placed on the starting grid; each is collected on a spin chosen at random. Squares
the play never collects hold amounts drawn from the natural weights, and refills are drawn the
same way; only the planned amounts ever share the wheel's colour.
"""

from __future__ import annotations

import random

from colour_collector.game.config import GameConfig, Pence
from colour_collector.game.record import WIN, WIN_X2, Item, PrizeSpin
from colour_collector.game.sampling import WeightedPicker, other_colour

MAX_PARTS = 10
"""Most amounts a pot is split into (the grid must hold them all with both WIN symbols)."""


def split_pot(pot: Pence, amounts: tuple[Pence, ...], rng: random.Random) -> list[Pence]:
    """Grid amounts that add up to ``pot``: random, leaning to larger amounts, at most MAX_PARTS."""
    for _ in range(20):
        parts: list[Pence] = []
        left = pot
        while left > 0 and len(parts) < MAX_PARTS:
            fitting = [a for a in amounts if a <= left]
            if not fitting:
                break
            large = [a for a in fitting if a * 6 >= left] or fitting[-1:]
            part = large[rng.randrange(len(large))]
            parts.append(part)
            left -= part
        if left == 0:
            return parts
    parts, left = [], pot
    for amount in reversed(amounts):
        while amount <= left:
            parts.append(amount)
            left -= amount
    if left or len(parts) > MAX_PARTS:
        raise ValueError(f"the pot {pot!r} cannot be made from {amounts!r}")
    return parts


def build_prize_game(
    config: GameConfig, pays: Pence, doubled: bool, rng: random.Random
) -> tuple[tuple[Item, ...], list[PrizeSpin]]:
    """A Prize Game grid and spins that pay ``pays`` (ending on WIN x2 when ``doubled``)."""
    if pays <= 0 or (doubled and pays % 2):
        raise ValueError(f"a Prize Game cannot pay {pays!r} (doubled={doubled!r})")
    pot = pays // 2 if doubled else pays
    parts = split_pot(pot, config.prize_amounts, rng)
    symbol_colours = _symbol_colours(rng, doubled)
    spins = len(symbol_colours)
    # Each planned amount is collected on a spin chosen uniformly; a spin may collect none, as
    # natural spins sometimes do (the pot is never empty: every amount is collected by the end).
    groups: list[list[Item]] = [[] for _ in range(spins)]
    for amount in parts:
        groups[rng.randrange(spins)].append(amount)
    size = config.prize_grid_size
    decoy = WeightedPicker(config.prize_amount_weights)
    squares = list(range(size))
    rng.shuffle(squares)
    win_square, x2_square = squares.pop(), squares.pop()
    grid: list[Item] = [config.prize_amounts[decoy.pick(rng)] for _ in range(size)]
    grid[win_square], grid[x2_square] = WIN, WIN_X2
    group_squares: list[set[int]] = []
    for group in groups:
        group_squares.append(set())
        for amount in group:
            place = squares.pop()
            grid[place] = amount
            group_squares[-1].add(place)
    start = tuple(grid)
    steps = []
    for number, places in enumerate(group_squares):
        win_colour, x2_colour, wheel = symbol_colours[number]
        colours = [
            wheel if square in places else other_colour(rng, wheel) for square in range(size)
        ]
        colours[win_square], colours[x2_square] = win_colour, x2_colour
        refill: tuple[Item, ...] = ()
        if number < spins - 1:
            refill = tuple(config.prize_amounts[decoy.pick(rng)] for _ in sorted(places))
            for square, item in zip(sorted(places), refill, strict=True):
                grid[square] = item
        steps.append(PrizeSpin(tuple(colours), wheel, refill))
    return start, steps


def _symbol_colours(rng: random.Random, doubled: bool) -> list[tuple[int, int, int]]:
    """The colours of WIN and WIN x2 and the wheel's stop for every spin, as a natural Prize Game
    draws them (all three uniform and independent each spin; the game ends on the first spin
    whose wheel matches either symbol, doubled if it matches WIN x2), kept only when it ends the
    planned way. Nothing about the symbols' colours then tells whether a spin will end the game.
    """
    while True:
        spins = []
        while True:
            win, x2, wheel = rng.randrange(6), rng.randrange(6), rng.randrange(6)
            spins.append((win, x2, wheel))
            if wheel in (win, x2):
                break
        if (x2 == wheel) == doubled:
            return spins
