"""The versioned JSON play record: round trips, and malformed records refused by field."""

from __future__ import annotations

import json
import random

import pytest

from colour_collector.game.codec import dumps, loads, to_json
from colour_collector.game.errors import RecordFormatError
from colour_collector.game.generator import generate
from colour_collector.game.prize_table import load_tiers
from colour_collector.game.progress import play_out


@pytest.mark.parametrize("index", [None, 0, 20, 60, 98])
def test_records_round_trip(index: int | None) -> None:
    tier = None if index is None else load_tiers()[index]
    record = play_out(generate(tier, random.Random(7)), 0, random.Random(8))
    assert loads(dumps(record)) == record
    assert loads(dumps(record).encode()) == record


def sample() -> dict[str, object]:
    tier = load_tiers()[5]  # a Prize Game tier, so both grids and every step kind are present
    return to_json(play_out(generate(tier, random.Random(3)), 0, random.Random(4)))


def test_every_step_kind_is_written_by_name() -> None:
    data = sample()
    kinds = {step["type"] for step in data["steps"]}  # type: ignore[attr-defined]
    assert "spin" in kinds and "prize_spin" in kinds
    assert data["format"] == "colour-collector-play"
    assert data["version"] == 1
    assert all(isinstance(item, str) for item in data["grid"])  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("mutate", "named"),
    [
        (lambda d: d.update(format="chess"), "'format'"),
        (lambda d: d.update(version=2), "'version'"),
        (lambda d: d.update(version=True), "'version'"),
        (lambda d: d.update(version=1.0), "'version'"),
        (lambda d: d.pop("grid"), "'grid'"),
        (lambda d: d.update(extra=1), "'extra'"),
        (lambda d: d["grid"].__setitem__(3, "dragon"), "grid[3]"),
        (lambda d: d["steps"][0].update(wheel="teal"), "steps[0].wheel"),
        (lambda d: d["steps"][0]["colours"].__setitem__(7, 3), "steps[0].colours[7]"),
        (lambda d: d["steps"][0].update(type="dance"), "steps[0].type"),
        (lambda d: d["steps"][0].update(surprise=True), "surprise"),
        (lambda d: d["steps"][-1]["colours"].append(None), "steps["),
        (lambda d: d.update(prize_grid=["win", -5]), "prize_grid[1]"),
        (lambda d: d.update(steps="none"), "'steps'"),
        (lambda d: d.clear(), "lacks"),
    ],
)
def test_malformed_records_name_the_field(mutate: object, named: str) -> None:
    data = sample()
    mutate(data)  # type: ignore[operator]
    with pytest.raises(RecordFormatError) as caught:
        loads(json.dumps(data))
    assert named in str(caught.value)


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", '"record"', "\xff\xfe"])
def test_text_that_is_no_record_is_refused(text: str) -> None:
    with pytest.raises(RecordFormatError):
        loads(text)


def test_bonus_round_fields_are_typed() -> None:
    record = {
        "format": "colour-collector-play",
        "version": 1,
        "grid": ["star"] * 20,
        "prize_grid": None,
        "steps": [
            {
                "type": "bonus_round",
                "prize": "1",
                "won": True,
                "pick": None,
                "number": None,
                "rows": [],
            }
        ],
    }
    with pytest.raises(RecordFormatError, match=r"steps\[0\]\.prize"):
        loads(json.dumps(record))
    record["steps"][0].update(prize=1, pick="maybe")  # type: ignore[index]
    with pytest.raises(RecordFormatError, match=r"steps\[0\]\.pick"):
        loads(json.dumps(record))
    record["steps"][0].update(pick="odd", won=1)  # type: ignore[index]
    with pytest.raises(RecordFormatError, match=r"steps\[0\]\.won"):
        loads(json.dumps(record))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"format": "colour-collector-play", "format": "chess"}', "gives the name 'format' twice"),
        ('{"version": ' + "9" * 5000 + "}", "a number with too many digits"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (b'{"grid": "\xff"}', "not UTF-8 text"),
    ],
)
def test_text_a_reader_could_take_two_ways_or_cannot_read_is_refused_in_plain_words(
    text: str | bytes, said: str
) -> None:
    with pytest.raises(RecordFormatError) as caught:
        loads(text)
    assert str(caught.value).startswith("play record ")
    assert said in str(caught.value)
    assert "sys." not in str(caught.value)
