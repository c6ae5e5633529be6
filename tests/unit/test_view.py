"""The player's view: built from the stored play, and never ahead of what has been revealed."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from colour_collector.game.config import load_config
from colour_collector.game.generator import generate
from colour_collector.game.prize_table import load_tiers, tier_by_name
from colour_collector.game.record import BonusRound, MainSpin, PlayRecord, PrizeSpin
from colour_collector.game.replay import replay
from colour_collector.game.view import (
    Continuations,
    board,
    state_after,
    step_and_board,
    step_detail,
)
from strategies import records


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
def test_step_and_board_equals_step_detail_and_board(record: PlayRecord) -> None:
    for index in range(len(record.steps)):
        assert step_and_board(record, index) == (
            step_detail(record, index),
            board(record, index + 1),
        )


def test_step_and_board_over_generated_plays_of_every_tier() -> None:
    rng = random.Random(11)
    for tier in (None, *load_tiers()):
        for _ in range(3):
            record = generate(tier, rng)
            for index in range(len(record.steps)):
                assert step_and_board(record, index) == (
                    step_detail(record, index),
                    board(record, index + 1),
                )


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
@given(record=records(), order=st.randoms(use_true_random=False))
def test_going_on_from_kept_states_equals_replaying(
    record: PlayRecord, order: random.Random
) -> None:
    kept = Continuations(size=4)
    steps = len(record.steps)
    for index in range(steps):  # in order, as a player reveals them
        expected = (step_detail(record, index), board(record, index + 1))
        assert step_and_board(record, index, continuations=kept) == expected
    # Out of order, repeated, and with another play's steps in between: still the same.
    other = generate(None, random.Random(order.random()))
    indices = [order.randrange(steps) for _ in range(2 * steps)]
    for index in indices:
        expected = (step_detail(record, index), board(record, index + 1))
        assert step_and_board(record, index, continuations=kept) == expected
        step_and_board(other, order.randrange(len(other.steps)), continuations=kept)


def test_a_kept_state_is_given_once_and_only_for_its_own_record() -> None:
    config = load_config()
    record = generate(None, random.Random(5))
    twin = PlayRecord(record.grid, record.steps, record.prize_grid)
    assert twin == record and twin is not record
    kept = Continuations()
    kept.keep(record, 1, state_after(record, 1, config))
    assert kept.take(twin, 1, config) is None  # an equal record is another object
    kept.keep(record, 1, state_after(record, 1, config))
    assert kept.take(record, 2, config) is None  # not the number of steps applied
    kept.keep(record, 1, state_after(record, 1, config))
    game = kept.take(record, 1, config)
    assert game is not None and game.step_index == 1
    assert kept.take(record, 1, config) is None  # taken out: nobody else gets it
    assert len(kept) == 0


def test_kept_states_are_bounded() -> None:
    config = load_config()
    rng = random.Random(6)
    records = [generate(None, rng) for _ in range(5)]
    kept = Continuations(size=3)
    for record in records:
        kept.keep(record, 0, state_after(record, 0, config))
    assert len(kept) == 3
    assert kept.take(records[0], 0, config) is None  # the oldest went first
    assert kept.take(records[4], 0, config) is not None


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
