"""The play record: the ordered, immutable steps of one play, and its versioned JSON form.

Inside the core, colours and grid items are small integers (see ``GameConfig``): colour ``i`` is
``config.colours[i]``; a Main Game item is a shape row index, ``config.bonus_item`` or
``config.prize_game_item``; a Prize Game item is an amount in pence, ``WIN`` or ``WIN_X2``.
The JSON form spells every one of them out by name (docs/play-record.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum, unique
from typing import TypeAlias

from colour_collector.game.config import BonusKind

FORMAT = "colour-collector-play"
"""Value of the ``format`` field of every JSON play record."""
VERSION = 1
"""Current version of the JSON play record."""

Colour: TypeAlias = int
"""Index of a colour in ``GameConfig.colours``."""
Item: TypeAlias = int
"""A Main Game grid item code, or a Prize Game grid item (pence, ``WIN`` or ``WIN_X2``)."""
RowIndex: TypeAlias = int
"""Index of a Prize Table row, top row first."""

WIN: Item = -1
"""The Prize Game's WIN symbol: collecting it ends the Prize Game and pays the pot."""
WIN_X2: Item = -2
"""The Prize Game's WIN x2 symbol: collecting it ends the Prize Game and pays twice the pot."""


@unique
class Parity(StrEnum):
    """The player's pick in a Bonus Game round."""

    ODD = "odd"
    """The ODD button."""
    EVEN = "even"
    """The EVEN button."""

    def matches(self, number: int) -> bool:
        """Whether ``number`` has this parity."""
        return (number % 2 == 1) == (self is Parity.ODD)


@dataclass(frozen=True, slots=True)
class BonusPrize:
    """One Bonus Prize on the Bonus Game Panel."""

    kind: BonusKind
    """What the prize does."""
    value: int = 0
    """Spins or symbols it carries; 0 for kinds that carry no number."""

    def __repr__(self) -> str:
        return f"BonusPrize(BonusKind.{self.kind.name}, {self.value!r})"


Panel: TypeAlias = tuple[BonusPrize, ...]
"""The seven Bonus Prizes of one Bonus Game, top first."""


@dataclass(frozen=True, slots=True)
class MainSpin:
    """A Main Game spin: the colours shown before it, where the wheel stops, what refills."""

    colours: tuple[Colour, ...]
    """Colour of every grid square before the spin, square 0 top left, row by row."""
    wheel: Colour
    """The colour the Segment Indicator points at when the wheel stops."""
    refill: tuple[Item, ...]
    """New items for the collected squares, in square order."""
    bonus_panels: tuple[Panel, ...] = ()
    """The panel of each Bonus Game this spin starts, in the order they are played."""


@dataclass(frozen=True, slots=True)
class BonusRound:
    """One round of a Bonus Game: the player picks, the reel stops, a prize is highlighted."""

    prize: int
    """Index on the panel of the Bonus Prize the highlight stops on."""
    won: bool
    """Whether the round is won; fixed at purchase."""
    pick: Parity | None = None
    """The player's pick; None until the player has picked."""
    number: int | None = None
    """The number the reel shows; chosen when the player picks, None until then."""
    rows: tuple[RowIndex, ...] = ()
    """For a won symbols prize: the Prize Table row each added symbol goes to."""


@dataclass(frozen=True, slots=True)
class PrizeSpin:
    """A Prize Game spin."""

    colours: tuple[Colour, ...]
    """Colour of every Prize Game square before the spin."""
    wheel: Colour
    """The colour the Segment Indicator points at when the wheel stops."""
    refill: tuple[Item, ...]
    """New items for the collected squares, in square order; empty on the final spin."""


Step: TypeAlias = MainSpin | BonusRound | PrizeSpin
"""One recorded step of a play."""


@dataclass(frozen=True, slots=True)
class PlayRecord:
    """A whole play: the starting grids and every step, in order."""

    grid: tuple[Item, ...]
    """The Main Game grid at the start."""
    steps: tuple[Step, ...]
    """Every step of the play, in order."""
    prize_grid: tuple[Item, ...] | None = None
    """The Prize Game grid at its start; None when the play has no Prize Game."""
    version: int = field(default=VERSION)
    """Version of the record format."""

    def with_step(self, index: int, step: Step) -> PlayRecord:
        """A copy with step ``index`` replaced."""
        steps = list(self.steps)
        steps[index] = step
        return PlayRecord(self.grid, tuple(steps), self.prize_grid, self.version)
