"""Natural Main Games conditioned on the level their Bonus Games leave, sampled exactly.

The level a Main Game ends on depends only on its *skeleton*: how many Bonus symbols each spin
collects, and how many levels and extra spins each Bonus Game awards. The skeleton is a small
Markov chain (spins left, Bonus Game Box, boosts, whether a Bonus Game has been played):

- a spin collects ``Binomial(20, 15/486)`` Bonus symbols (each square is collected with chance
  1/6 and holds a Bonus symbol with chance 15/81, independently);
- a full box starts a Bonus Game, which awards ``D`` levels and ``X`` extra spins with the
  chances ``bonus_effects`` works out exactly from the natural Bonus Game.

``LevelOdds`` holds, for every skeleton state, the chance ``h`` that the play ends on a wanted
level (a ``LevelWanted``). Drawing every step of the skeleton with its natural chance times ``h``
of where it leads, over ``h`` of where it is (the Doob transform), draws the skeleton exactly as
natural play conditioned on the level; each Bonus Game is then drawn exactly as a natural Bonus
Game conditioned on awarding the ``D`` and ``X`` chosen. Everything else in the play (the other
items collected, added Symbols, Prize Game symbols) does not touch the skeleton and is drawn
naturally, so the whole Main Game is natural play conditioned on the level.

The chances are computed in double precision by value iteration until nothing changes; spins
beyond ``SPINS_KNOWN`` and more than ``EXTRA_WINS_KNOWN`` EXTRA SPINS wins in one Bonus Game are
not told apart (natural play reaches either far less than once in 10**15 plays).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from colour_collector.game.config import COUNTED_KINDS, SYMBOL_KINDS, BonusKind, GameConfig
from colour_collector.game.natural import (
    KINDS,
    BonusGamePlay,
    MainHaul,
    SpinHaul,
    place_uniformly,
)
from colour_collector.game.record import BonusPrize, BonusRound, Item
from colour_collector.game.sampling import choose, choose_scanning, picker_for

SPINS_KNOWN = 30
"""Spins left beyond this many are looked up as this many."""
EXTRA_WINS_KNOWN = 24
"""EXTRA SPINS wins in one Bonus Game beyond this many are not told apart."""
BOOSTS_KNOWN = 4
"""Boosts are counted up to this many (4: more than the top level)."""
SETTLED = 1e-15
"""Value iteration stops when no chance changes by more than this."""
NEGLIGIBLE = 1e-16
"""Chances below this (of a spin's Bonus symbols, of a Bonus Game's effect) are left out."""


@dataclass(frozen=True, slots=True)
class LevelWanted:
    """Which ends of the skeleton count: the boosts won and whether a Bonus Game was played."""

    boosts: frozenset[int]
    """Wanted boost totals, each counted up to ``BOOSTS_KNOWN``."""
    played: bool
    """Whether at least one Bonus Game must be played (always true when boosts are wanted)."""

    @staticmethod
    def level(level: int, config: GameConfig) -> LevelWanted:
        """The Prize Table ends on ``level`` (level 0: with at least one Bonus Game)."""
        top = config.max_level
        boosts = frozenset(range(top, BOOSTS_KNOWN + 1)) if level >= top else frozenset({level})
        return LevelWanted(boosts, True)

    def accepts(self, boosts: int, played: bool) -> bool:
        """Whether a skeleton that ends with ``boosts`` and ``played`` counts."""
        return min(boosts, BOOSTS_KNOWN) in self.boosts and (played or not self.played)


@dataclass(frozen=True, slots=True)
class PanelKind:
    """What of a Bonus Game panel touches the skeleton: the kind left out and the EXTRA SPINS
    prize's number (0 if that prize is left out)."""

    omitted: BonusKind
    """The kind not on the panel."""
    extra: int
    """Spins the EXTRA SPINS prize carries."""


def _effect_steps(config: GameConfig, omitted: BonusKind) -> list[tuple[int, int]]:
    """For each kind on a panel leaving out ``omitted``: (levels, EXTRA SPINS wins) one win adds."""
    steps = []
    for kind in KINDS:
        if kind is omitted:
            continue
        extra = 1 if kind is BonusKind.EXTRA_SPINS else 0
        steps.append((config.bonus_prizes[kind].boost, extra))
    return steps


def effect_chances(config: GameConfig, omitted: BonusKind) -> dict[tuple[int, int], float]:
    """For a panel leaving out ``omitted``: the chance a natural Bonus Game wins ``d`` levels
    (up to BOOSTS_KNOWN) and ``n`` EXTRA SPINS rounds (up to EXTRA_WINS_KNOWN)."""
    steps = _effect_steps(config, omitted)
    share = 1 / (2 * len(steps))  # a round is won (1/2) and highlights this prize (1/7)
    dist = {(0, 0): 1.0}
    ended: dict[tuple[int, int], float] = {}
    while sum(dist.values()) > NEGLIGIBLE:  # the mass still playing halves each round
        grown: dict[tuple[int, int], float] = {}
        for (d, n), chance in dist.items():
            ended[(d, n)] = ended.get((d, n), 0.0) + chance / 2
            for boost, extra in steps:
                key = (min(BOOSTS_KNOWN, d + boost), min(EXTRA_WINS_KNOWN, n + extra))
                grown[key] = grown.get(key, 0.0) + chance * share
        dist = grown
    return ended


class LevelOdds:
    """``h``: for each skeleton state, the chance the play ends as ``wanted``; and the exact
    sampler of natural Main Games conditioned on it."""

    def __init__(self, config: GameConfig, wanted: LevelWanted) -> None:
        self.cfg = config
        self.wanted = wanted
        total = sum(config.item_weights)
        bonus_share = Fraction(config.item_weights[config.bonus_item], total)
        squares = config.grid_size
        per_square = bonus_share / 6
        self.bonus_count = [
            float(comb(squares, k) * per_square**k * (1 - per_square) ** (squares - k))
            for k in range(squares + 1)
        ]
        """Chance that a spin collects each number of Bonus symbols."""
        # Given the Bonus symbols, each other square is collected holding a non-Bonus item
        # with chance (66/486) / (1 - 15/486).
        other = (Fraction(1, 6) - per_square) / (1 - per_square)
        self.other_count = [
            [float(comb(n, k) * other**k * (1 - other) ** (n - k)) for k in range(n + 1)]
            for n in range(squares + 1)
        ]
        """``other_count[n][k]``: chance that ``k`` of ``n`` squares not holding a collected
        Bonus symbol are collected (holding something else)."""
        self.panels: list[tuple[float, PanelKind, dict[tuple[int, int], float]]] = []
        """Each kind of panel: its chance, what it is, and its effect chances."""
        extra = config.bonus_prizes[BonusKind.EXTRA_SPINS]
        spins_values = range(extra.minimum, extra.maximum + 1)
        for omitted in KINDS:
            effects = effect_chances(config, omitted)
            if omitted is BonusKind.EXTRA_SPINS:
                self.panels.append((1 / len(KINDS), PanelKind(omitted, 0), effects))
                continue
            for value in spins_values:
                chance = 1 / len(KINDS) / len(spins_values)
                self.panels.append((chance, PanelKind(omitted, value), effects))
        summed: dict[tuple[int, int], float] = {}
        for chance, panel, effects in self.panels:
            for (d, n), c in effects.items():
                key = (d, n * panel.extra)
                summed[key] = summed.get(key, 0.0) + chance * c
        self.effects = sorted(summed.items())
        """``((levels, extra spins), chance)`` of one natural Bonus Game."""
        self.box = config.bonus_box
        self._solve()

    # -- the chances ---------------------------------------------------------------------------

    def _solve(self) -> None:
        """``after[played][boosts][box][spins]`` is ``h`` just after a spin's collection (a box of
        six or more: its Bonus Games still to play). Worked out by Gauss-Seidel sweeps, spins
        upwards, until no value changes by more than SETTLED: within a sweep every value is
        final but for those reached through extra spins, which the next sweep corrects."""
        wanted = self.wanted
        size = self.box
        top = max(wanted.boosts) + 1 if max(wanted.boosts) < BOOSTS_KNOWN else BOOSTS_KNOWN
        self.top = top
        """Boosts are counted up to this many (more do not change whether the end counts)."""
        self.counts = [(k, c) for k, c in enumerate(self.bonus_count) if c > NEGLIGIBLE]
        """The numbers of Bonus symbols a spin can collect (chance above NEGLIGIBLE)."""
        self.effects = sorted(
            (((d, x), c) for (d, x), c in self.effects if c > NEGLIGIBLE), key=lambda e: -e[1]
        )
        effects = [(d, x, c) for (d, x), c in self.effects]
        top_box = size - 1 + self.counts[-1][0]
        spins = SPINS_KNOWN + 1
        # Whether a Bonus Game was played matters only when no boost is wanted.
        planes = 2 if wanted.played and 0 in wanted.boosts else 1
        ends = [[1.0 if wanted.accepts(b, p == planes - 1) else 0.0 for b in range(top + 1)] for p in range(planes)]
        after = [[[[ends[p][b]] * spins for _ in range(top_box + 1)] for b in range(top + 1)] for p in range(planes)]
        played_plane = planes - 1
        for _ in range(200):
            change = 0.0
            for s in range(spins):
                for p in range(planes):
                    for b in range(top + 1):
                        lines = after[p][b]
                        if s:
                            for box in range(size):
                                value = sum(c * lines[box + k][s - 1] for k, c in self.counts)
                                change = max(change, abs(value - lines[box][s]))
                                lines[box][s] = value
                for p in range(planes):
                    for b in range(top + 1):
                        lines = after[p][b]
                        for box in range(size, top_box + 1):
                            below = box - size
                            value = 0.0
                            for d, x, c in effects:
                                value += c * after[played_plane][min(top, b + d)][below][min(SPINS_KNOWN, s + x)]
                            change = max(change, abs(value - lines[box][s]))
                            lines[box][s] = value
            if change <= SETTLED:
                break
        if planes == 1:
            after = [after[0], after[0]]
        self.after = after
        """``after[played][boosts][box][spins]``."""

    def after_spin(self, spins: int, box: int, boosts: int, played: int) -> float:
        """``h`` just after a spin's collection, its Bonus Games still to play."""
        return self.after[played][min(boosts, self.top)][box][min(spins, SPINS_KNOWN)]

    @property
    def chance(self) -> float:
        """The chance that a natural Main Game ends as wanted."""
        return self.after_spin(self.cfg.starting_spins, 0, 0, 0)

    # -- the sampler ---------------------------------------------------------------------------

    def sample(
        self, rng: random.Random, give_up: Callable[[list[int], bool], bool] | None = None
    ) -> MainHaul | None:
        """A natural Main Game conditioned on ending as wanted, or None as soon as
        ``give_up(filled, unlocked)`` (a condition that can only get worse) says it is of no use."""
        cfg = self.cfg
        shapes = cfg.shapes
        boxes = [row.boxes for row in cfg.prize_table]
        others = picker_for(tuple(cfg.item_weights[:shapes]) + (cfg.item_weights[cfg.prize_game_item],))
        prize_item = cfg.prize_game_item
        full = cfg.prize_game_box
        filled = [0] * shapes
        box = boosts = played = prize_box = 0
        spins_left = cfg.starting_spins
        spins: list[SpinHaul] = []
        squares = cfg.grid_size
        while spins_left > 0:
            spins_left -= 1
            before = self.after_spin(spins_left + 1, box, boosts, played)
            bonus = choose_scanning(
                rng,
                before,
                ((k, c * self.after_spin(spins_left, box + k, boosts, played)) for k, c in self.counts),
            )
            count = choose(rng, self.other_count[squares - bonus])
            drawn = others.pick_many(rng, count)
            items: list[Item] = [cfg.bonus_item] * bonus
            for code in drawn:
                item = code if code < shapes else prize_item
                items.append(item)
                if item < shapes:
                    if filled[item] < boxes[item]:
                        filled[item] += 1
                elif prize_box < full:
                    prize_box += 1
            box += bonus
            games: list[BonusGamePlay] = []
            while box >= self.box:
                box -= self.box
                due = self.after_spin(spins_left, box + self.box, boosts, played)
                pick = choose_scanning(
                    rng,
                    due,
                    (
                        (i, c * self.after_spin(spins_left + x, box, boosts + d, 1))
                        for i, ((d, x), c) in enumerate(self.effects)
                    ),
                )
                (levels, extra), _ = self.effects[pick]
                game = self._bonus_game(levels, extra, filled, rng)
                games.append(game)
                played = 1
                for round_ in game.rounds:
                    if not round_.won:
                        continue
                    prize = game.panel[round_.prize]
                    kind = prize.kind
                    if kind is BonusKind.EXTRA_SPINS:
                        spins_left += prize.value
                    elif kind in SYMBOL_KINDS:
                        for row in round_.rows:
                            filled[row] += 1
                    elif kind is BonusKind.PRIZE_GAME_SYMBOLS:
                        prize_box = min(full, prize_box + prize.value)
                    elif kind is BonusKind.UNLOCK_PRIZE_GAME:
                        prize_box = full
                    else:
                        boosts += cfg.bonus_prizes[kind].boost
            spins.append(SpinHaul(tuple(items), tuple(games)))
            if give_up is not None and give_up(filled, prize_box >= full):
                return None
        return MainHaul(tuple(spins), tuple(filled), boosts, prize_box >= full)

    def _bonus_game(
        self, levels: int, extra: int, filled: list[int], rng: random.Random
    ) -> BonusGamePlay:
        """A natural Bonus Game conditioned on winning ``levels`` (counted up to BOOSTS_KNOWN) and
        ``extra`` extra spins, its Symbols placed in ``filled``'s free boxes."""
        cfg = self.cfg
        # The panel: which kind is left out and the EXTRA SPINS prize's number, in proportion
        # to their chance times the chance of this effect with them.
        leans = []
        for chance, panel, effects in self.panels:
            if panel.extra:
                wins, rest = divmod(extra, panel.extra)
                c = effects.get((levels, wins), 0.0) if rest == 0 else 0.0
            else:
                c = effects.get((levels, 0), 0.0) if extra == 0 else 0.0
            leans.append(chance * c)
        _, panel_kind, _ = self.panels[choose(rng, leans)]
        wins = extra // panel_kind.extra if panel_kind.extra else 0
        kinds = [k for k in KINDS if k is not panel_kind.omitted]
        rng.shuffle(kinds)
        prizes = []
        for kind in kinds:
            spec = cfg.bonus_prizes[kind]
            if kind is BonusKind.EXTRA_SPINS:
                value = panel_kind.extra
            elif kind in COUNTED_KINDS:
                value = rng.randint(spec.minimum, spec.maximum)
            else:
                value = 0
            prizes.append(BonusPrize(kind, value))
        panel = tuple(prizes)
        # The rounds: each is lost with chance 1/2 or wins a prize with chance 1/14, weighted by
        # the chance of ending on exactly (levels, wins) from where it leads.
        reach = self._reach(panel, levels, wins)
        size = len(panel)
        boxes = [row.boxes for row in cfg.prize_table]
        pending = list(filled)
        rounds = []
        d = n = 0
        while True:
            options = [0.5 if (d, n) == (levels, wins) else 0.0]
            for prize in panel:
                nd = min(BOOSTS_KNOWN, d + cfg.bonus_prizes[prize.kind].boost)
                nn = n + (prize.kind is BonusKind.EXTRA_SPINS)
                options.append(reach.get((nd, nn), 0.0) / (2 * size))
            pick = choose(rng, options)
            if pick == 0:
                rounds.append(BonusRound(rng.randrange(size), False))
                return BonusGamePlay(panel, tuple(rounds))
            prize = panel[pick - 1]
            rows: tuple[int, ...] = ()
            if prize.kind in SYMBOL_KINDS:
                rows = place_uniformly(prize.value, pending, boxes, rng)
            rounds.append(BonusRound(pick - 1, True, rows=rows))
            d = min(BOOSTS_KNOWN, d + cfg.bonus_prizes[prize.kind].boost)
            n += prize.kind is BonusKind.EXTRA_SPINS

    def _reach(self, panel: tuple[BonusPrize, ...], levels: int, wins: int) -> dict[tuple[int, int], float]:
        """For each (levels, EXTRA SPINS wins) so far, the chance that the rest of a natural Bonus
        Game with ``panel`` ends on exactly (``levels``, ``wins``)."""
        steps = [
            (self.cfg.bonus_prizes[p.kind].boost, int(p.kind is BonusKind.EXTRA_SPINS)) for p in panel
        ]
        share = 1 / (2 * len(steps))
        still = sum(share for boost, extra in steps if boost == 0 and extra == 0)
        reach: dict[tuple[int, int], float] = {}
        for n in range(wins, -1, -1):
            for d in range(BOOSTS_KNOWN, -1, -1):
                if d > levels:
                    continue
                total = 0.5 if (d, n) == (levels, wins) else 0.0
                for boost, extra in steps:
                    if boost == 0 and extra == 0:
                        continue
                    nd, nn = min(BOOSTS_KNOWN, d + boost), n + extra
                    if (nd, nn) == (d, n):  # boosts past the cap change nothing
                        continue
                    total += share * reach.get((nd, nn), 0.0)
                # Prizes that change neither (and boosts at the cap) keep the game where it is.
                stay = still + sum(
                    share
                    for boost, extra in steps
                    if (boost or extra) and (min(BOOSTS_KNOWN, d + boost), n + extra) == (d, n)
                )
                reach[(d, n)] = total / (1 - stay)
        return reach
