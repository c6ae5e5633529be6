"""Revealing a stored play one step at a time.

A play is stored whole at purchase; the player reveals it step by step. ``revealed`` counts the
steps the player has seen. The only thing the player adds is a pick in each Bonus Game round: the
round's result is fixed in the record, so the reel number is drawn, when the player picks, among
the numbers whose parity gives that result. Nothing the player does changes the outcome.
"""

from __future__ import annotations

import random
from dataclasses import replace
from enum import StrEnum, unique

from colour_collector.game.config import GameConfig, load_config
from colour_collector.game.errors import GameError
from colour_collector.game.record import BonusRound, MainSpin, Parity, PlayRecord, PrizeSpin, Step
from colour_collector.game.rules import Game


@unique
class StepKind(StrEnum):
    """What the player does next."""

    SPIN = "spin"
    """Press SPIN in the Main Game."""
    BONUS_PICK = "bonus_pick"
    """Pick ODD or EVEN in the Bonus Game."""
    PRIZE_SPIN = "prize_spin"
    """Press SPIN in the Prize Game."""


KIND_OF_STEP: dict[type[Step], StepKind] = {
    MainSpin: StepKind.SPIN,
    BonusRound: StepKind.BONUS_PICK,
    PrizeSpin: StepKind.PRIZE_SPIN,
}
"""The player action that reveals each kind of step."""


class StepConflictError(GameError, ValueError):
    """The player asked for a step that is not the next one."""

    def __init__(self, expected: StepKind | None, got: str) -> None:
        self.expected = expected
        """The step the play waits for; None when the play is over."""
        self.got = got
        """What was asked for."""
        wanted = "nothing: the play is over" if expected is None else repr(expected.value)
        super().__init__(f"expected {wanted}, got {got!r}")


def expected_step(record: PlayRecord, revealed: int) -> StepKind | None:
    """What the player does next; None once every step is revealed."""
    if revealed >= len(record.steps):
        return None
    return KIND_OF_STEP[type(record.steps[revealed])]


def reel_number(won: bool, pick: Parity, rng: random.Random, config: GameConfig) -> int:
    """A reel number for a round fixed as ``won``: matching ``pick``'s parity exactly when won."""
    numbers = [n for n in range(config.reel_min, config.reel_max + 1) if pick.matches(n) == won]
    return numbers[rng.randrange(len(numbers))]


def reveal(
    record: PlayRecord,
    revealed: int,
    kind: StepKind | str,
    pick: Parity | None,
    rng: random.Random,
    *,
    config: GameConfig | None = None,
) -> PlayRecord:
    """Reveal the next step: check it is ``kind``; for a bonus pick, record the pick and number.

    Returns the record to store (unchanged except for a bonus round's pick and number); the new
    ``revealed`` is ``revealed + 1``.
    """
    expected = expected_step(record, revealed)
    if expected is None or expected.value != str(kind):
        raise StepConflictError(expected, str(kind))
    step = record.steps[revealed]
    if isinstance(step, BonusRound):
        if pick is None:
            raise ValueError("a Bonus Game round needs a pick: 'odd' or 'even'")
        number = reel_number(step.won, pick, rng, config or load_config())
        return record.with_step(revealed, replace(step, pick=pick, number=number))
    if pick is not None:
        raise ValueError(f"only a Bonus Game round takes a pick, not a {expected.value!r}")
    return record


def play_out(
    record: PlayRecord,
    revealed: int,
    rng: random.Random,
    picks: Parity | None = None,
    config: GameConfig | None = None,
) -> PlayRecord:
    """Reveal every remaining step; bonus picks are ``picks``, or random when None."""
    cfg = config or load_config()
    for index in range(revealed, len(record.steps)):
        kind = expected_step(record, index)
        assert kind is not None  # index < len(steps)
        pick = None
        if kind is StepKind.BONUS_PICK:
            pick = picks or (Parity.ODD, Parity.EVEN)[rng.randrange(2)]
        record = reveal(record, index, kind, pick, rng, config=cfg)
    return record


def state_after(record: PlayRecord, revealed: int, config: GameConfig | None = None) -> Game:
    """The rules state after the first ``revealed`` steps (what the player's screen shows)."""
    game = Game(record.grid, record.prize_grid, config or load_config())
    for step in record.steps[:revealed]:
        game.apply(step)
    return game
