"""Builds the Main Game of a play to a plan, looking as much like a natural play as it can.

Every spin starts like a natural one: the wheel stops on a uniform colour and about a sixth of the
squares share it. The builder then chooses which squares those are: enough of what the plan still
needs (spread over the spins left), never what would break the plan (a row outside the plan
completing, a Bonus Game too many, a Prize Game the plan does not have). Refills follow the natural
weights, topped up with what the plan needs when the grid holds too little of it.
"""

from __future__ import annotations

import random
from collections import Counter

from colour_collector.game.config import SYMBOL_KINDS, BonusKind, GameConfig
from colour_collector.game.errors import GameError
from colour_collector.game.record import BonusPrize, BonusRound, Item, MainSpin, Panel, Step
from colour_collector.game.sampling import binomial, other_colours, picker_for
from control.natural import random_panel
from control.plan import Plan, Route

UNLIMITED = 1 << 30
"""A cap that never binds."""


class PlanMissedError(GameError):
    """This attempt at building a play missed its plan; the generator tries again."""


class MainBuilder:
    """Builds one Main Game for a plan."""

    def __init__(self, config: GameConfig, plan: Plan, rng: random.Random) -> None:
        self.cfg = config
        self.plan = plan
        self.rng = rng
        self.picker = picker_for(config.item_weights)
        self.boxes = [row.boxes for row in config.prize_table]
        self.grid: list[Item] = []
        self.filled = [0] * config.shapes
        self.bonus = 0
        self.prize_symbols = 0
        self.unlocked = False
        self.spins_left = config.starting_spins
        self.boosts = 0
        self.games_done = 0
        self.steps: list[Step] = []
        self.game_awards = self._share_awards()

    # -- the plan's bookkeeping ----------------------------------------------------------------

    def _share_awards(self) -> list[list[BonusKind]]:
        """The prizes each planned Bonus Game must award."""
        games: list[list[BonusKind]] = [[] for _ in range(self.plan.bonus_games)]
        required = list(self.plan.boosters)
        if self.plan.route is Route.UNLOCK:
            required.append(BonusKind.UNLOCK_PRIZE_GAME)
        elif self.plan.route is Route.PRIZE_GAME_SYMBOLS:
            required.append(BonusKind.PRIZE_GAME_SYMBOLS)
        for kind in required:
            if kind in (BonusKind.UNLOCK_PRIZE_GAME, BonusKind.PRIZE_GAME_SYMBOLS):
                games[-1].append(kind)  # the last game, so the grid has had time to add symbols
            else:
                games[self.rng.randrange(len(games))].append(kind)
        return games

    def needs(self) -> dict[Item, int]:
        """Items the grid must still give up for the plan to come true."""
        need: dict[Item, int] = {}
        for row in self.plan.rows:
            short = self.boxes[row] - self.filled[row]
            if short > 0:
                need[row] = short
        games_left = self.plan.bonus_games - self.games_done
        if games_left > 0:
            need[self.cfg.bonus_item] = self.cfg.bonus_box * games_left - self.bonus
        if self.plan.route is Route.SYMBOLS and not self.unlocked:
            need[self.cfg.prize_game_item] = self.cfg.prize_game_box - self.prize_symbols
        return need

    def cap(self, item: Item) -> int:
        """How many of ``item`` one spin may collect without breaking the plan."""
        cfg = self.cfg
        if item < cfg.shapes:
            if item in self.plan.rows:
                return UNLIMITED
            return max(0, self.boxes[item] - 1 - self.filled[item])
        if item == cfg.bonus_item:
            # At most one Bonus Game a spin, and never one the plan does not have.
            ceiling = cfg.bonus_box if self.games_done < self.plan.bonus_games else 0
            return ceiling + cfg.bonus_box - 1 - self.bonus
        if self.unlocked or self.plan.route is Route.SYMBOLS:
            return UNLIMITED
        return cfg.prize_game_box - 1 - self.prize_symbols

    # -- building --------------------------------------------------------------------------------

    def build(self) -> tuple[tuple[Item, ...], list[Step], bool]:
        """The starting grid, the steps, and whether the Prize Game was unlocked."""
        self.grid = self.picker.pick_many(self.rng, self.cfg.grid_size)
        start = tuple(self.grid)
        while self.spins_left > 0:
            self._spin()
        self._check_goals()
        return start, self.steps, self.unlocked

    def _spin(self) -> None:
        cfg, rng = self.cfg, self.rng
        self.spins_left -= 1
        wheel = rng.randrange(6)
        target = binomial(rng, cfg.grid_size, 1, 6)
        chosen = self._choose_squares(target)
        others = other_colours(rng, wheel, cfg.grid_size)
        colours = tuple(wheel if square in chosen else other for square, other in enumerate(others))
        collected = sorted(chosen)
        for square in collected:
            self._collect(self.grid[square])
        refill = self._refill(collected)
        for square, item in zip(collected, refill, strict=True):
            self.grid[square] = item
        panels: list[Panel] = []
        plans: list[list[BonusKind]] = []
        while self.bonus >= cfg.bonus_box:
            self.bonus -= cfg.bonus_box
            planned = self.games_done < len(self.game_awards)
            awards = self.game_awards[self.games_done] if planned else []
            self.games_done += 1
            plans.append(awards)
            panel = random_panel(cfg, rng, frozenset(awards))
            if BonusKind.PRIZE_GAME_SYMBOLS in awards:
                panel = self._fit_prize_symbols(panel)
            panels.append(panel)
        self.steps.append(MainSpin(colours, wheel, tuple(refill), tuple(panels)))
        for panel, awards in zip(panels, plans, strict=True):
            self._play_bonus_game(panel, awards)

    def _choose_squares(self, target: int) -> set[int]:
        rng = self.rng
        chosen: set[int] = set()
        taken: Counter[Item] = Counter()
        chances = self.spins_left + 1
        for item, short in self.needs().items():
            quota = short // chances + (rng.randrange(chances) < short % chances)
            squares = [s for s, it in enumerate(self.grid) if it == item]
            rng.shuffle(squares)
            for square in squares[: min(quota, self.cap(item))]:
                chosen.add(square)
                taken[item] += 1
        rest = [s for s in range(self.cfg.grid_size) if s not in chosen]
        rng.shuffle(rest)
        for square in rest:
            if len(chosen) >= target:
                break
            item = self.grid[square]
            if taken[item] < self.cap(item):
                chosen.add(square)
                taken[item] += 1
        return chosen

    def _collect(self, item: Item) -> None:
        cfg = self.cfg
        if item < cfg.shapes:
            self.filled[item] = min(self.boxes[item], self.filled[item] + 1)
        elif item == cfg.bonus_item:
            self.bonus += 1
        else:
            self._add_prize_symbols(1)

    def _add_prize_symbols(self, count: int) -> None:
        if not self.unlocked:
            self.prize_symbols = min(self.cfg.prize_game_box, self.prize_symbols + count)
            self.unlocked = self.prize_symbols == self.cfg.prize_game_box

    def _refill(self, collected: list[int]) -> list[Item]:
        rng = self.rng
        gone = set(collected)
        remaining = Counter(it for s, it in enumerate(self.grid) if s not in gone)
        wanted: list[Item] = []
        for item, short in self.needs().items():
            wanted.extend([item] * max(0, short - remaining[item]))
        rng.shuffle(wanted)
        refill = wanted[: len(collected)]
        refill.extend(self.picker.pick_many(rng, len(collected) - len(refill)))
        rng.shuffle(refill)
        return refill

    # -- Bonus Games -----------------------------------------------------------------------------

    def _play_bonus_game(self, panel: Panel, awards: list[BonusKind]) -> None:
        rng, cfg = self.rng, self.cfg
        where = {prize.kind: i for i, prize in enumerate(panel)}
        won: list[tuple[int, bool]] = [
            (where[kind], True) for kind in awards if kind is not BonusKind.PRIZE_GAME_SYMBOLS
        ]
        if BonusKind.PRIZE_GAME_SYMBOLS in awards:
            index = where[BonusKind.PRIZE_GAME_SYMBOLS]
            short = cfg.prize_game_box - self.prize_symbols
            won.extend([(index, True)] * -(-short // panel[index].value))
        # Beyond what the plan needs, each round is a fair guess that may win a harmless prize.
        while rng.randrange(2) == 0 and len(won) < 8:
            index = rng.randrange(len(panel))
            if self._harmless(panel[index]):
                won.append((index, False))
        rng.shuffle(won)
        pending = list(self.filled)
        prize_symbols = self.prize_symbols
        rounds: list[BonusRound] = []
        for index, planned in won:
            prize = panel[index]
            rows: tuple[int, ...] = ()
            if prize.kind in SYMBOL_KINDS:
                placed = self._place(prize.value, pending)
                if placed is None:
                    continue
                rows = placed
            if prize.kind is BonusKind.PRIZE_GAME_SYMBOLS and not planned:
                if not self.unlocked and prize_symbols + prize.value >= cfg.prize_game_box:
                    continue
                prize_symbols += prize.value
            rounds.append(BonusRound(index, True, rows=rows))
        rounds.append(BonusRound(rng.randrange(len(panel)), False))
        self.steps.extend(rounds)
        for bonus_round in rounds[:-1]:
            self._take_effect(panel[bonus_round.prize], bonus_round.rows)

    def _fit_prize_symbols(self, panel: Panel) -> Panel:
        """Give the panel's PRIZE GAME SYMBOLS prize a value that fills the box in a few wins."""
        spec = self.cfg.bonus_prizes[BonusKind.PRIZE_GAME_SYMBOLS]
        short = self.cfg.prize_game_box - self.prize_symbols
        low = max(spec.minimum, -(-short // 3))
        value = self.rng.randint(low, max(low, min(spec.maximum, short)))
        return tuple(
            BonusPrize(p.kind, value) if p.kind is BonusKind.PRIZE_GAME_SYMBOLS else p
            for p in panel
        )

    def _harmless(self, prize: BonusPrize) -> bool:
        kind = prize.kind
        if kind is BonusKind.EXTRA_SPINS:
            return True
        if kind in SYMBOL_KINDS:
            return True  # checked against the table when placed
        if kind is BonusKind.PRIZE_GAME_SYMBOLS:
            return True  # checked against the box when awarded
        if self.cfg.bonus_prizes[kind].boost:
            return not self.plan.rows
        return False

    def _place(self, count: int, pending: list[int]) -> tuple[int, ...] | None:
        """Rows for ``count`` added symbols that complete no row outside the plan, or None."""
        free = sum(b - n for b, n in zip(self.boxes, pending, strict=True))
        wanted = min(count, free)
        trial = list(pending)
        rows = []
        for _ in range(wanted):
            safe = [
                r
                for r, n in enumerate(trial)
                for _ in range(self.boxes[r] - n - (0 if r in self.plan.rows else 1))
            ]
            if not safe:
                return None
            row = safe[self.rng.randrange(len(safe))]
            trial[row] += 1
            rows.append(row)
        pending[:] = trial
        return tuple(rows)

    def _take_effect(self, prize: BonusPrize, rows: tuple[int, ...]) -> None:
        kind = prize.kind
        if kind is BonusKind.EXTRA_SPINS:
            self.spins_left += prize.value
        elif kind in SYMBOL_KINDS:
            for row in rows:
                self.filled[row] += 1
        elif kind is BonusKind.PRIZE_GAME_SYMBOLS:
            self._add_prize_symbols(prize.value)
        elif kind is BonusKind.UNLOCK_PRIZE_GAME:
            self._add_prize_symbols(self.cfg.prize_game_box)
        else:
            self.boosts += self.cfg.bonus_prizes[kind].boost

    def _check_goals(self) -> None:
        plan = self.plan
        done = {r for r, n in enumerate(self.filled) if n >= self.boxes[r]}
        if done != set(plan.rows):
            raise PlanMissedError(f"rows {sorted(done)!r} completed, plan {sorted(plan.rows)!r}")
        if self.games_done != plan.bonus_games:
            raise PlanMissedError(f"{self.games_done} Bonus Games played, plan {plan.bonus_games}")
        if self.unlocked != (plan.route is not Route.NONE):
            raise PlanMissedError(f"Prize Game unlocked {self.unlocked}, plan {plan.route}")
        if plan.rows and min(self.boosts, self.cfg.max_level) != plan.level:
            raise PlanMissedError(f"level {self.boosts}, plan {plan.level}")
