"""The Prize Game as natural play, and natural play conditioned on what it pays, sampled exactly.

A natural Prize Game puts WIN and WIN x2 on two uniformly chosen squares and an amount drawn from
``GameConfig.prize_amount_weights`` on every other square; before each spin every square gets a
uniform colour and the wheel a uniform colour; collected amounts refill from the same weights. Its
outcome depends only on what each spin collects: each of the 14 money squares is collected with
probability 1/6, independently, holding an amount drawn from the weights, and the spin ends the
game when it collects WIN or WIN x2 (each with probability 1/6, independently, so a spin ends it
with probability 11/36; given that it does, WIN x2 is among them 6 times in 11).

So the pot is a sum of amounts drawn one after another, a spin collecting ``Binomial(14, 1/6)``
of them, until a spin ends the game. ``PrizeGameOdds`` holds, for every remaining sum ``r`` (in
units of the smallest amount), the chance that the rest of the game collects exactly ``r``; with
it every draw (how many amounts a spin collects, which amounts, whether the spin ends the game)
is made from its distribution given that the game pays exactly the wanted amount. That is the
Doob transform of the natural process: a Prize Game drawn this way is distributed exactly as a
natural Prize Game conditioned on its pot and on WIN or WIN x2. The chances are computed once, in
double precision (a relative rounding error far below anything a sample could show).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import reduce
from math import comb, gcd

from colour_collector.game.config import GameConfig, Pence
from colour_collector.game.errors import GameError
from colour_collector.game.sampling import binomial, choose, picker_for


class PrizeGameAmountError(GameError, ValueError):
    """No Prize Game pays the amount asked for (not a sum of the grid's amounts)."""


ENDS = 11
"""Of the 36 colourings of WIN and WIN x2 against the wheel, the ones that end the game."""
DOUBLES = 6
"""Of those, the ones that collect WIN x2 (the pot is doubled)."""


@dataclass(frozen=True, slots=True)
class PrizeHaul:
    """A whole Prize Game told by what each spin collected."""

    spins: tuple[tuple[Pence, ...], ...]
    """The amounts each spin collected, in order (the last spin is the one that ends the game)."""
    win: bool
    """Whether the last spin collected WIN."""
    win_x2: bool
    """Whether the last spin collected WIN x2 (the pot is doubled)."""

    @property
    def pot(self) -> Pence:
        """The Prize Pot at the end."""
        return sum(sum(amounts) for amounts in self.spins)

    @property
    def pays(self) -> Pence:
        """What the Prize Game pays."""
        return self.pot * 2 if self.win_x2 else self.pot


def simulate_prize_game(config: GameConfig, rng: random.Random) -> PrizeHaul:
    """A natural Prize Game (its pot may be empty: such a play breaks the rules and natural play
    conditioned on a prize never contains one)."""
    picker = picker_for(config.prize_amount_weights)
    money = config.prize_grid_size - 2
    spins = []
    while True:
        amounts = tuple(
            config.prize_amounts[i] for i in picker.pick_many(rng, binomial(rng, money, 1, 6))
        )
        spins.append(amounts)
        win, win_x2 = rng.randrange(6) == 0, rng.randrange(6) == 0
        if win or win_x2:
            return PrizeHaul(tuple(spins), win, win_x2)


class PrizeGameOdds:
    """For every sum still to collect, the chance that the rest of a natural Prize Game collects
    exactly that, from the start of a spin and from within one; grown on demand."""

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        """The configuration the chances are for."""
        amounts = config.prize_amounts
        self.unit: Pence = reduce(gcd, amounts)
        """The sums are counted in this many pence (the greatest common divisor of the amounts)."""
        total = sum(config.prize_amount_weights)
        self.amounts = tuple(
            (w / total, a // self.unit, a)
            for w, a in zip(config.prize_amount_weights, amounts, strict=True)
        )
        """Each amount's chance, size in units and size in pence."""
        money = config.prize_grid_size - 2
        self.collect = tuple(comb(money, k) * 5 ** (money - k) / 6**money for k in range(money + 1))
        """Chance that a spin collects ``k`` amounts, for each ``k``."""
        self.end = ENDS / 36
        """Chance that a spin ends the game."""
        self.within: list[list[float]] = [[] for _ in range(money + 1)]
        """``within[j][r]``: chance that the rest collects exactly ``r`` when ``j`` more amounts
        of the current spin are still to be collected (``j = 0``: the spin's amounts are in)."""
        self.spin: list[float] = []
        """``spin[r]``: chance that the rest collects exactly ``r`` from the start of a spin."""

    def grow(self, top: int) -> None:
        """Make the chances known for every sum up to ``top`` units."""
        within, spin, collect, end = self.within, self.spin, self.collect, self.end
        stay = 1 - collect[0] * (1 - end)
        for r in range(len(spin), top + 1):
            for j in range(1, len(within)):
                below = within[j - 1]
                within[j].append(sum(p * below[r - u] for p, u, _ in self.amounts if u <= r))
            total = sum(collect[k] * within[k][r] for k in range(1, len(within)))
            if r == 0:
                total += collect[0] * end
            spin.append(total / stay)
            within[0].append((end if r == 0 else 0.0) + (1 - end) * spin[r])

    def chance(self, pot: Pence) -> float:
        """Chance that a natural Prize Game's pot is exactly ``pot``."""
        if pot % self.unit:
            return 0.0
        self.grow(pot // self.unit)
        return self.spin[pot // self.unit]

    def doubled_chance(self, pays: Pence) -> tuple[float, float]:
        """Chances that a natural Prize Game pays ``pays`` on WIN, and on WIN x2."""
        on_win = (ENDS - DOUBLES) / ENDS * self.chance(pays)
        on_x2 = DOUBLES / ENDS * self.chance(pays // 2) if pays % 2 == 0 else 0.0
        return on_win, on_x2

    def sample(self, pays: Pence, rng: random.Random) -> PrizeHaul:
        """A natural Prize Game conditioned on paying exactly ``pays``."""
        on_win, on_x2 = self.doubled_chance(pays)
        if pays <= 0 or on_win + on_x2 <= 0:
            raise PrizeGameAmountError(f"no Prize Game pays {pays!r} pence")
        doubled = choose(rng, (on_win, on_x2)) == 1
        left = (pays // 2 if doubled else pays) // self.unit
        within, spin = self.within, self.spin
        spins: list[tuple[Pence, ...]] = []
        while True:
            k = choose(rng, [c * within[j][left] for j, c in enumerate(self.collect)])
            amounts = []
            for j in range(k, 0, -1):
                below = within[j - 1]
                weights = [p * below[left - u] if u <= left else 0.0 for p, u, _ in self.amounts]
                _, u, pence = self.amounts[choose(rng, weights)]
                amounts.append(pence)
                left -= u
            spins.append(tuple(amounts))
            ends = self.end if left == 0 else 0.0
            if choose(rng, (ends, (1 - self.end) * spin[left])) == 0:
                break
        win = not doubled or rng.randrange(6) == 0
        return PrizeHaul(tuple(spins), win, doubled)


_odds: dict[int, tuple[GameConfig, PrizeGameOdds]] = {}


def prize_game_odds(config: GameConfig) -> PrizeGameOdds:
    """The shared ``PrizeGameOdds`` of ``config`` (one a process)."""
    held = _odds.get(id(config))
    if held is None or held[0] is not config:  # the entry keeps its config alive: ids stay true
        held = _odds[id(config)] = (config, PrizeGameOdds(config))
    return held[1]


def adopt_odds(odds: PrizeGameOdds) -> None:
    """Share ``odds`` (made by this program, for ``odds.config``) as its configuration's odds."""
    _odds[id(odds.config)] = (odds.config, odds)
