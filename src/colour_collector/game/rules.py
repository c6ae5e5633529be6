"""The rules of Colour Collector as a state machine that applies one recorded step at a time.

``Game.apply`` checks a step against every rule before changing anything and raises ``RuleError``
naming the step index and the rule broken. ``docs/rules.md`` gives each rule with the section of
the Game Procedures it comes from.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from enum import StrEnum, unique
from typing import cast

from colour_collector.game.config import SYMBOL_KINDS, BonusKind, GameConfig, Pence, load_config
from colour_collector.game.errors import RuleError
from colour_collector.game.record import (
    WIN,
    WIN_X2,
    BonusPrize,
    BonusRound,
    Colour,
    Item,
    MainSpin,
    Panel,
    PrizeSpin,
    Step,
)


@unique
class Phase(StrEnum):
    """Where a play is."""

    MAIN = "main"
    """Main Game: the next step is a spin."""
    BONUS = "bonus"
    """Bonus Game: the next step is a bonus round."""
    PRIZE = "prize"
    """Prize Game: the next step is a Prize Game spin."""
    OVER = "over"
    """The play is over: no step may follow."""


_NO_PRIZE_GRID = "the Prize Game is unlocked but the record has no Prize Game grid"

EXPECTED_STEP = {
    Phase.MAIN: MainSpin,
    Phase.BONUS: BonusRound,
    Phase.PRIZE: PrizeSpin,
}
"""The step type each phase waits for."""


@dataclass(frozen=True, slots=True)
class Award:
    """A Bonus Prize won in a round of the current Bonus Game, waiting for the game to end."""

    prize: BonusPrize
    """The prize."""
    rows: tuple[int, ...]
    """Where its shape Symbols go (symbols prizes only)."""


class Game:
    """The state of one play, advanced by ``apply``."""

    def __init__(
        self,
        grid: tuple[Item, ...],
        prize_grid: tuple[Item, ...] | None = None,
        config: GameConfig | None = None,
    ) -> None:
        self.config = config or load_config()
        """The game configuration."""
        cfg = self.config
        self._max_item = cfg.prize_game_item
        self._shapes = cfg.shapes
        self._bonus_item = cfg.bonus_item
        self._boxes = tuple(row.boxes for row in cfg.prize_table)
        if len(grid) != cfg.grid_size:
            raise RuleError(-1, "grid-size", f"grid has {len(grid)} squares, not {cfg.grid_size}")
        if not _plain_ints_within(grid, self._max_item):
            for square, item in enumerate(grid):
                self._check_main_item(-1, "grid-item", square, item)
        if prize_grid is not None:
            if len(prize_grid) != cfg.prize_grid_size:
                raise RuleError(
                    -1,
                    "prize-grid-size",
                    f"prize grid has {len(prize_grid)} squares, not {cfg.prize_grid_size}",
                )
            for square, item in enumerate(prize_grid):
                self._check_prize_item(-1, "prize-grid-item", square, item)
            symbols = (prize_grid.count(WIN), prize_grid.count(WIN_X2))
            if symbols != (1, 1):
                raise RuleError(
                    -1,
                    "prize-grid-symbols",
                    f"the Prize Game grid must hold one WIN and one WIN x2, not {symbols[0]} "
                    f"and {symbols[1]}",
                )
        self.grid: list[Item] = list(grid)
        """Items on the Main Game grid now."""
        self.step_index = 0
        """Index of the next step."""
        self.phase = Phase.MAIN
        """Where the play is."""
        self.spins_left = cfg.starting_spins
        """The Spins Left Indicator."""
        self.boosts = 0
        """Prize Table levels won so far, before the cap."""
        self.filled = [0] * cfg.shapes
        """Filled boxes in each Prize Table row."""
        self.bonus_symbols = 0
        """Filled silhouettes in the Bonus Game Box."""
        self.prize_game_symbols = 0
        """Filled silhouettes in the Prize Game Box."""
        self.prize_game_unlocked = False
        """Whether the Prize Game has been unlocked."""
        self.bonus_games_played = 0
        """Bonus Games started so far."""
        self.panels: list[Panel] = []
        """Panels of the Bonus Games still to play after the current one, in order."""
        self.panel: Panel = ()
        """Panel of the current Bonus Game."""
        self.awards: list[Award] = []
        """Prizes won so far in the current Bonus Game."""
        self.promised: list[int] = [0] * cfg.shapes
        """In a Bonus Game: filled boxes in each Prize Table row once the Symbols its prizes won
        so far are added."""
        self.prize_grid_start = prize_grid
        """The Prize Game grid at its start, as recorded."""
        self.prize_grid: list[Item] = list(prize_grid or ())
        """Items on the Prize Game grid now."""
        self.pot: Pence = 0
        """The Prize Pot."""
        self.doubled = False
        """Whether the Prize Game ended on WIN x2."""
        self.prize_game_played = False
        """Whether the Prize Game has been played to its end."""
        self.wheel: Colour = cfg.start_colour
        """The colour the Segment Indicator points at: the last spin's, orange before any."""
        self.row_colours: list[Colour | None] = [None] * cfg.shapes
        """The colour of each Prize Table row's symbol: the colour its shape was last collected
        in (None: still white)."""

    # -- state derived for players and the replayer -------------------------------------------

    @property
    def level(self) -> int:
        """The Prize Table's boost level now."""
        return min(self.boosts, self.config.max_level)

    @property
    def completed_rows(self) -> tuple[int, ...]:
        """Prize Table rows whose boxes are all filled."""
        rows = self.config.prize_table
        return tuple(r for r, n in enumerate(self.filled) if n >= rows[r].boxes)

    @property
    def prize_game_result(self) -> Pence:
        """What the Prize Game pays (0 until it has ended)."""
        if not self.prize_game_played:
            return 0
        return self.pot * 2 if self.doubled else self.pot

    @property
    def expected(self) -> type[Step] | None:
        """The step type the play waits for; None when it is over."""
        return EXPECTED_STEP.get(self.phase)

    def clone(self) -> Game:
        """An independent copy of this state."""
        return copy.deepcopy(self)

    # -- the player actions: verify / can / apply ----------------------------------------------

    def verify(self, step: Step) -> None:
        """Raise ``RuleError`` if ``step`` cannot be applied now; change nothing."""
        self.clone().apply(step)

    def can_apply(self, step: Step) -> bool:
        """Whether ``step`` can be applied now."""
        try:
            self.verify(step)
        except RuleError:
            return False
        return True

    def apply(self, step: Step) -> None:
        """Check ``step`` against the rules and apply it; on a broken rule nothing changes."""
        expected = self.expected
        if expected is None:
            raise RuleError(
                self.step_index, "play-over", f"the play is over; no {_kind(step)} may follow"
            )
        if not isinstance(step, expected):
            raise RuleError(
                self.step_index,
                "step-order",
                f"expected a {_kind_of(expected)}, got a {_kind(step)}",
            )
        if isinstance(step, MainSpin):
            self._check_main_spin(step)
            self._apply_main_spin(step)
        elif isinstance(step, BonusRound):
            self._check_bonus_round(step)
            self._apply_bonus_round(step)
        else:
            self._check_prize_spin(step)
            self._apply_prize_spin(step)
        self.step_index += 1

    def finish(self) -> None:
        """Check that the play is complete: raise ``RuleError`` if a step is missing."""
        if self.phase is Phase.PRIZE and self.prize_grid_start is None:
            raise RuleError(self.step_index, "prize-grid-missing", _NO_PRIZE_GRID)
        expected = self.expected
        if expected is not None:
            raise RuleError(
                self.step_index,
                "incomplete",
                f"the record ends while a {_kind_of(expected)} is expected",
            )
        if self.prize_grid_start is not None and not self.prize_game_unlocked:
            raise RuleError(
                -1, "prize-grid-unused", "the record has a Prize Game grid but no Prize Game"
            )

    # -- checks --------------------------------------------------------------------------------

    def _check_main_item(self, step: int, rule: str, square: int, item: object) -> None:
        if not isinstance(item, int) or not 0 <= item <= self._max_item:
            raise RuleError(step, rule, f"square {square} holds unknown item {item!r}")

    def _check_prize_item(self, step: int, rule: str, square: int, item: object) -> None:
        ok = isinstance(item, int) and (item in (WIN, WIN_X2) or item in self.config.prize_amounts)
        if not ok:
            raise RuleError(step, rule, f"prize square {square} holds unknown item {item!r}")

    def _check_colours(self, colours: tuple[int, ...], wheel: int, size: int) -> list[int]:
        """Check a spin's colours and wheel; return the collected squares."""
        i = self.step_index
        if len(colours) != size:
            raise RuleError(i, "colour-count", f"{len(colours)} colours for {size} squares")
        if not _plain_ints_within(colours, 5):
            for square, colour in enumerate(colours):
                if not isinstance(colour, int) or not 0 <= colour < 6:
                    raise RuleError(i, "colour", f"square {square} has unknown colour {colour!r}")
        if not isinstance(wheel, int) or not 0 <= wheel < 6:
            raise RuleError(i, "wheel", f"the wheel stops on unknown colour {wheel!r}")
        return [square for square, colour in enumerate(colours) if colour == wheel]

    def _check_main_spin(self, spin: MainSpin) -> None:
        i = self.step_index
        collected = self._check_colours(spin.colours, spin.wheel, self.config.grid_size)
        if len(spin.refill) != len(collected):
            raise RuleError(
                i,
                "refill-count",
                f"{_count(len(collected), 'square')} collected but"
                f" {_count(len(spin.refill), 'refill item')}",
            )
        if not _plain_ints_within(spin.refill, self._max_item):
            for square, item in zip(collected, spin.refill, strict=True):
                self._check_main_item(i, "refill-item", square, item)
        bonus_item = self.config.bonus_item
        bonus = self.bonus_symbols + sum(1 for s in collected if self.grid[s] == bonus_item)
        games = bonus // self.config.bonus_box
        if len(spin.bonus_panels) != games:
            raise RuleError(
                i,
                "bonus-panels",
                f"the spin starts {games} Bonus Game(s) "
                f"but records {len(spin.bonus_panels)} panel(s)",
            )
        for panel in spin.bonus_panels:
            self._check_panel(panel)

    def _check_panel(self, panel: Panel) -> None:
        i = self.step_index
        cfg = self.config
        if len(panel) != cfg.panel_size:
            raise RuleError(
                i, "panel-size", f"a Bonus Game panel has {len(panel)} prizes, not {cfg.panel_size}"
            )
        for prize in panel:
            if not isinstance(prize, BonusPrize) or not isinstance(prize.kind, BonusKind):
                raise RuleError(i, "bonus-prize", f"unknown Bonus Prize {prize!r}")
        kinds = [prize.kind.value for prize in panel]
        if len(set(kinds)) != len(kinds):
            raise RuleError(
                i, "panel-kinds", f"a Bonus Game panel repeats a kind of prize: {kinds!r}"
            )
        for prize in panel:
            spec = cfg.bonus_prizes[prize.kind]
            if not spec.minimum <= prize.value <= spec.maximum:
                raise RuleError(
                    i,
                    "bonus-prize-value",
                    f"{prize.kind.value} carries {prize.value!r}, "
                    f"outside {spec.minimum}..{spec.maximum}",
                )

    def _check_bonus_round(self, bonus_round: BonusRound) -> None:
        i = self.step_index
        cfg = self.config
        if not isinstance(bonus_round.prize, int) or not 0 <= bonus_round.prize < len(self.panel):
            raise RuleError(
                i, "prize-index", f"highlighted prize {bonus_round.prize!r} is not on the panel"
            )
        if (bonus_round.pick is None) != (bonus_round.number is None):
            raise RuleError(
                i,
                "pick-and-number",
                f"pick {_shown(bonus_round.pick)} and reel number {_shown(bonus_round.number)}:"
                " both are recorded or both are missing",
            )
        if bonus_round.number is not None and bonus_round.pick is not None:
            number = bonus_round.number
            if not isinstance(number, int) or not cfg.reel_min <= number <= cfg.reel_max:
                raise RuleError(
                    i,
                    "reel-number",
                    f"the reel shows {number!r}, outside {cfg.reel_min}..{cfg.reel_max}",
                )
            if bonus_round.pick.matches(number) != bonus_round.won:
                verdict = "won" if bonus_round.won else "lost"
                raise RuleError(
                    i,
                    "pick-result",
                    f"pick {bonus_round.pick.value!r} with reel number {number} "
                    f"cannot be a {verdict} round",
                )
        prize = self.panel[bonus_round.prize]
        places_symbols = bonus_round.won and prize.kind in SYMBOL_KINDS
        if not places_symbols:
            if bonus_round.rows:
                raise RuleError(
                    i,
                    "symbol-rows",
                    f"rows {list(bonus_round.rows)} given for a round that adds no symbols",
                )
            return
        pending = list(self.promised)
        free = sum(row.boxes - n for row, n in zip(cfg.prize_table, pending, strict=True))
        placed = min(prize.value, free)
        if len(bonus_round.rows) != placed:
            raise RuleError(
                i,
                "symbol-rows",
                f"{prize.value} symbols won and {free} boxes free, so {placed} rows are expected, "
                f"but {len(bonus_round.rows)} are given",
            )
        for row in bonus_round.rows:
            if not isinstance(row, int) or not 0 <= row < cfg.shapes:
                raise RuleError(i, "symbol-rows", f"row {row!r} is not on the Prize Table")
            if pending[row] >= cfg.prize_table[row].boxes:
                raise RuleError(
                    i, "symbol-rows", f"row {row} has no unfilled box for an added symbol"
                )
            pending[row] += 1

    def _check_prize_spin(self, spin: PrizeSpin) -> None:
        i = self.step_index
        if self.prize_grid_start is None:
            raise RuleError(i, "prize-grid-missing", _NO_PRIZE_GRID)
        collected = self._check_colours(spin.colours, spin.wheel, self.config.prize_grid_size)
        items = [self.prize_grid[s] for s in collected]
        ends = WIN in items or WIN_X2 in items
        expected_refill = 0 if ends else len(collected)
        if len(spin.refill) != expected_refill:
            raise RuleError(
                i,
                "refill-count",
                f"{expected_refill} refill items expected ({len(collected)} collected"
                f"{', Prize Game over' if ends else ''}), got {len(spin.refill)}",
            )
        for square, item in zip(collected, spin.refill, strict=False):
            if item in (WIN, WIN_X2):
                raise RuleError(
                    i,
                    "refill-item",
                    f"prize square {square} refills with {'WIN' if item == WIN else 'WIN x2'}:"
                    " a WIN symbol is never a refill",
                )
            self._check_prize_item(i, "refill-item", square, item)
        if ends and self.pot + sum(a for a in items if a > 0) == 0:
            raise RuleError(i, "empty-pot", "the Prize Game ends with an empty Prize Pot")

    # -- effects -------------------------------------------------------------------------------

    def _apply_main_spin(self, spin: MainSpin) -> None:
        cfg = self.config
        self.spins_left -= 1
        boxes = self._boxes
        shapes = self._shapes
        grid = self.grid
        filled = self.filled
        wheel = spin.wheel
        refill = iter(spin.refill)
        self.wheel = wheel
        for square, colour in enumerate(spin.colours):
            if colour != wheel:
                continue
            item = grid[square]
            if item < shapes:
                self.row_colours[item] = wheel
                if filled[item] < boxes[item]:
                    filled[item] += 1
            elif item == self._bonus_item:
                self.bonus_symbols += 1
            else:
                self._add_prize_game_symbols(1)
            grid[square] = next(refill)
        self.bonus_symbols -= len(spin.bonus_panels) * cfg.bonus_box
        if spin.bonus_panels:
            self.panels = list(spin.bonus_panels)
            self._start_bonus_game()
        else:
            self._after_main_step()

    def _start_bonus_game(self) -> None:
        self.panel = self.panels.pop(0)
        self.awards = []
        self.promised = list(self.filled)
        self.bonus_games_played += 1
        self.phase = Phase.BONUS

    def _apply_bonus_round(self, bonus_round: BonusRound) -> None:
        if bonus_round.won:
            self.awards.append(Award(self.panel[bonus_round.prize], bonus_round.rows))
            for row in bonus_round.rows:
                self.promised[row] += 1
            return
        for award in self.awards:
            self._take_effect(award)
        self.awards = []
        self.panel = ()
        if self.panels:
            self._start_bonus_game()
        else:
            self._after_main_step()

    def _take_effect(self, award: Award) -> None:
        prize = award.prize
        spec = self.config.bonus_prizes[prize.kind]
        if prize.kind is BonusKind.EXTRA_SPINS:
            self.spins_left += prize.value
        elif spec.boost:
            self.boosts += spec.boost
        elif prize.kind in SYMBOL_KINDS:
            for row in award.rows:
                self.filled[row] += 1
        elif prize.kind is BonusKind.PRIZE_GAME_SYMBOLS:
            self._add_prize_game_symbols(prize.value)
        elif prize.kind is BonusKind.UNLOCK_PRIZE_GAME:
            self._add_prize_game_symbols(self.config.prize_game_box)

    def _add_prize_game_symbols(self, count: int) -> None:
        if self.prize_game_unlocked:
            return
        box = self.config.prize_game_box
        self.prize_game_symbols = min(box, self.prize_game_symbols + count)
        if self.prize_game_symbols == box:
            self.prize_game_unlocked = True

    def _after_main_step(self) -> None:
        if self.spins_left > 0:
            self.phase = Phase.MAIN
        elif self.prize_game_unlocked:
            self.phase = Phase.PRIZE
        else:
            self.phase = Phase.OVER

    def _apply_prize_spin(self, spin: PrizeSpin) -> None:
        refill = iter(spin.refill)
        self.wheel = spin.wheel
        ends = False
        for square, colour in enumerate(spin.colours):
            if colour != spin.wheel:
                continue
            item = self.prize_grid[square]
            if item == WIN:
                ends = True
            elif item == WIN_X2:
                ends = True
                self.doubled = True
            else:
                self.pot += item
        if ends:
            self.prize_game_played = True
            self.phase = Phase.OVER
            return
        for square, colour in enumerate(spin.colours):
            if colour == spin.wheel:
                self.prize_grid[square] = next(refill)


def _plain_ints_within(values: tuple[object, ...], top: int) -> bool:
    """A fast, sufficient check: every value is a plain ``int`` in ``0..top``.

    False does not mean a value is bad (a subclass of int may pass the exact check); callers then
    run the exact check value by value, which names the bad value.
    """
    if not values:
        return True
    if set(map(type, values)) != {int}:
        return False
    ints = cast(tuple[int, ...], values)
    return min(ints) >= 0 and max(ints) <= top


def _kind_of(step_type: type[Step]) -> str:
    return {MainSpin: "spin", BonusRound: "bonus_round", PrizeSpin: "prize_spin"}[step_type]


def _kind(step: object) -> str:
    for step_type in (MainSpin, BonusRound, PrizeSpin):
        if isinstance(step, step_type):
            return _kind_of(step_type)
    return repr(type(step).__name__)


def _count(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless one: "1 square", "5 refill items"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _shown(value: object) -> str:
    """A recorded value as the record writes it: a pick as 'odd' or 'even', a missing one as
    none."""
    if value is None:
        return "none"
    return repr(getattr(value, "value", value))
