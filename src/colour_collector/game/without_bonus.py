"""Natural Main Games without a Bonus Game, conditioned on their rows and Prize Game, exactly.

A Main Game with no Bonus Game has exactly the starting spins (no extra spins, no boosts, no added
Symbols), and it has none exactly when it collects at most five Bonus symbols in all. Its 6 x 20
(spin, square) slots are then independent: each is collected holding a Bonus symbol (15/486),
collected holding another item (66/486) or not collected. What the play comes to depends only on
how many of each item it collects, so natural play without a Bonus Game conditioned on a target
is drawn exactly by:

1. the numbers of Bonus symbols ``b <= 5`` and of other items ``n``, with their natural chance
   times the chance that ``n`` items drawn from the natural weights meet the target (each row of
   the target complete, every other row not, the Prize Game Box full exactly when it should be);
2. those items' counts by kind, from their natural chances given that they meet the target;
3. which slots hold them: every arrangement is equally likely given the counts.

``chance`` is the exact (double precision) chance that a natural Main Game has no Bonus Game and
comes to the target.
"""

from __future__ import annotations

import random
from itertools import accumulate
from math import comb, factorial

from colour_collector.game.config import GameConfig
from colour_collector.game.natural import MainHaul, SpinHaul
from colour_collector.game.outcome import MainTarget
from colour_collector.game.record import Item
from colour_collector.game.sampling import choose_cumulative, choose_scanning, power


class WithoutBonus:
    """The exact sampler of natural Main Games with no Bonus Game that come to ``target``."""

    def __init__(self, config: GameConfig, target: MainTarget) -> None:
        if target.level not in (None, 0):
            raise ValueError(f"a Main Game without a Bonus Game ends on level 0, not {target!r}")
        self.cfg = config
        self.target = target
        weights = config.item_weights
        total = sum(weights)
        bonus_weight = weights[config.bonus_item]
        self.kinds: list[Item] = [*range(config.shapes), config.prize_game_item]
        """The items other than the Bonus symbol."""
        other_weight = total - bonus_weight
        share = [weights[k] / other_weight for k in self.kinds]
        slots = config.starting_spins * config.grid_size
        self.slots = slots
        """(spin, square) slots of a Main Game with no Bonus Game."""
        p_bonus = bonus_weight / (total * 6)
        p_other = other_weight / (total * 6)
        p_none = 1 - (bonus_weight + other_weight) / (total * 6)
        # allowed[i]: the counts of kind i that meet the target.
        allowed = []
        for kind in self.kinds:
            if kind < config.shapes:
                boxes = config.prize_table[kind].boxes
                wanted = kind in target.rows
                allowed.append([wanted == (n >= boxes) for n in range(slots + 1)])
            else:
                full = config.prize_game_box
                allowed.append([target.unlocked == (n >= full) for n in range(slots + 1)])
        # rest[i][m]: sum over counts of kinds i.. adding up to m, meeting the target, of
        # prod share**n / n! (so that m! * rest[0][m] is the chance m items meet the target).
        rest = [[0.0] * (slots + 1) for _ in range(len(self.kinds) + 1)]
        rest[-1][0] = 1.0
        self.terms: list[list[float]] = []
        """``terms[i][n]``: ``share_i ** n / n!``."""
        for i in range(len(self.kinds) - 1, -1, -1):
            terms = [power(share[i], n) / factorial(n) for n in range(slots + 1)]
            self.terms.insert(0, terms)
            for m in range(slots + 1):
                rest[i][m] = sum(
                    terms[n] * rest[i + 1][m - n] for n in range(m + 1) if allowed[i][n]
                )
        self.rest = rest
        self.allowed = allowed
        box = config.bonus_box
        self.counts: list[tuple[int, int]] = []
        """Each (Bonus symbols, other items) a play of the target can collect."""
        leans: list[float] = []
        for b in range(box):
            for n in range(slots - b + 1):
                meets = factorial(n) * rest[0][n]
                if meets <= 0:
                    continue
                chance = (
                    comb(slots, b)
                    * comb(slots - b, n)
                    * power(p_bonus, b)
                    * power(p_other, n)
                    * power(p_none, slots - b - n)
                )
                self.counts.append((b, n))
                leans.append(chance * meets)
        self.cumulative = list(accumulate(leans))
        """Running totals of the chance of each of ``counts`` together with meeting the target."""
        self.chance = self.cumulative[-1] if leans else 0.0
        """The chance that a natural Main Game has no Bonus Game and comes to the target."""

    def sample(self, rng: random.Random) -> MainHaul:
        """A natural Main Game with no Bonus Game conditioned on coming to the target."""
        cfg = self.cfg
        bonus, others = self.counts[choose_cumulative(rng, self.cumulative)]
        items: list[Item] = []
        left = others
        for i, kind in enumerate(self.kinds):
            below = self.rest[i + 1]
            terms, allowed = self.terms[i], self.allowed[i]
            n = choose_scanning(
                rng,
                self.rest[i][left],
                ((n, terms[n] * below[left - n]) for n in range(left + 1) if allowed[n]),
            )
            items.extend([kind] * n)
            left -= n
        # Which slots: a uniform choice of distinct slots in uniform order (so the items, in
        # any fixed order, land on a uniform arrangement).
        chosen = rng.sample(range(self.slots), bonus + others)
        got: list[list[Item]] = [[] for _ in range(cfg.starting_spins)]
        size = cfg.grid_size
        for slot, item in zip(chosen, [cfg.bonus_item] * bonus + items, strict=True):
            got[slot // size].append(item)
        counts = [0] * cfg.shapes
        prize_symbols = 0
        for item in items:
            if item < cfg.shapes:
                counts[item] += 1
            else:
                prize_symbols += 1
        filled = tuple(min(n, row.boxes) for n, row in zip(counts, cfg.prize_table, strict=True))
        spins = tuple(SpinHaul(tuple(spin), ()) for spin in got)
        return MainHaul(spins, filled, 0, prize_symbols >= cfg.prize_game_box)
