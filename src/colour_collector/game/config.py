"""The game configuration: every number of the game, read from ``data/game.toml``."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum, unique
from functools import cache
from importlib import resources
from typing import Any, TypeAlias

from colour_collector.game.errors import ConfigError

Pence: TypeAlias = int
"""An amount of money in pence."""


@unique
class BonusKind(StrEnum):
    """The kinds of Bonus Prize on the Bonus Game Panel."""

    EXTRA_SPINS = "extra_spins"
    """Adds 1 to 3 spins to the Spins Left Indicator."""
    PRIZE_BOOSTER = "prize_booster"
    """Raises the Prize Table one level."""
    SUPER_PRIZE_BOOSTER = "super_prize_booster"
    """Raises the Prize Table two levels."""
    MEGA_PRIZE_BOOSTER = "mega_prize_booster"
    """Raises the Prize Table three levels."""
    SYMBOLS = "symbols"
    """Adds a few shape Symbols to the Prize Table."""
    MORE_SYMBOLS = "more_symbols"
    """Adds many shape Symbols to the Prize Table."""
    PRIZE_GAME_SYMBOLS = "prize_game_symbols"
    """Adds 1 to 3 symbols to the Prize Game Box."""
    UNLOCK_PRIZE_GAME = "unlock_prize_game"
    """Fills the Prize Game Box: the Prize Game is unlocked."""


COUNTED_KINDS = frozenset(
    {BonusKind.EXTRA_SPINS, BonusKind.SYMBOLS, BonusKind.MORE_SYMBOLS, BonusKind.PRIZE_GAME_SYMBOLS}
)
"""Bonus Prize kinds that carry a number (spins or symbols)."""
SYMBOL_KINDS = frozenset({BonusKind.SYMBOLS, BonusKind.MORE_SYMBOLS})
"""Bonus Prize kinds that place shape Symbols on the Prize Table."""


@dataclass(frozen=True, slots=True)
class PrizeRow:
    """One row of the Prize Table."""

    shape: str
    """Name of the row's shape Symbol."""
    boxes: int
    """Boxes to fill to win the row."""
    amounts: tuple[Pence, ...]
    """The row's amount at each boost level, level 0 first."""


@dataclass(frozen=True, slots=True)
class BonusPrizeSpec:
    """What one kind of Bonus Prize may carry."""

    kind: BonusKind
    """The kind."""
    label: str
    """Text shown on the panel."""
    minimum: int
    """Smallest number the prize may carry (0 for prizes that carry none)."""
    maximum: int
    """Largest number the prize may carry (0 for prizes that carry none)."""
    boost: int
    """Prize Table levels the prize raises the table by (0 for other kinds)."""


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Every number of the game."""

    price: Pence
    """Price of one play."""
    starting_spins: int
    """Spins at the start of the Main Game."""
    colours: tuple[str, ...]
    """Colour names in wheel order; colour ``i`` of a record is ``colours[i]``."""
    colour_letters: tuple[str, ...]
    """One letter per colour, for players who cannot tell colours apart."""
    start_colour: int
    """Colour the Segment Indicator shows at the start."""
    grid_columns: int
    """Columns of the Main Game grid."""
    grid_rows: int
    """Rows of the Main Game grid."""
    prize_table: tuple[PrizeRow, ...]
    """The Prize Table, top row first."""
    bonus_box: int
    """Bonus symbols that start a Bonus Game."""
    panel_size: int
    """Bonus Prizes on the Bonus Game Panel."""
    reel_min: int
    """Smallest number on the Bonus Reel."""
    reel_max: int
    """Largest number on the Bonus Reel."""
    bonus_prizes: Mapping[BonusKind, BonusPrizeSpec]
    """What each Bonus Prize kind may carry."""
    prize_game_box: int
    """Prize Game symbols that unlock the Prize Game."""
    prize_grid_columns: int
    """Columns of the Prize Game grid."""
    prize_grid_rows: int
    """Rows of the Prize Game grid."""
    prize_amounts: tuple[Pence, ...]
    """Money amounts that can appear on the Prize Game grid, ascending."""
    max_level: int
    """Highest Prize Table boost level."""
    item_weights: tuple[int, ...]
    """Generator only: weight of each grid item in a natural fill."""
    prize_amount_weights: tuple[int, ...]
    """Generator only: weight of each Prize Game amount on squares a play does not collect."""

    @property
    def grid_size(self) -> int:
        """Squares on the Main Game grid."""
        return self.grid_columns * self.grid_rows

    @property
    def prize_grid_size(self) -> int:
        """Squares on the Prize Game grid."""
        return self.prize_grid_columns * self.prize_grid_rows

    @property
    def shapes(self) -> int:
        """Number of shape Symbols (one per Prize Table row)."""
        return len(self.prize_table)

    @property
    def bonus_item(self) -> int:
        """Grid item code of the Bonus symbol (shapes are ``0..shapes-1``)."""
        return len(self.prize_table)

    @property
    def prize_game_item(self) -> int:
        """Grid item code of the Prize Game symbol."""
        return len(self.prize_table) + 1

    @property
    def item_names(self) -> tuple[str, ...]:
        """Name of each grid item code."""
        return (*(row.shape for row in self.prize_table), "bonus", "prize_game")

    def row_amount(self, row: int, level: int) -> Pence:
        """Amount of Prize Table row ``row`` at boost level ``level``."""
        return self.prize_table[row].amounts[level]


class _Reader:
    """Reads typed values out of the parsed TOML, naming the key of any bad value."""

    def __init__(self, data: Mapping[str, Any], where: str = "") -> None:
        self.data = data
        self.where = where

    def key(self, name: str) -> str:
        return f"{self.where}{name}"

    def get(self, name: str) -> Any:
        if name not in self.data:
            raise ConfigError(f"missing key {self.key(name)!r}")
        return self.data[name]

    def table(self, name: str) -> _Reader:
        value = self.get(name)
        if not isinstance(value, dict):
            raise ConfigError(f"key {self.key(name)!r} must be a table, not {value!r}")
        return _Reader(value, f"{self.key(name)}.")

    def integer(self, name: str, minimum: int = 0, default: int | None = None) -> int:
        if default is not None and name not in self.data:
            return default
        value = self.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise ConfigError(
                f"key {self.key(name)!r} must be an integer >= {minimum}, not {value!r}"
            )
        return value

    def text(self, name: str) -> str:
        value = self.get(name)
        if not isinstance(value, str) or not value:
            raise ConfigError(f"key {self.key(name)!r} must be a non-empty string, not {value!r}")
        return value

    def ints(self, name: str, length: int | None = None, minimum: int = 1) -> tuple[int, ...]:
        value = self.get(name)
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in value
        ):
            raise ConfigError(
                f"key {self.key(name)!r} must be a list of integers >= {minimum}, not {value!r}"
            )
        if length is not None and len(value) != length:
            raise ConfigError(f"key {self.key(name)!r} must have {length} entries, not {value!r}")
        return tuple(value)

    def strs(self, name: str) -> tuple[str, ...]:
        value = self.get(name)
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ConfigError(f"key {self.key(name)!r} must be a list of strings, not {value!r}")
        return tuple(value)


def parse_config(text: str) -> GameConfig:
    """Parse and validate a game configuration from TOML text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"game configuration is not valid TOML: {exc}") from None
    top = _Reader(data)
    colours = top.table("colours")
    names = colours.strs("names")
    letters = colours.strs("letters")
    if len(names) != 6 or len(set(names)) != 6:
        raise ConfigError(f"key 'colours.names' must hold six different colours, not {names!r}")
    if len(letters) != 6 or len(set(letters)) != 6:
        raise ConfigError(f"key 'colours.letters' must hold six different letters, not {letters!r}")
    start = colours.text("start")
    if start not in names:
        raise ConfigError(f"key 'colours.start' must be one of {names!r}, not {start!r}")
    levels = top.table("levels")
    max_level = levels.integer("max")
    raw_rows = top.get("prize_table")
    if not isinstance(raw_rows, list) or len(raw_rows) != 7:
        raise ConfigError(f"key 'prize_table' must hold seven rows, not {raw_rows!r}")
    rows = []
    for i, raw in enumerate(raw_rows):
        if not isinstance(raw, dict):
            raise ConfigError(f"key 'prize_table[{i}]' must be a table, not {raw!r}")
        row = _Reader(raw, f"prize_table[{i}].")
        rows.append(
            PrizeRow(
                shape=row.text("shape"),
                boxes=row.integer("boxes", minimum=1),
                amounts=row.ints("amounts_pence", length=max_level + 1),
            )
        )
    if len({r.shape for r in rows}) != len(rows):
        raise ConfigError(f"key 'prize_table' repeats a shape: {[r.shape for r in rows]!r}")
    for i, r in enumerate(rows):
        if list(r.amounts) != sorted(r.amounts):
            raise ConfigError(
                f"key 'prize_table[{i}].amounts_pence' must not fall as the level rises, "
                f"not {list(r.amounts)!r}"
            )
    grid = top.table("grid")
    bonus = top.table("bonus_game")
    prizes = bonus.table("prizes")
    specs: dict[BonusKind, BonusPrizeSpec] = {}
    for kind in BonusKind:
        spec = prizes.table(kind.value)
        counted = kind in COUNTED_KINDS
        minimum = spec.integer("min", minimum=1) if counted else 0
        maximum = spec.integer("max", minimum=minimum) if counted else 0
        specs[kind] = BonusPrizeSpec(
            kind=kind,
            label=spec.text("label"),
            minimum=minimum,
            maximum=maximum,
            boost=spec.integer("boost", minimum=0, default=0),
        )
    unknown = set(prizes.data) - {k.value for k in BonusKind}
    if unknown:
        raise ConfigError(f"key 'bonus_game.prizes' has unknown kinds {sorted(unknown)!r}")
    prize_game = top.table("prize_game")
    amounts = prize_game.ints("amounts_pence")
    if list(amounts) != sorted(set(amounts)):
        raise ConfigError(
            f"key 'prize_game.amounts_pence' must be distinct and ascending, not {list(amounts)!r}"
        )
    generator = top.table("generator")
    item_weights = generator.ints("item_weights", length=len(rows) + 2)
    prize_amount_weights = generator.ints("prize_amount_weights", length=len(amounts))
    config = GameConfig(
        price=top.integer("price_pence", minimum=1),
        starting_spins=top.integer("starting_spins", minimum=1),
        colours=names,
        colour_letters=letters,
        start_colour=names.index(start),
        grid_columns=grid.integer("columns", minimum=1),
        grid_rows=grid.integer("rows", minimum=1),
        prize_table=tuple(rows),
        bonus_box=bonus.integer("box_size", minimum=1),
        panel_size=bonus.integer("panel_size", minimum=1),
        reel_min=bonus.integer("reel_min", minimum=1),
        reel_max=bonus.integer("reel_max", minimum=2),
        bonus_prizes=specs,
        prize_game_box=prize_game.integer("box_size", minimum=1),
        prize_grid_columns=prize_game.integer("columns", minimum=1),
        prize_grid_rows=prize_game.integer("rows", minimum=1),
        prize_amounts=amounts,
        max_level=max_level,
        item_weights=item_weights,
        prize_amount_weights=prize_amount_weights,
    )
    if config.reel_max <= config.reel_min:
        raise ConfigError(
            f"key 'bonus_game.reel_max' must exceed reel_min, not {config.reel_max!r}"
        )
    return config


@cache
def load_config() -> GameConfig:
    """The game configuration shipped with the package (read once)."""
    text = resources.files("colour_collector.game").joinpath("data/game.toml").read_text("utf-8")
    return parse_config(text)
