"""The versioned JSON form of a play record: ``dumps`` and ``loads``.

Reading is strict: an unknown field, a missing field or a value of the wrong type is refused with a
``RecordFormatError`` naming the field's path (for example ``steps[3].colours[7]``). Whether the
steps obey the rules is the replayer's business, not the reader's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from colour_collector.game import strict_json
from colour_collector.game.config import BonusKind, GameConfig, load_config
from colour_collector.game.errors import RecordFormatError
from colour_collector.game.record import (
    FORMAT,
    VERSION,
    WIN,
    WIN_X2,
    BonusPrize,
    BonusRound,
    Item,
    MainSpin,
    Panel,
    Parity,
    PlayRecord,
    PrizeSpin,
    Step,
)

T = TypeVar("T")
_PRIZE_SYMBOLS = {WIN: "win", WIN_X2: "win_x2"}
_PRIZE_SYMBOL_CODES = {name: code for code, name in _PRIZE_SYMBOLS.items()}


# -- writing ---------------------------------------------------------------------------------------


def to_json(record: PlayRecord, config: GameConfig | None = None) -> dict[str, Any]:
    """The JSON object of ``record``."""
    cfg = config or load_config()
    names = cfg.item_names
    colours = cfg.colours
    return {
        "format": FORMAT,
        "version": record.version,
        "grid": [names[i] for i in record.grid],
        "prize_grid": None
        if record.prize_grid is None
        else [prize_item_json(i) for i in record.prize_grid],
        "steps": [_step_json(step, names, colours) for step in record.steps],
    }


def step_json(step: Step, config: GameConfig | None = None) -> dict[str, Any]:
    """The JSON object of one step."""
    cfg = config or load_config()
    return _step_json(step, cfg.item_names, cfg.colours)


def dumps(
    record: PlayRecord, config: GameConfig | None = None, *, indent: int | None = None
) -> str:
    """The JSON text of ``record``."""
    return json.dumps(to_json(record, config), indent=indent, ensure_ascii=False)


def prize_item_json(item: Item) -> int | str:
    """The JSON form of a Prize Game item: pence, ``"win"`` or ``"win_x2"``."""
    return _PRIZE_SYMBOLS.get(item, item)


def _panel_json(panel: Panel) -> list[dict[str, Any]]:
    return [{"kind": p.kind.value, "value": p.value} for p in panel]


def _step_json(step: Step, names: tuple[str, ...], colours: tuple[str, ...]) -> dict[str, Any]:
    if isinstance(step, MainSpin):
        return {
            "type": "spin",
            "colours": [colours[c] for c in step.colours],
            "wheel": colours[step.wheel],
            "refill": [names[i] for i in step.refill],
            "bonus_panels": [_panel_json(p) for p in step.bonus_panels],
        }
    if isinstance(step, BonusRound):
        return {
            "type": "bonus_round",
            "prize": step.prize,
            "won": step.won,
            "pick": None if step.pick is None else step.pick.value,
            "number": step.number,
            "rows": list(step.rows),
        }
    return {
        "type": "prize_spin",
        "colours": [colours[c] for c in step.colours],
        "wheel": colours[step.wheel],
        "refill": [prize_item_json(i) for i in step.refill],
    }


# -- reading ---------------------------------------------------------------------------------------


def loads(text: str | bytes, config: GameConfig | None = None) -> PlayRecord:
    """Read a play record from JSON text."""
    try:
        data = strict_json.parse(text)
    except strict_json.StrictJsonError as error:
        raise RecordFormatError(f"play record {error}") from None
    return from_json(data, config)


def from_json(data: object, config: GameConfig | None = None) -> PlayRecord:
    """Read a play record from its JSON object."""
    return _Reader(config or load_config()).record(data)


class _Reader:
    def __init__(self, config: GameConfig) -> None:
        self.items = {name: code for code, name in enumerate(config.item_names)}
        self.colours = {name: code for code, name in enumerate(config.colours)}

    def record(self, data: object) -> PlayRecord:
        obj = _object(data, "record", {"format", "version", "grid", "prize_grid", "steps"})
        if obj["format"] != FORMAT:
            raise RecordFormatError(f"field 'format' must be {FORMAT!r}, not {obj['format']!r}")
        version = obj["version"]
        if type(version) is not int or version != VERSION:
            raise RecordFormatError(
                f"field 'version' must be {VERSION} (the only version this program reads), "
                f"not {version!r}"
            )
        grid = _list(obj["grid"], "grid", self.item)
        prize_grid = (
            None
            if obj["prize_grid"] is None
            else _list(obj["prize_grid"], "prize_grid", _prize_item)
        )
        steps = _list(obj["steps"], "steps", self.step)
        return PlayRecord(grid, steps, prize_grid, version)

    def item(self, value: object, path: str) -> Item:
        if not isinstance(value, str) or value not in self.items:
            raise RecordFormatError(
                f"field {path!r} must be one of {sorted(self.items)!r}, not {value!r}"
            )
        return self.items[value]

    def colour(self, value: object, path: str) -> int:
        if not isinstance(value, str) or value not in self.colours:
            raise RecordFormatError(
                f"field {path!r} must be one of {list(self.colours)!r}, not {value!r}"
            )
        return self.colours[value]

    def step(self, value: object, path: str) -> Step:
        if not isinstance(value, dict):
            raise RecordFormatError(f"field {path!r} must be an object, not {value!r}")
        kind = value.get("type")
        if kind == "spin":
            obj = _object(value, path, {"type", "colours", "wheel", "refill", "bonus_panels"})
            return MainSpin(
                colours=_list(obj["colours"], f"{path}.colours", self.colour),
                wheel=self.colour(obj["wheel"], f"{path}.wheel"),
                refill=_list(obj["refill"], f"{path}.refill", self.item),
                bonus_panels=_list(obj["bonus_panels"], f"{path}.bonus_panels", _panel),
            )
        if kind == "bonus_round":
            obj = _object(value, path, {"type", "prize", "won", "pick", "number", "rows"})
            pick = obj["pick"]
            if pick is not None and pick not in ("odd", "even"):
                raise RecordFormatError(
                    f"field '{path}.pick' must be 'odd', 'even' or null, not {pick!r}"
                )
            number = obj["number"]
            if number is not None:
                number = _int(number, f"{path}.number")
            return BonusRound(
                prize=_int(obj["prize"], f"{path}.prize"),
                won=_bool(obj["won"], f"{path}.won"),
                pick=None if pick is None else Parity(pick),
                number=number,
                rows=_list(obj["rows"], f"{path}.rows", _int),
            )
        if kind == "prize_spin":
            obj = _object(value, path, {"type", "colours", "wheel", "refill"})
            return PrizeSpin(
                colours=_list(obj["colours"], f"{path}.colours", self.colour),
                wheel=self.colour(obj["wheel"], f"{path}.wheel"),
                refill=_list(obj["refill"], f"{path}.refill", _prize_item),
            )
        raise RecordFormatError(
            f"field '{path}.type' must be 'spin', 'bonus_round' or 'prize_spin', not {kind!r}"
        )


def _object(value: object, path: str, fields: set[str]) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise RecordFormatError(f"field {path!r} must be an object, not {type(value).__name__}")
    missing = sorted(fields - value.keys())
    if missing:
        raise RecordFormatError(f"field {path!r} lacks {', '.join(map(repr, missing))}")
    unknown = sorted(value.keys() - fields)
    if unknown:
        raise RecordFormatError(f"field {path!r} has unknown field(s) {unknown!r}")
    return value


def _list(value: object, path: str, read: Callable[[object, str], T]) -> tuple[T, ...]:
    if not isinstance(value, list):
        raise RecordFormatError(f"field {path!r} must be a list, not {value!r}")
    return tuple(read(v, f"{path}[{i}]") for i, v in enumerate(value))


def _int(value: object, path: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordFormatError(f"field {path!r} must be an integer, not {value!r}")
    return value


def _bool(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        raise RecordFormatError(f"field {path!r} must be true or false, not {value!r}")
    return value


def _prize_item(value: object, path: str) -> Item:
    if isinstance(value, str) and value in _PRIZE_SYMBOL_CODES:
        return _PRIZE_SYMBOL_CODES[value]
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise RecordFormatError(
        f"field {path!r} must be an amount in pence, 'win' or 'win_x2', not {value!r}"
    )


def _panel(value: object, path: str) -> Panel:
    return _list(value, path, _bonus_prize)


def _bonus_prize(value: object, path: str) -> BonusPrize:
    obj = _object(value, path, {"kind", "value"})
    kinds = [k.value for k in BonusKind]
    if obj["kind"] not in kinds:
        raise RecordFormatError(
            f"field '{path}.kind' must be one of {kinds!r}, not {obj['kind']!r}"
        )
    return BonusPrize(BonusKind(obj["kind"]), _int(obj["value"], f"{path}.value"))
