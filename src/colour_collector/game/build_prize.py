"""Builds a Prize Game that pays a given amount.

The pot is split into amounts that appear on the grid; each spin before the last collects one group
of them; the last spin collects the WIN (or WIN x2) symbol, with any last group of amounts. Squares
the play never collects hold amounts drawn from the natural weights, and refills are drawn the same
way; only the planned squares ever share the wheel's colour.
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
    rng.shuffle(parts)
    spins = 1
    while spins < 6 and rng.randrange(3) != 0:  # each spin ends the game with chance about 1/3
        spins += 1
    spins = min(spins, len(parts) + 1)
    # Groups for the spins before the last are non-empty; the last spin may collect only WIN.
    cuts = sorted(rng.sample(range(1, len(parts) + 1), spins - 1))
    bounds = [0, *cuts]
    groups = [parts[a:b] for a, b in zip(bounds, [*cuts, len(parts)], strict=True)]
    if len(groups) < spins:
        groups.append([])
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
    ender = x2_square if doubled else win_square
    steps = []
    for number, places in enumerate(group_squares):
        last = number == len(group_squares) - 1
        wheel = rng.randrange(6)
        hit = places | {ender} if last else places
        colours = tuple(
            wheel if square in hit else other_colour(rng, wheel) for square in range(size)
        )
        refill: tuple[Item, ...] = ()
        if not last:
            refill = tuple(config.prize_amounts[decoy.pick(rng)] for _ in sorted(places))
            for square, item in zip(sorted(places), refill, strict=True):
                grid[square] = item
        steps.append(PrizeSpin(colours, wheel, refill))
    return start, steps
