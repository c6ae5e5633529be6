"""Natural Main Games conditioned on a rare target: twisted proposals and independent Metropolis.

A target too rare for rejection (``generator.py`` says which) is sampled by an independent
Metropolis-Hastings chain whose stationary law is natural play conditioned on the target:

1. **The proposal** first picks how many Bonus Games the play will have, with chances in
   proportion to the ``outlook`` of the start given that many. It then plays the Main Game
   forward like natural play (``natural.simulate_haul``), weighting every choice by the outlook,
   given the Bonus Games still to come, of where it leads: how many squares a spin collects
   and what each holds, how each Bonus Game round ends and which prize it highlights, which
   free box each added Symbol goes to (the panel is natural). Choices that make the target or
   the number of Bonus Games impossible are never proposed. Every twisted choice multiplies
   the proposal's *weight* by natural chance over proposed chance, so a haul's weight is
   exactly ``natural(haul) / proposed(haul)`` (the number of Bonus Games is read off the haul,
   so nothing needs summing over), and 0 if the haul misses the target.
2. **The chain** starts from the first proposal that reaches the target and, for each later one
   that does, moves to it with probability ``min(1, weight / current weight)``. Proposals are
   independent of the chain, so this is Metropolis-Hastings with an independence proposal: its
   stationary law is the natural law restricted to the target, and after ``n`` proposals that
   reach it the law of the state is within ``(1 - 1/W) ** n`` of it in total variation, where
   ``W`` bounds the weight over its mean (Mengersen and Tweedie 1996). ``docs/generator.md``
   gives the measured weights, and the naturalness battery checks the result.

A target paid by several realisations (levels and rows) is one chain over all of them: each
proposal first picks a realisation with the chances ``mix`` and its weight is divided by that
chance, so the chain weighs the realisations as natural play does whatever ``mix`` is.

The outlook leaves out a play with more than ``outlook.MOST_GAMES`` Bonus Games, which natural
play has less than once in 10**9 plays.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from colour_collector.game.config import SYMBOL_KINDS, BonusKind, GameConfig
from colour_collector.game.errors import GameError
from colour_collector.game.natural import BonusGamePlay, MainHaul, SpinHaul, random_panel
from colour_collector.game.outcome import MainTarget
from colour_collector.game.outlook import (
    BOOSTS_KNOWN,
    MOST_GAMES,
    SPINS_KNOWN,
    GamesOutlook,
    Grid3,
    RowsOutlook,
    TargetOutlook,
    box_known,
)
from colour_collector.game.record import BonusPrize, BonusRound
from colour_collector.game.sampling import choose

FLOOR = 1e-30
"""Smallest outlook factor of a state from which the target is still possible."""
LEAN = 1e4
"""The most a twisted choice is favoured (or disfavoured) over its natural chance, so weights
stay within floating point range; any bound keeps the weights exact."""
SPARE = 0.01
"""Each possible number of Bonus Games is proposed at least this often (in proportion), so a
poor outlook never starves one."""
MAX_PROPOSALS = 1_000_000
"""Proposals after which a chain gives up (a bug: every target is reachable)."""


def _floored(value: float) -> float:
    return max(value, FLOOR)


def _lean(ratio: float) -> float:
    """A twist factor kept within [1/LEAN, LEAN] (0 stays 0: that choice is never proposed)."""
    if ratio <= 0:
        return 0.0
    return min(LEAN, max(1 / LEAN, ratio))


def _power(x: float, n: int) -> float:
    """``x ** n`` by multiplication (the same result on every platform)."""
    result = 1.0
    while n:
        if n & 1:
            result *= x
        x *= x
        n >>= 1
    return result


class Twist:
    """The outlook of one target, factor by factor, for each number of Bonus Games to come."""

    def __init__(
        self, config: GameConfig, target: MainTarget, games: GamesOutlook, rows: RowsOutlook
    ) -> None:
        self.target = target
        """The target."""
        self.games = games.chance
        """``games[g][box][s]``: exactly ``g`` more Bonus Games."""
        self.rows: list[list[Grid3]] = []
        """``rows[row][g][filled][s]``: the row ends as the target wants (complete if it is one
        of the target's rows, not complete otherwise): exact when full, floored otherwise."""
        for r, per_row in enumerate(rows.complete):
            wanted = r in target.rows
            boxes = config.prize_table[r].boxes
            self.rows.append(
                [
                    [
                        [
                            (1.0 if wanted else 0.0)
                            if filled >= boxes
                            else _floored(c if wanted else 1.0 - c)
                            for c in line
                        ]
                        for filled, line in enumerate(per_games)
                    ]
                    for per_games in per_row
                ]
            )
        level = target.level if target.rows else None
        ends = TargetOutlook(config, level, target.unlocked)
        self.stride = ends.stride
        """Boost counts per Prize Game Box count in ``ends``' middle index."""
        full = config.prize_game_box
        self.ends: Grid3 = []
        """``ends[g][prize_box * stride + boosts][s]``: the level and the Prize Game end as
        wanted: 0 once impossible (a level past the target, an unwanted Prize Game)."""
        for per_games in ends.ends_well:
            table = []
            for index, line in enumerate(per_games):
                prize_box, boosts = divmod(index, self.stride)
                dead = (prize_box >= full and not target.unlocked) or (
                    level is not None and level < config.max_level and boosts > level
                )
                table.append([0.0] * len(line) if dead else [_floored(c) for c in line])
            self.ends.append(table)
        self.box_known = box_known(config)
        """The largest Bonus Game Box count ``games`` knows."""

    def value(
        self, games: int, filled: Sequence[int], s: int, box: int, prize_box: int, boosts: int
    ) -> float:
        """The outlook of a state with ``games`` more Bonus Games and ``s`` spins to collect."""
        s = min(s, SPINS_KNOWN)
        v = self.games[games][min(box, self.box_known)][s]
        v *= self.ends[games][prize_box * self.stride + min(boosts, BOOSTS_KNOWN)][s]
        for r, table in enumerate(self.rows):
            v *= table[games][filled[r]][s]
        return v

    def row_ratio(self, row: int, games: int, filled: int, s: int) -> float:
        """How one more filled box in ``row`` changes the outlook (0: it rules the target out)."""
        table = self.rows[row][games]
        s = min(s, SPINS_KNOWN)
        return _lean(table[filled + 1][s] / table[filled][s])

    def box_ratio(self, games: int, box: int, s: int) -> float:
        """How one more Bonus symbol changes the outlook."""
        s = min(s, SPINS_KNOWN)
        line = self.games[games]
        here = line[min(box, self.box_known)][s]
        return _lean(line[min(box + 1, self.box_known)][s] / here) if here > 0 else 0.0

    def prize_ratio(self, games: int, prize_box: int, boosts: int, s: int) -> float:
        """How one more Prize Game symbol changes the outlook."""
        s = min(s, SPINS_KNOWN)
        table = self.ends[games]
        index = prize_box * self.stride + min(boosts, BOOSTS_KNOWN)
        here = table[index][s]
        return _lean(table[index + self.stride][s] / here) if here > 0 else 0.0


@dataclass
class _State:
    """A proposal's Main Game state."""

    filled: list[int]
    box: int
    prize_box: int
    boosts: int
    spins_left: int
    games: int
    """Bonus Games still to come."""


class Proposer:
    """Draws twisted proposals for one target and weighs them."""

    def __init__(self, config: GameConfig, twist: Twist) -> None:
        self.cfg = config
        self.twist = twist
        self.target = twist.target
        self.boxes = [row.boxes for row in config.prize_table]
        weights = config.item_weights
        total = sum(weights)
        self.item_chance = [w / total for w in weights]
        self.squares = config.grid_size
        binomials = [
            [[float(comb(m, j) * p**j * (1 - p) ** (m - j)) for j in range(m + 1)] for m in range(self.squares + 1)]
            for p in (Fraction(w, total) for w in weights)
        ]
        self.counts = binomials
        """``counts[kind][m][j]``: chance that ``j`` of ``m`` collected items are of ``kind``."""
        self.collect = [
            float(comb(self.squares, k) * Fraction(1, 6) ** k * Fraction(5, 6) ** (self.squares - k))
            for k in range(self.squares + 1)
        ]
        """Chance that a spin collects each number of squares."""
        self._lines: dict[tuple[int, int, int, int], list[float]] = {}
        self._cache: dict[tuple[int, int, int, int, int], list[float] | None] = {}
        start = [0] * config.shapes
        spins = config.starting_spins
        leans = [twist.value(g, start, spins, 0, 0, 0) for g in range(MOST_GAMES + 1)]
        possible = [twist.games[g][0][min(spins, SPINS_KNOWN)] > 0 for g in range(MOST_GAMES + 1)]
        total_lean = sum(leans)
        self.games_mix = [
            (lean / total_lean if total_lean > 0 else 0.0) + (SPARE if ok else 0.0)
            for lean, ok in zip(leans, possible, strict=True)
        ]
        """The chance of proposing each number of Bonus Games (up to normalisation)."""
        norm = sum(self.games_mix)
        self.games_mix = [m / norm for m in self.games_mix]

    def _line(self, kind: int, state: _State, after: int) -> list[float]:
        """The outlook factor of item ``kind`` at the end of this spin, by how many of it the
        Main Game holds (filled boxes, Bonus Game Box or Prize Game Box), ``after`` spins on."""
        twist, g = self.twist, state.games
        s = min(after, SPINS_KNOWN)
        cfg = self.cfg
        boosts = min(state.boosts, BOOSTS_KNOWN)
        key = (kind, g, s, boosts if kind == cfg.prize_game_item else 0)
        line = self._lines.get(key)
        if line is None:
            if kind < cfg.shapes:
                line = [per_filled[s] for per_filled in twist.rows[kind][g]]
            elif kind == cfg.bonus_item:
                line = [per_box[s] for per_box in twist.games[g]]
            else:
                line = [
                    twist.ends[g][p * twist.stride + boosts][s]
                    for p in range(cfg.prize_game_box + 1)
                ]
            self._lines[key] = line
        return line

    def _ahead(self, kind: int, state: _State, after: int, held: int) -> list[float] | None:
        """``ahead[m]``: the factor of ``kind`` expected after ``m`` more items of this spin
        (each of this kind with its natural chance), over its value now; None when the factor
        does not change over the spin's reach (the kind is not twisted)."""
        boosts = min(state.boosts, BOOSTS_KNOWN) if kind == self.cfg.prize_game_item else 0
        key = (kind, state.games, min(after, SPINS_KNOWN), held, boosts)
        cached = self._cache.get(key)
        if cached is not None or key in self._cache:
            return cached
        line = self._line(kind, state, after)
        top = len(line) - 1
        here = line[min(held, top)]
        reach = [line[min(top, held + j)] for j in range(self.squares + 1)]
        if here <= 0 or max(reach) - min(reach) <= 1e-9 * here:
            self._cache[key] = None
            return None
        chances = self.counts[kind]
        ahead = [
            sum(c * reach[j] for j, c in enumerate(chances[m])) / here
            for m in range(self.squares + 1)
        ]
        self._cache[key] = ahead
        return ahead

    def propose(self, rng: random.Random) -> tuple[MainHaul | None, float]:
        """A proposed Main Game and its weight (None, 0.0 if it cannot reach the target)."""
        cfg = self.cfg
        shapes = cfg.shapes
        bonus_item = cfg.bonus_item
        prize_item = cfg.prize_game_item
        full = cfg.prize_game_box
        boxes = self.boxes
        chance = self.item_chance
        squares = self.squares
        kinds = range(len(chance))
        games = choose(rng, self.games_mix)
        weight = 1 / self.games_mix[games]
        state = _State([0] * shapes, 0, 0, 0, cfg.starting_spins, games)
        filled = state.filled
        spins: list[SpinHaul] = []
        while state.spins_left > 0:
            state.spins_left -= 1
            after = state.spins_left

            def held(kind: int) -> int:
                if kind < shapes:
                    return filled[kind]
                return state.box if kind == bonus_item else state.prize_box

            # How many squares the spin collects: natural, times the outlook expected after
            # that many items (kinds taken as independent).
            aheads = {k: a for k in kinds if (a := self._ahead(k, state, after, held(k))) is not None}
            leans = list(self.collect)
            for ahead in aheads.values():
                leans = [x * a for x, a in zip(leans, ahead, strict=True)]
            total = sum(leans)
            count = choose(rng, leans)
            weight *= total / (leans[count] / self.collect[count])
            items = []
            for left in range(count - 1, -1, -1):
                # Each item: natural chance times the outlook expected for the rest of the spin
                # with it, over without it.
                ratios = list(chance)
                for k in aheads:
                    n = held(k)
                    now = self._ahead(k, state, after, n)
                    if now is None or now[left] <= 0:
                        continue
                    line = self._line(k, state, after)
                    top = len(line) - 1
                    step = line[min(top, n + 1)] / line[min(top, n)]
                    more = self._ahead(k, state, after, n + 1) if step > 0 else None
                    ratios[k] *= (more[left] if more is not None else 1.0) * step / now[left]
                total = sum(ratios)
                item = choose(rng, ratios)
                weight *= chance[item] * total / ratios[item]
                items.append(item)
                if item < shapes:
                    if filled[item] < boxes[item]:
                        filled[item] += 1
                elif item == bonus_item:
                    state.box += 1
                elif item == prize_item and state.prize_box < full:
                    state.prize_box += 1
            if not self._possible(state):
                return None, 0.0
            played: list[BonusGamePlay] = []
            while state.box >= cfg.bonus_box:
                state.box -= cfg.bonus_box
                state.games -= 1
                if state.games < 0:
                    return None, 0.0
                outcome = self._bonus_game(state, rng)
                if outcome is None:
                    return None, 0.0
                game, factor = outcome
                weight *= factor
                played.append(game)
                if not self._possible(state):
                    return None, 0.0
            spins.append(SpinHaul(tuple(items), tuple(played)))
        if state.games:
            return None, 0.0
        haul = MainHaul(tuple(spins), tuple(filled), state.boosts, state.prize_box >= full)
        return (haul, weight) if self.target.reached_by(haul, cfg) else (None, 0.0)

    def _possible(self, state: _State) -> bool:
        """False once the target can no longer be reached (the hard zeros of the outlook)."""
        twist = self.twist
        if twist.ends[0][state.prize_box * twist.stride + min(state.boosts, BOOSTS_KNOWN)][0] == 0:
            return False
        return all(twist.rows[r][0][n][0] > 0 for r, n in enumerate(state.filled))

    def _bonus_game(
        self, state: _State, rng: random.Random
    ) -> tuple[BonusGamePlay, float] | None:
        """A twisted Bonus Game, applied to ``state``, and its weight factor; None if every way
        on rules the target out."""
        panel = random_panel(self.cfg, rng)
        size = len(panel)
        pending = list(state.filled)
        won: list[BonusPrize] = []
        rounds: list[BonusRound] = []
        factor = 1.0
        natural = [1 / 2] + [1 / (2 * size)] * size  # lose, or win each prize
        while True:
            values = [self._value_after(state, pending, won, None)]
            values.extend(self._value_after(state, pending, won, p) for p in panel)
            options = [n * v for n, v in zip(natural, values, strict=True)]
            total = sum(options)
            if not total > 0:
                return None
            pick = choose(rng, options)
            factor *= total / values[pick]
            if pick == 0:
                # The lost round highlights any prize, as a natural lost round does.
                rounds.append(BonusRound(rng.randrange(size), False))
                break
            prize = panel[pick - 1]
            rows: tuple[int, ...] = ()
            if prize.kind in SYMBOL_KINDS:
                placed = self._place(prize.value, pending, state, won, rng)
                if placed is None:
                    return None
                rows, place_factor = placed
                factor *= place_factor
            won.append(prize)
            rounds.append(BonusRound(pick - 1, True, rows=rows))
        filled, spins, prize_box, boosts = self._after(state, pending, won)
        state.filled[:] = filled
        state.spins_left, state.prize_box, state.boosts = spins, prize_box, boosts
        return BonusGamePlay(panel, tuple(rounds)), factor

    def _after(
        self, state: _State, pending: list[int], won: Sequence[BonusPrize]
    ) -> tuple[list[int], int, int, int]:
        """Filled boxes, spins left, Prize Game Box and boosts once ``won`` takes effect."""
        cfg = self.cfg
        full = cfg.prize_game_box
        spins, prize_box, boosts = state.spins_left, state.prize_box, state.boosts
        for prize in won:
            kind = prize.kind
            if kind is BonusKind.EXTRA_SPINS:
                spins += prize.value
            elif kind is BonusKind.PRIZE_GAME_SYMBOLS:
                prize_box = min(full, prize_box + prize.value)
            elif kind is BonusKind.UNLOCK_PRIZE_GAME:
                prize_box = full
            elif kind not in SYMBOL_KINDS:
                boosts += cfg.bonus_prizes[kind].boost
        return pending, spins, prize_box, boosts

    def _value_after(
        self, state: _State, pending: list[int], won: Sequence[BonusPrize], more: BonusPrize | None
    ) -> float:
        """The outlook once the Bonus Game ends after ``won`` and, if given, one more prize."""
        filled = pending
        prizes = list(won)
        if more is not None:
            if more.kind in SYMBOL_KINDS:
                filled = self._leaning_placement(more.value, pending, state, won)
            else:
                prizes.append(more)
        filled, spins, prize_box, boosts = self._after(state, filled, prizes)
        return self.twist.value(state.games, filled, spins, state.box, prize_box, boosts)

    def _ratios(self, pending: list[int], spins: int, games: int) -> list[float]:
        """For each row, the outlook's change for one more Symbol there (0 if full)."""
        twist, g = self.twist, games
        return [
            twist.row_ratio(r, g, n, spins) if n < b else 0.0
            for r, (n, b) in enumerate(zip(pending, self.boxes, strict=True))
        ]

    def _leaning_placement(
        self, count: int, pending: list[int], state: _State, won: Sequence[BonusPrize]
    ) -> list[int]:
        """Filled boxes after ``count`` Symbols, each placed where the twisted placement leans
        most (an estimate of where a Symbols prize would go, to weigh winning it)."""
        _, spins, _, _ = self._after(state, pending, won)
        trial = list(pending)
        for _ in range(count):
            ratios = self._ratios(trial, spins, state.games)
            leans = [(b - n) * q for n, b, q in zip(trial, self.boxes, ratios, strict=True)]
            best = max(leans)
            if not best > 0:
                break
            trial[leans.index(best)] += 1
        return trial

    def _place(
        self,
        count: int,
        pending: list[int],
        state: _State,
        won: Sequence[BonusPrize],
        rng: random.Random,
    ) -> tuple[tuple[int, ...], float] | None:
        """Rows for ``count`` added Symbols, twisted, and the weight factor; None if every free
        box left rules the target out. Updates ``pending``."""
        _, spins, _, _ = self._after(state, pending, won)
        boxes = self.boxes
        rows = []
        factor = 1.0
        for _ in range(count):
            free = [b - n for n, b in zip(pending, boxes, strict=True)]
            spaces = sum(free)
            if not spaces:
                break
            ratios = self._ratios(pending, spins, state.games)
            leans = [f * q for f, q in zip(free, ratios, strict=True)]
            total = sum(leans)
            if not total > 0:
                return None
            row = choose(rng, leans)
            factor *= total / (spaces * ratios[row])
            pending[row] += 1
            rows.append(row)
        return tuple(rows), factor


class ConditionedSampler:
    """Natural Main Games conditioned on a union of disjoint targets, by an independence chain."""

    def __init__(
        self,
        config: GameConfig,
        targets: Sequence[MainTarget],
        mix: Sequence[float],
        games: GamesOutlook,
        rows: RowsOutlook,
    ) -> None:
        if len(targets) != len(mix) or not all(m > 0 for m in mix):
            raise ValueError(f"need one positive chance per target, not {list(mix)!r}")
        total = sum(mix)
        self.mix = [m / total for m in mix]
        """The chance each proposal picks each target."""
        self.proposers = [Proposer(config, Twist(config, t, games, rows)) for t in targets]
        """One proposer per target."""

    def proposal(self, rng: random.Random) -> tuple[MainHaul | None, float]:
        """One proposal over the union and its weight against the natural law."""
        pick = choose(rng, self.mix) if len(self.mix) > 1 else 0
        haul, weight = self.proposers[pick].propose(rng)
        return haul, weight / self.mix[pick]

    def sample(self, rng: random.Random, hits: int) -> MainHaul:
        """The chain's state after ``hits`` proposals that reach a target."""
        current: MainHaul | None = None
        current_weight = 0.0
        found = 0
        for _ in range(MAX_PROPOSALS):
            haul, weight = self.proposal(rng)
            if haul is None:
                continue
            found += 1
            if current is None or rng.random() * current_weight < weight:
                current, current_weight = haul, weight
            if found >= hits:
                return current
        raise GameError(f"no proposal reached {self.proposers[0].target!r} in {MAX_PROPOSALS}")
