"""Golden play records: complete plays checked in, replayed by the current rules.

The records and ``manifest.json`` are written by ``scripts/regenerate-golden`` and never edited
by hand. A change to the rules or the record format that alters what a stored play is worth fails
here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from colour_collector.game.codec import dumps, loads
from colour_collector.game.errors import RuleError
from colour_collector.game.record import BonusRound, MainSpin
from colour_collector.game.replay import replay

HERE = Path(__file__).resolve().parent
MANIFEST: list[dict[str, Any]] = json.loads((HERE / "manifest.json").read_text("utf-8"))


def test_the_manifest_lists_every_golden_record() -> None:
    files = sorted(p.name for p in HERE.glob("*.json") if p.name != "manifest.json")
    assert sorted(entry["file"] for entry in MANIFEST) == files
    assert len(files) == 6


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e["file"])
def test_a_golden_record_replays_to_its_tier_and_prize(entry: dict[str, Any]) -> None:
    text = (HERE / entry["file"]).read_text("utf-8")
    record = loads(text)
    result = replay(record)
    assert (None if result.tier is None else result.tier.name) == entry["tier"]
    assert result.prize == entry["prize_pence"]
    assert result.level == entry["level"]
    assert result.bonus_games == entry["bonus_games"]
    doubled = None if result.prize_game is None else result.prize_game.doubled
    assert doubled == entry["prize_game_doubled"]
    assert dumps(record, indent=2) + "\n" == text  # the stored text is exactly the codec's
    for step in record.steps:  # a complete play: every pick and reel number is recorded
        if isinstance(step, BonusRound):
            assert step.pick is not None
            assert step.number is not None


def test_the_golden_set_covers_each_kind_of_play() -> None:
    by_file = {entry["file"]: entry for entry in MANIFEST}
    assert by_file["no_win.json"]["tier"] is None
    assert by_file["main_game_win.json"]["tier"] == "£5"
    assert by_file["bonus_game.json"]["bonus_games"] >= 1
    assert by_file["prize_game_by_symbols.json"]["tier"] == "£15 (£15 Prize Game)"
    assert by_file["prize_game_by_bonus_prize_x2.json"]["prize_game_doubled"] is True
    assert by_file["top_prize.json"]["prize_pence"] == 100_000_000


def test_changing_one_colour_breaks_the_refill_rule_at_that_step() -> None:
    record = loads((HERE / "no_win.json").read_text("utf-8"))
    index, spin = next((i, s) for i, s in enumerate(record.steps) if isinstance(s, MainSpin))
    square = next(s for s, c in enumerate(spin.colours) if c != spin.wheel)
    colours = list(spin.colours)
    colours[square] = spin.wheel  # one more square collected, no refill item for it
    broken = record.with_step(
        index, MainSpin(tuple(colours), spin.wheel, spin.refill, spin.bonus_panels)
    )
    with pytest.raises(RuleError) as raised:
        replay(broken)
    assert raised.value.step == index
    assert raised.value.rule == "refill-count"
    assert "squares collected but" in raised.value.detail  # counted in words, not code


@pytest.mark.parametrize(
    ("change", "rule", "said"),
    [
        ({"number": None}, "pick-and-number", "pick 'even' and reel number none"),
        ({"won": False, "number": 7}, "symbol-rows", "rows [5, 1, 5, 3, 4, 3]"),
    ],
)
def test_a_broken_bonus_round_is_said_as_the_record_writes_it(
    change: dict[str, Any], rule: str, said: str
) -> None:
    data = json.loads((HERE / "bonus_game.json").read_text("utf-8"))
    data["steps"][4].update(change)
    with pytest.raises(RuleError) as raised:
        replay(loads(json.dumps(data)))
    assert (raised.value.step, raised.value.rule) == (4, rule)
    assert said in raised.value.detail
    assert "Parity" not in raised.value.detail and "(" not in raised.value.detail
