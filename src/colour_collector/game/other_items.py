"""The other items a Main Game collects, given its skeleton, conditioned on a target.

Given a skeleton (``skeleton.Skeleton``: the Bonus symbols each spin collected and the Bonus
Games) whose Bonus Games place no Symbols, what the play comes to is decided by how many of each
other item it collects over all its spins, and nothing else. Each of the ``m`` squares a spin
did not collect a Bonus symbol from is collected holding another item with chance
``(66/486) / (1 - 15/486)`` independently, that item drawn from the natural weights of the eight
other items. So, exactly:

- the chance that the other items bring the target about is ``sum over n`` of
  ``Binomial(m, 66/471)(n)`` times the chance that ``n`` items drawn from the weights meet it
  (every row of the target complete, every other row not, the Prize Game Box full exactly when
  it should be, counting the Prize Game symbols the Bonus Games added): ``chance``;
- drawing them conditioned on that is drawing ``n``, then the counts of each item, in proportion
  to those terms, and then which of the ``m`` squares hold them, uniformly: ``fill``.

Counts above ``MOST_ITEMS`` (a chance below 10**-40 for any play a Main Game can have) are left out.
"""

from __future__ import annotations

import random
from fractions import Fraction
from math import factorial

from colour_collector.game.config import GameConfig
from colour_collector.game.natural import MainHaul
from colour_collector.game.outcome import MainTarget
from colour_collector.game.record import Item
from colour_collector.game.sampling import choose_scanning, power
from colour_collector.game.skeleton import Skeleton, with_others

MOST_ITEMS = 160
"""Other items a Main Game is counted up to."""


class OtherItems:
    """For one target: the chance a skeleton's other items bring it about, and a draw of them."""

    def __init__(self, config: GameConfig, target: MainTarget) -> None:
        self.cfg = config
        self.target = target
        weights = config.item_weights
        total = sum(weights)
        bonus = weights[config.bonus_item]
        other = total - bonus
        squares = Fraction(1, 6)
        self.collect = float(
            squares * Fraction(other, total) / (1 - squares * Fraction(bonus, total))
        )
        """Chance that a square not holding a collected Bonus symbol is collected."""
        self.rows = list(range(config.shapes))
        shares = [weights[r] / other for r in self.rows]
        self.prize_share = weights[config.prize_game_item] / other
        top = MOST_ITEMS
        self.row_terms = tuple(
            tuple(power(p, n) / factorial(n) for n in range(top + 1)) for p in shares
        )
        self.prize_terms = tuple(power(self.prize_share, n) / factorial(n) for n in range(top + 1))
        allowed = []
        for r in self.rows:
            boxes = config.prize_table[r].boxes
            allowed.append([(n >= boxes) == (r in target.rows) for n in range(top + 1)])
        self.allowed = tuple(tuple(line) for line in allowed)
        # rest[i][k]: over rows i.. with counts adding up to k that meet the target, the sum of
        # prod share**n / n!.
        rest = [[0.0] * (top + 1) for _ in range(len(self.rows) + 1)]
        rest[-1][0] = 1.0
        for i in range(len(self.rows) - 1, -1, -1):
            terms, ok, below = self.row_terms[i], allowed[i], rest[i + 1]
            rest[i] = [
                sum(terms[n] * below[k - n] for n in range(k + 1) if ok[n]) for k in range(top + 1)
            ]
        self.rest = tuple(tuple(line) for line in rest)
        self._meets: dict[int, tuple[float, ...]] = {}
        self._chances: dict[tuple[int, int], float] = {}
        self._most: float | None = None

    def _prize_allowed(self, prize_symbols: int, n: int) -> bool:
        return (n + prize_symbols >= self.cfg.prize_game_box) == self.target.unlocked

    def _meets_given(self, prize_symbols: int) -> tuple[float, ...]:
        """``meets[k]``: chance that ``k`` other items meet the target, over ``k!``."""
        held = self._meets.get(prize_symbols)
        if held is None:
            rows = self.rest[0]
            held = tuple(
                sum(
                    self.prize_terms[n] * rows[k - n]
                    for n in range(k + 1)
                    if self._prize_allowed(prize_symbols, n)
                )
                for k in range(MOST_ITEMS + 1)
            )
            self._meets[prize_symbols] = held
        return held

    @property
    def most(self) -> float:
        """The largest chance any number of other items has of meeting the target, whatever the
        Bonus Games added to the Prize Game Box: no skeleton's ``chance`` exceeds it."""
        if self._most is None:
            self._most = max(
                factorial(k) * value
                for symbols in range(self.cfg.prize_game_box + 1)
                for k, value in enumerate(self._meets_given(symbols))
            )
        return self._most

    def _counts(self, squares: int) -> list[float]:
        """Chance of each number of other items collected from ``squares`` squares (up to
        MOST_ITEMS)."""
        p = self.collect
        out = [power(1 - p, squares)]
        for n in range(min(squares, MOST_ITEMS)):
            out.append(out[-1] * (squares - n) / (n + 1) * p / (1 - p))
        return out

    def chance(self, skeleton: Skeleton) -> float:
        """Chance that a skeleton's other items bring the target about (its Bonus Games must
        place no Symbols)."""
        return self.chance_for(skeleton.squares(self.cfg), skeleton.prize_symbols)

    def chance_for(self, squares: int, prize_symbols: int) -> float:
        """Chance that the other items of ``squares`` squares bring the target about, the Bonus
        Games having added ``prize_symbols`` Prize Game symbols."""
        key = (squares, prize_symbols)
        held = self._chances.get(key)
        if held is None:
            meets = self._meets_given(prize_symbols)
            held = sum(c * factorial(k) * meets[k] for k, c in enumerate(self._counts(squares)))
            self._chances[key] = held
        return held

    def fill(self, skeleton: Skeleton, rng: random.Random) -> MainHaul:
        """The Main Game of ``skeleton`` with its other items drawn conditioned on the target."""
        cfg = self.cfg
        size = cfg.grid_size
        squares = skeleton.squares(cfg)
        meets = self._meets_given(skeleton.prize_symbols)
        total = self.chance(skeleton)
        count = choose_scanning(
            rng,
            total,
            ((k, c * factorial(k) * meets[k]) for k, c in enumerate(self._counts(squares))),
        )
        items: list[Item] = []
        rows = self.rest[0]
        prize = choose_scanning(
            rng,
            meets[count],
            (
                (n, self.prize_terms[n] * rows[count - n])
                for n in range(count + 1)
                if self._prize_allowed(skeleton.prize_symbols, n)
            ),
        )
        items.extend([cfg.prize_game_item] * prize)
        left = count - prize
        for i, row in enumerate(self.rows):
            terms, ok, below = self.row_terms[i], self.allowed[i], self.rest[i + 1]
            n = choose_scanning(
                rng,
                self.rest[i][left],
                ((n, terms[n] * below[left - n]) for n in range(left + 1) if ok[n]),
            )
            items.extend([row] * n)
            left -= n
        # Which squares hold them: distinct squares in uniform order, items in a fixed order.
        chosen = rng.sample(range(squares), count)
        ends = []
        running = 0
        for b in skeleton.bonus:
            running += size - b
            ends.append(running)
        others: list[list[Item]] = [[] for _ in skeleton.bonus]
        for square, item in zip(chosen, items, strict=True):
            spin = 0
            while square >= ends[spin]:
                spin += 1
            others[spin].append(item)
        return with_others(skeleton, others, cfg)
