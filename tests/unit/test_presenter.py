"""The player's screen as the server presents it (``server.presenter``): built from the stored
play, never ahead of what has been revealed. Screens are compared as the JSON the client gets."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings

from colour_collector.game.config import load_config
from colour_collector.game.generator import generate
from colour_collector.game.prize_table import load_tiers, tier_by_name
from colour_collector.game.progress import state_after
from colour_collector.game.record import BonusRound, MainSpin, PlayRecord, PrizeSpin
from colour_collector.game.replay import replay
from colour_collector.server import presenter
from strategies import records


def board(record: PlayRecord, revealed: int) -> dict[str, Any]:
    return presenter.board(record, revealed).model_dump(mode="json")


def step_detail(record: PlayRecord, index: int) -> dict[str, Any]:
    shown, _ = presenter.step_and_board(record, index)
    return shown.model_dump(mode="json")


def steps_as_json(record: PlayRecord, revealed: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [
        (shown.model_dump(mode="json"), screen.model_dump(mode="json"))
        for shown, screen in presenter.steps_shown(record, revealed)
    ]


@settings(max_examples=40, deadline=None)
@given(record=records())
def test_the_result_appears_only_at_the_end(record: PlayRecord) -> None:
    steps = len(record.steps)
    for revealed in range(steps):
        view = board(record, revealed)
        assert view["result"] is None
        assert view["next"] is not None
        assert view["revealed"] == revealed
    final = board(record, steps)
    result = replay(record)
    assert final["next"] is None
    assert final["phase"] == "over"
    assert final["result"]["prize_pence"] == result.prize
    assert final["result"]["tier"] == (None if result.tier is None else result.tier.name)


@settings(max_examples=40, deadline=None)
@given(record=records())
def test_one_pass_over_the_steps_equals_each_screen_built_alone(record: PlayRecord) -> None:
    steps = len(record.steps)
    assert steps_as_json(record, steps) == [
        (step_detail(record, index), board(record, index + 1)) for index in range(steps)
    ]


def test_screens_over_generated_plays_of_every_tier() -> None:
    rng = random.Random(11)
    for tier in (None, *load_tiers()):
        for _ in range(3):
            record = generate(tier, rng)
            steps = len(record.steps)
            assert steps_as_json(record, steps) == [
                (step_detail(record, index), board(record, index + 1)) for index in range(steps)
            ]


def test_the_board_shows_the_grid_with_the_colours_of_the_next_spin() -> None:
    cfg = load_config()
    record = generate(None, random.Random(4))
    view = board(record, 0)
    first = record.steps[0]
    assert isinstance(first, MainSpin)
    assert view["spins_left"] == cfg.starting_spins
    assert [s["item"] for s in view["grid"]] == [cfg.item_names[i] for i in record.grid]
    assert [s["colour"] for s in view["grid"]] == [cfg.colours[c] for c in first.colours]
    assert [row["filled"] for row in view["prize_table"]] == [0] * cfg.shapes
    assert view["prize_game"] is None
    after = board(record, 1)
    assert after["spins_left"] == cfg.starting_spins - 1 or after["phase"] == "bonus"


def test_the_prize_game_grid_is_hidden_until_the_prize_game() -> None:
    tier = tier_by_name("£10 (£10 Prize Game)")
    record = generate(tier, random.Random(8))
    first_prize_spin = next(i for i, s in enumerate(record.steps) if isinstance(s, PrizeSpin))
    for revealed in range(first_prize_spin):
        assert board(record, revealed)["prize_game"] is None
    view = board(record, first_prize_spin)
    assert view["phase"] == "prize"
    assert view["prize_game"]["pot_pence"] == 0
    final = board(record, len(record.steps))
    assert final["prize_game"]["over"] is True
    assert final["result"]["prize_game_pence"] == 1000


def test_a_bonus_game_view_shows_its_panel_and_no_future_round() -> None:
    rng = random.Random(9)
    while True:
        record = generate(tier_by_name("£10 (£10 Prize Game)"), rng)
        rounds = [i for i, s in enumerate(record.steps) if isinstance(s, BonusRound)]
        if len(rounds) >= 2:
            break
    view = board(record, rounds[0])
    assert view["phase"] == "bonus"
    assert len(view["bonus_game"]["panel"]) == load_config().panel_size
    assert view["bonus_game"]["rounds"] == []
    detail = step_detail(record, rounds[0])
    assert detail["kind"] == "bonus_pick"
    assert detail["index"] == rounds[0]


def test_step_detail_names_the_collected_items() -> None:
    cfg = load_config()
    record = generate(None, random.Random(10))
    spin = record.steps[0]
    assert isinstance(spin, MainSpin)
    detail = step_detail(record, 0)
    collected = [s for s, c in enumerate(spin.colours) if c == spin.wheel]
    assert detail["wheel"] == cfg.colours[spin.wheel]
    assert detail["collected"] == collected
    assert detail["collected_items"] == [cfg.item_names[record.grid[s]] for s in collected]


@settings(max_examples=40, deadline=None)
@given(record=records())
def test_the_wheel_and_prize_table_colours_are_where_the_play_left_them(
    record: PlayRecord,
) -> None:
    cfg = load_config()
    assert board(record, 0)["wheel"] == cfg.colours[cfg.start_colour]
    assert all(row["colour"] is None for row in board(record, 0)["prize_table"])
    wheel, rows = cfg.colours[cfg.start_colour], [None] * cfg.shapes
    for index, step in enumerate(record.steps):
        if isinstance(step, MainSpin):
            before = state_after(record, index).grid
            wheel = cfg.colours[step.wheel]
            for square, colour in enumerate(step.colours):
                if colour == step.wheel and before[square] < cfg.shapes:
                    rows[before[square]] = wheel
        elif isinstance(step, PrizeSpin):
            wheel = cfg.colours[step.wheel]
        view = board(record, index + 1)
        assert view["wheel"] == wheel
        assert [row["colour"] for row in view["prize_table"]] == rows


def test_the_final_prize_game_board_marks_what_the_last_spin_took() -> None:
    for name in ("£10 (£10 Prize Game)", "£5,000 (£5,000 Prize Game)"):
        record = generate(tier_by_name(name), random.Random(12))
        last = record.steps[-1]
        assert isinstance(last, PrizeSpin)
        taken = [s for s, c in enumerate(last.colours) if c == last.wheel]
        final = board(record, len(record.steps))["prize_game"]
        assert [s for s, square in enumerate(final["grid"]) if square["collected"]] == taken
        assert {final["grid"][s]["item"] for s in taken} & {"win", "win_x2"}  # it ended the game
        before = board(record, len(record.steps) - 1)["prize_game"]
        assert not any(square["collected"] for square in before["grid"])


@settings(max_examples=30, deadline=None)
@given(record=records())
def test_a_play_opened_again_carries_its_last_step_and_the_screen_before_it(
    record: PlayRecord,
) -> None:
    screen, last = presenter.resumed(record, 0)
    assert last is None and screen.model_dump(mode="json") == board(record, 0)
    recalled = steps_as_json(record, len(record.steps))
    for revealed in range(1, len(record.steps) + 1):
        screen, last = presenter.resumed(record, revealed)
        assert last is not None
        shown, after = recalled[revealed - 1]
        assert screen.model_dump(mode="json") == after
        assert last.step.model_dump(mode="json") == shown
        assert last.before.model_dump(mode="json") == board(record, revealed - 1)
