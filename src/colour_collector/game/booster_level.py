"""Natural Main Games conditioned on their Bonus Games (the level they leave, whether they add
Symbols), sampled exactly.

The level a Main Game ends on depends only on its *skeleton*: how many Bonus symbols each spin
collects, and how many levels and extra spins each Bonus Game awards. The skeleton is a small
Markov chain (spins left, Bonus Game Box, boosts, whether a Bonus Game has been played and
whether one has won a Symbols prize):

- a spin collects ``Binomial(20, 15/486)`` Bonus symbols (each square is collected with chance
  1/6 and holds a Bonus symbol with chance 15/81, independently);
- a full box starts a Bonus Game, which awards ``d`` levels and ``x`` extra spins and wins a
  SYMBOLS or MORE SYMBOLS prize or not, with chances worked out exactly from the natural Bonus
  Game (``bonus_effects``).

``LevelOdds`` holds, for every skeleton state, the chance ``h`` that the play ends as wanted (a
``LevelWanted``). Drawing every step of the skeleton with its natural chance times ``h`` of where
it leads, over ``h`` of where it is (the Doob transform), draws the skeleton exactly as natural
play conditioned on ending as wanted; each Bonus Game is then drawn exactly as a natural Bonus
Game conditioned on its effect. The other items the play collects do not touch the skeleton and
are drawn naturally (or left to draw, ``other_items``), so the whole Main Game is natural play
conditioned on ending as wanted.

The chances are computed in double precision by Gauss-Seidel sweeps until nothing changes by
more than ``SETTLED``; chances below ``NEGLIGIBLE``, spins beyond ``SPINS_KNOWN`` and more than
``EXTRA_WINS_KNOWN`` EXTRA SPINS wins in a Bonus Game are left out (each far less likely than
once in 10**12 plays).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from math import comb
from typing import Protocol

from colour_collector.game.bonus_effects import (
    BOOSTS_KNOWN,
    NEGLIGIBLE,
    Effect,
    PanelKind,
    effect_chances,
    effect_of,
)
from colour_collector.game.config import COUNTED_KINDS, SYMBOL_KINDS, BonusKind, GameConfig
from colour_collector.game.natural import (
    KINDS,
    BonusGamePlay,
    MainHaul,
    place_uniformly,
    won_prizes,
)
from colour_collector.game.record import BonusPrize, BonusRound
from colour_collector.game.sampling import choose, choose_cumulative, choose_scanning
from colour_collector.game.skeleton import Skeleton, SkeletonDrawing

SPINS_KNOWN = 16
"""Spins left beyond this many are looked up as this many."""
SETTLED = 1e-14
"""The sweeps stop when no chance changes by more than this."""
EXTRA_SPINS_AHEAD = 40
"""Look-ups up to this many spins past SPINS_KNOWN need no clamping."""
BOOSTERS = frozenset(
    {BonusKind.PRIZE_BOOSTER, BonusKind.SUPER_PRIZE_BOOSTER, BonusKind.MEGA_PRIZE_BOOSTER}
)
"""Bonus Prize kinds that raise the level."""


class Lean(Protocol):
    """Where a chain's proposals put the Symbols a Bonus Game adds (``placement_lean``)."""

    def place(
        self, count: int, pending: list[int], spins: int, rng: random.Random
    ) -> tuple[tuple[int, ...], float] | None:
        """Rows for ``count`` added Symbols with ``spins`` spins left to play after them, and
        the natural over proposed chance of the choice; None if no free box may be taken.
        Updates ``pending`` (the filled boxes, counting Symbols already placed)."""


@dataclass(frozen=True, slots=True)
class LevelWanted:
    """Which ends of the skeleton count."""

    boosts: frozenset[int]
    """Wanted boost totals, each counted up to ``BOOSTS_KNOWN``."""
    played: bool
    """Whether at least one Bonus Game must be played."""
    placed: bool | None = None
    """Whether a Bonus Game must win a SYMBOLS or MORE SYMBOLS prize (True), must not (False),
    or either (None)."""

    @staticmethod
    def level(level: int, config: GameConfig, placed: bool | None = None) -> LevelWanted:
        """The Prize Table ends on ``level`` after at least one Bonus Game."""
        top = config.max_level
        boosts = frozenset(range(top, BOOSTS_KNOWN + 1)) if level >= top else frozenset({level})
        return LevelWanted(boosts, True, placed)

    @staticmethod
    def any_level(placed: bool | None = None) -> LevelWanted:
        """Any level, after at least one Bonus Game."""
        return LevelWanted(frozenset(range(BOOSTS_KNOWN + 1)), True, placed)

    def accepts(self, boosts: int, played: bool, placed: bool) -> bool:
        """Whether a skeleton that ends this way counts."""
        if min(boosts, BOOSTS_KNOWN) not in self.boosts or (self.played and not played):
            return False
        return self.placed is None or self.placed == placed


class LevelOdds:
    """``h``: for each skeleton state, the chance the play ends as ``wanted``; and the exact
    sampler of natural Main Games conditioned on it."""

    def __init__(self, config: GameConfig, wanted: LevelWanted) -> None:
        self.cfg = config
        self.wanted = wanted
        total = sum(config.item_weights)
        per_square = Fraction(config.item_weights[config.bonus_item], total) / 6
        squares = config.grid_size
        self.box = config.bonus_box
        self.boxes = [row.boxes for row in config.prize_table]
        self.counts = [
            (k, c)
            for k in range(squares + 1)
            if (c := float(comb(squares, k) * per_square**k * (1 - per_square) ** (squares - k)))
            > NEGLIGIBLE
        ]
        """Each number of Bonus symbols a spin can collect, with its chance."""
        # Given the Bonus symbols, each other square is collected holding another item with
        # chance (66/486) / (1 - 15/486).
        other = (Fraction(1, 6) - per_square) / (1 - per_square)
        self.other_counts = tuple(
            tuple(
                accumulate(
                    float(comb(n, k) * other**k * (1 - other) ** (n - k)) for k in range(n + 1)
                )
            )
            for n in range(squares + 1)
        )
        """``other_counts[n]``: running chances that ``k`` of ``n`` squares not holding a
        collected Bonus symbol are collected."""
        self.panels: list[tuple[float, PanelKind, dict[Effect, float]]] = []
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
        summed: dict[Effect, float] = {}
        for chance, panel, effects in self.panels:
            for (d, n, s), c in effects.items():
                key = (d, n * panel.extra, s)
                summed[key] = summed.get(key, 0.0) + chance * c
        self.effects = sorted(
            ((e, c) for e, c in summed.items() if c > NEGLIGIBLE), key=lambda e: -e[1]
        )
        """``((levels, extra spins, Symbols won), chance)`` of one natural Bonus Game, likeliest
        first."""
        self._steps = {kind: effect_of(config, kind) for kind in KINDS}
        wanted_boosts = wanted.boosts
        if wanted_boosts == frozenset(range(BOOSTS_KNOWN + 1)):
            self.top = 0
        elif min(wanted_boosts) == max(wanted_boosts) or max(wanted_boosts) < BOOSTS_KNOWN:
            self.top = min(BOOSTS_KNOWN, max(wanted_boosts) + 1)
        else:  # wanted: everything from some level up
            self.top = min(wanted_boosts)
        """Boosts are counted up to this many in the tables: more do not change whether an end
        counts."""
        self._panel_leans: dict[Effect, tuple[float, ...]] = {}
        self._reaches: dict[tuple[BonusKind, Effect, float], dict[Effect, float]] = {}
        self._solve()

    # -- the chances ---------------------------------------------------------------------------

    def _solve(self) -> None:
        """``after[plane][boosts][spins][box]``: ``h`` just after a spin's collection (a box of
        six or more: its Bonus Games still to play), ``plane = 2 * played + placed``."""
        wanted = self.wanted
        size = self.box
        # Boosts past the largest wanted (or any boosts, if all count) are told apart no further.
        top = self.top
        top_box = size - 1 + self.counts[-1][0]
        spins = SPINS_KNOWN + 1
        planes = 4  # plane 1 (no Bonus Game played, yet a Symbols prize won) is never reached
        ends = [
            [1.0 if wanted.accepts(b, p >= 2, p % 2 == 1) else 0.0 for b in range(top + 1)]
            for p in range(planes)
        ]
        after = [
            [[[ends[p][b]] * (top_box + 1) for _ in range(spins)] for b in range(top + 1)]
            for p in range(planes)
        ]
        counts = self.counts
        effects = [(d, x, sym, c) for (d, x, sym), c in self.effects]
        # Plane 1 (no Bonus Game played, yet a Symbols prize won) is never reached, and a plane
        # from which every reachable end is unwanted stays 0 (Bonus Games lead from plane 0 to
        # planes 2 and 3, from plane 2 to plane 3, and from plane 3 nowhere).
        live_3 = any(ends[3])
        live_2 = live_3 or any(ends[2])
        self.planes = [0] + [2] * live_2 + [3] * live_3
        for _ in range(100):
            change = 0.0
            for s in range(spins):
                if s:
                    for p in self.planes:
                        for b in range(top + 1):
                            line = after[p][b][s]
                            below = after[p][b][s - 1]
                            for box in range(size):
                                value = sum(c * below[box + k] for k, c in counts)
                                change = max(change, abs(value - line[box]))
                                line[box] = value
                # A full box: its Bonus Game's effects come first. Values reached through
                # extra spins (more spins left) are one sweep behind and settle by sweeping.
                change = max(change, self._bonus_boxes(after, s, effects, top, top_box))
            self.sweeps = _ + 1
            if change <= SETTLED:
                break
        reach = SPINS_KNOWN + EXTRA_SPINS_AHEAD
        # Tuples all the way down: the garbage collector stops scanning them.
        self.after = tuple(
            tuple(
                tuple(tuple(line) for line in lines) + (tuple(lines[-1]),) * (reach - SPINS_KNOWN)
                for lines in plane
            )
            for plane in after
        )
        """``after[plane][boosts][spins][box]`` (spins past SPINS_KNOWN read the last entry)."""

    def _bonus_boxes(
        self,
        after: list[list[list[list[float]]]],
        s: int,
        effects: list[tuple[int, int, int, float]],
        top: int,
        top_box: int,
    ) -> float:
        """Recompute the entries of ``s`` spins left with a Bonus Game due; the largest change."""
        size = self.box
        change = 0.0
        live = set(self.planes)
        for p in self.planes:
            played_plane = 2 + (p % 2)
            for b in range(top + 1):
                line = after[p][b][s]
                values = [0.0] * (top_box + 1 - size)
                for d, x, sym, c in effects:
                    if played_plane | sym not in live:
                        continue
                    source = after[played_plane | sym][min(top, b + d)][min(SPINS_KNOWN, s + x)]
                    values = [v + c * w for v, w in zip(values, source, strict=False)]
                for i, value in enumerate(values):
                    change = max(change, abs(value - line[size + i]))
                    line[size + i] = value
        return change

    def after_spin(self, spins: int, box: int, boosts: int, plane: int) -> float:
        """``h`` just after a spin's collection, its Bonus Games still to play."""
        return self.after[plane][min(boosts, self.top)][min(spins, SPINS_KNOWN)][box]

    @property
    def chance(self) -> float:
        """The chance that a natural Main Game ends as wanted."""
        return self.after[0][0][self.cfg.starting_spins][0]

    # -- the sampler ---------------------------------------------------------------------------

    def sample(
        self, rng: random.Random, give_up: Callable[[list[int], bool], bool] | None = None
    ) -> MainHaul | None:
        """A natural Main Game conditioned on ending as wanted, or None as soon as
        ``give_up(filled, unlocked)`` (a condition that can only get worse) says it is of no use."""
        skeleton = self.draw(rng, give_up)
        return None if skeleton is None else skeleton.haul(self.cfg)

    def draw(
        self,
        rng: random.Random,
        give_up: Callable[[list[int], bool], bool] | None = None,
        *,
        lean: Lean | None = None,
        defer: bool = False,
        tilt: Sequence[int] | None = None,
        favour: float = 1.0,
    ) -> Skeleton | None:
        """A natural skeleton conditioned on ending as wanted, with its other items drawn
        naturally, or left to draw (``defer``) until a Bonus Game places Symbols, which needs
        them. ``lean`` twists where added Symbols go (the skeleton's ``weight`` is then natural
        over twisted chance); ``tilt`` multiplies the natural weight of each other item (the
        shapes, then the Prize Game symbol) when they are drawn, and ``favour`` the chance of
        winning a Symbols prize in a Bonus Game (the weight again corrects both).
        None as soon as ``give_up`` says the play is of no use, or if ``lean`` rules out every
        box an added Symbol could go to."""
        cfg = self.cfg
        drawing = SkeletonDrawing(cfg, rng, defer, tilt)
        after = self.after
        top = self.top
        box = boosts = levels = plane = 0
        spins_left = cfg.starting_spins
        squares = cfg.grid_size
        size = self.box
        while spins_left > 0:
            spins_left -= 1
            now = min(spins_left, SPINS_KNOWN)  # the tables read alike past SPINS_KNOWN
            here = after[plane][boosts][now + 1][box]
            line = after[plane][boosts][now]
            bonus = choose_scanning(rng, here, ((k, c * line[box + k]) for k, c in self.counts))
            drawing.spin(bonus, self.other_counts[squares - bonus])
            box += bonus
            games: list[BonusGamePlay] = []
            while box >= size:
                now = min(spins_left, SPINS_KNOWN)
                here = after[plane][boosts][now][box]
                box -= size
                played = 2 | (plane & 1)
                pick = choose_scanning(
                    rng,
                    here,
                    (
                        (i, c * after[played | sym][min(top, boosts + d)][now + x][box])
                        for i, ((d, x, sym), c) in enumerate(self.effects)
                    ),
                )
                effect, _ = self.effects[pick]
                game = self._bonus_game(effect, drawing, lean, favour, rng, spins_left=spins_left)
                if game is None:
                    return None
                games.append(game)
                plane = played | effect[2]
                for prize, _rows in won_prizes(game):
                    if prize.kind is BonusKind.EXTRA_SPINS:
                        spins_left += prize.value
                    elif prize.kind in BOOSTERS:
                        levels += cfg.bonus_prizes[prize.kind].boost
                boosts = min(top, levels)
                drawing.bonus_game(game)
            drawing.games.append(tuple(games))
            filled = drawing.filled
            if give_up is not None and filled is not None and give_up(filled, drawing.unlocked):
                return None
        return drawing.skeleton(levels)

    def _bonus_game(
        self,
        effect: Effect,
        drawing: SkeletonDrawing,
        lean: Lean | None,
        favour: float,
        rng: random.Random,
        *,
        spins_left: int,
    ) -> BonusGamePlay | None:
        """A natural Bonus Game conditioned on ``effect`` (levels, extra spins, Symbols won), its
        Symbols placed in the free boxes (twisted by ``lean``); None if ``lean`` rules out every
        free box."""
        cfg = self.cfg
        levels, extra, placed = effect
        # The panel: which kind is left out and the EXTRA SPINS prize's number, in proportion
        # to their chance times the chance of this effect with them.
        held = self._panel_leans.get(effect)
        if held is None:
            leans = []
            for chance, panel_kind, effects in self.panels:
                if panel_kind.extra:
                    wins, rest = divmod(extra, panel_kind.extra)
                    c = effects.get((levels, wins, placed), 0.0) if rest == 0 else 0.0
                else:
                    c = effects.get((levels, 0, placed), 0.0) if extra == 0 else 0.0
                leans.append(chance * c)
            held = self._panel_leans[effect] = tuple(accumulate(leans))
        _, panel_kind, _ = self.panels[choose_cumulative(rng, held)]
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
        # the chance of ending on exactly this effect from where it leads.
        goal = (levels, wins, placed)
        reach = self._reach(panel_kind.omitted, goal, favour)
        if favour != 1.0:
            # Symbols prizes won ``favour`` times as often: natural over twisted chance is the
            # ratio of the two reach chances at the start over favour per Symbols prize won.
            drawing.weight *= (
                reach[(0, 0, 0)] / self._reach(panel_kind.omitted, goal, 1.0)[(0, 0, 0)]
            )
        size = len(panel)
        steps = [self._steps[kind] for kind in kinds]
        picks: list[int] = []
        d = n = s = 0
        share = 1 / (2 * size)
        shares = [share * (favour if sym else 1.0) for _, _, sym in steps]
        while True:
            options = [0.5 if (d, n, s) == goal else 0.0]
            for (boost, more, sym), weight in zip(steps, shares, strict=True):
                options.append(
                    reach.get((min(BOOSTS_KNOWN, d + boost), n + more, s | sym), 0.0) * weight
                )
            pick = choose(rng, options)
            if pick == 0:
                break
            picks.append(pick - 1)
            boost, more, sym = steps[pick - 1]
            d, n, s = min(BOOSTS_KNOWN, d + boost), n + more, s | sym
        # The Symbols of all the Symbols prizes won go into free boxes one after another,
        # uniformly (twisted by ``lean``): the same as placing each prize's in turn.
        counts = [panel[i].value if panel[i].kind in SYMBOL_KINDS else 0 for i in picks]
        dealt: tuple[int, ...] = ()
        if any(counts):
            drawing.weight /= favour ** sum(1 for c in counts if c)
            pending = list(drawing.need_filled())
            if lean is None:
                dealt = place_uniformly(sum(counts), pending, self.boxes, rng)
            else:
                leaning = lean.place(sum(counts), pending, spins_left + extra, rng)
                if leaning is None:
                    return None
                dealt, factor = leaning
                drawing.weight *= factor
        rounds = []
        for index, count in zip(picks, counts, strict=True):
            rows, dealt = dealt[:count], dealt[count:]
            rounds.append(BonusRound(index, True, rows=rows))
        rounds.append(BonusRound(rng.randrange(size), False))
        return BonusGamePlay(panel, tuple(rounds))

    def _reach(self, omitted: BonusKind, goal: Effect, favour: float) -> dict[Effect, float]:
        """For each (levels, EXTRA SPINS wins, Symbols won) so far, the chance that the rest of a
        natural Bonus Game whose panel leaves out ``omitted`` ends on exactly ``goal`` (with
        Symbols prizes' chances multiplied by ``favour``, below 6: a twisted, unnormalised
        chance)."""
        key = (omitted, goal, favour)
        held = self._reaches.get(key)
        if held is not None:
            return held
        levels, wins, placed = goal
        steps = [self._steps[k] for k in KINDS if k is not omitted]
        base = 1 / (2 * len(steps))
        reach: dict[Effect, float] = {}
        for s in range(placed, -1, -1):
            for n in range(wins, -1, -1):
                for d in range(min(levels, BOOSTS_KNOWN), -1, -1):
                    total = 0.5 if (d, n, s) == goal else 0.0
                    stay = 0.0
                    for boost, extra, sym in steps:
                        share = base * (favour if sym else 1.0)
                        to = (min(BOOSTS_KNOWN, d + boost), n + extra, s | sym)
                        if to == (d, n, s):  # nothing changes (or boosts past the cap)
                            stay += share
                        else:
                            total += share * reach.get(to, 0.0)
                    reach[(d, n, s)] = total / (1 - stay)
        self._reaches[key] = reach
        return reach
