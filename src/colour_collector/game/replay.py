"""The replayer: recomputes what a play record is worth from the rules alone.

It shares nothing with the play generator: it reads the record, applies every step through the
rules engine, and matches the result against the published prize table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from colour_collector.game.config import GameConfig, Pence, load_config
from colour_collector.game.errors import RuleError
from colour_collector.game.prize_table import Tier, tier_for_breakdown
from colour_collector.game.record import MainSpin, PlayRecord
from colour_collector.game.rules import Game


@dataclass(frozen=True, slots=True)
class PrizeGameResult:
    """How the Prize Game ended."""

    pot: Pence
    """The Prize Pot when it ended."""
    doubled: bool
    """Whether it ended on WIN x2."""

    @property
    def amount(self) -> Pence:
        """What it pays."""
        return self.pot * 2 if self.doubled else self.pot


@dataclass(frozen=True, slots=True)
class Result:
    """What a play is worth, and why."""

    rows: tuple[int, ...]
    """Completed Prize Table rows, top first."""
    level: int
    """The Prize Table's boost level when the Main Game ended."""
    row_amounts: tuple[Pence, ...]
    """What each completed row pays at that level."""
    prize_game: PrizeGameResult | None
    """The Prize Game's result; None if the play had none."""
    tier: Tier | None
    """The published prize tier; None for no win."""
    bonus_games: int
    """Bonus Games played."""
    spins: int
    """Main Game spins played."""

    @property
    def prize(self) -> Pence:
        """The play's prize."""
        return sum(self.row_amounts) + (self.prize_game.amount if self.prize_game else 0)


def states(record: PlayRecord, config: GameConfig | None = None) -> Iterator[Game]:
    """Yield the state before any step and after each step; raise on the first broken rule."""
    game = Game(record.grid, record.prize_grid, config)
    yield game.clone()
    for step in record.steps:
        game.apply(step)
        yield game.clone()
    game.finish()


def replay(record: PlayRecord, config: GameConfig | None = None) -> Result:
    """Replay a whole play record and return its prize; raise ``RuleError`` if it breaks a rule."""
    cfg = config or load_config()
    game = Game(record.grid, record.prize_grid, cfg)
    for step in record.steps:
        game.apply(step)
    game.finish()
    return result_of(game, sum(1 for s in record.steps if isinstance(s, MainSpin)))


def result_of(game: Game, spins: int) -> Result:
    """The result of a finished game."""
    cfg = game.config
    level = game.level
    rows = game.completed_rows
    amounts = tuple(cfg.row_amount(r, level) for r in rows)
    prize_game = PrizeGameResult(game.pot, game.doubled) if game.prize_game_played else None
    pg_amount = prize_game.amount if prize_game else 0
    tier = None
    if amounts or pg_amount:
        tier = tier_for_breakdown(tuple(sorted(amounts)), pg_amount)
        if tier is None:
            parts = [f"rows {list(amounts)!r} at level {level}"] if amounts else []
            if pg_amount:
                parts.append(f"Prize Game {pg_amount!r}")
            raise RuleError(
                -1,
                "prize-not-in-table",
                f"the play pays {' + '.join(parts)} (pence), which is no prize in the prize table",
            )
    return Result(rows, level, amounts, prize_game, tier, game.bonus_games_played, spins)
