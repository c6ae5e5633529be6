"""Revealing a stored play: the player's picks never change what the play is worth."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

from colour_collector.game.generator import generate
from colour_collector.game.prize_table import Tier, tier_by_name
from colour_collector.game.progress import (
    StepConflictError,
    StepKind,
    expected_step,
    play_out,
    reveal,
)
from colour_collector.game.record import BonusRound, Parity, PlayRecord
from colour_collector.game.replay import replay
from strategies import outcomes, picks, records, seeds


def _check_rounds(stored: PlayRecord, played: PlayRecord) -> int:
    """Every round of ``played`` kept its fixed result and has a pick and number that agree."""
    rounds = 0
    for before, after in zip(stored.steps, played.steps, strict=True):
        if isinstance(before, BonusRound):
            assert isinstance(after, BonusRound)
            assert after.won == before.won
            assert (after.prize, after.rows) == (before.prize, before.rows)
            assert after.pick is not None
            assert after.number is not None
            assert 1 <= after.number <= 12
            assert after.pick.matches(after.number) == after.won
            rounds += 1
        else:
            assert after == before
    return rounds


@settings(max_examples=200, deadline=None)
@given(outcome=outcomes, seed=seeds, pick_seed=seeds)
def test_all_odd_all_even_and_random_picks_give_the_same_prize(
    outcome: Tier | None, seed: int, pick_seed: int
) -> None:
    stored = generate(outcome, random.Random(seed))
    expected = replay(stored)
    assert expected.tier == outcome
    for picks_of in (Parity.ODD, Parity.EVEN, None):
        played = play_out(stored, 0, random.Random(pick_seed), picks_of)
        result = replay(played)
        assert (result.tier, result.prize) == (expected.tier, expected.prize)
        _check_rounds(stored, played)


def test_plays_with_bonus_games_are_covered() -> None:
    rng = random.Random(3)
    rounds = 0
    for _ in range(50):
        stored = generate(tier_by_name("£10 (£10 Prize Game)"), rng)
        for picks_of in (Parity.ODD, Parity.EVEN, None):
            played = play_out(stored, 0, rng, picks_of)
            assert replay(played).tier == tier_by_name("£10 (£10 Prize Game)")
            rounds += _check_rounds(stored, played)
    assert rounds > 100  # both won and lost rounds were exercised many times


@settings(max_examples=50, deadline=None)
@given(record=records(), pick=picks, seed=seeds)
def test_revealing_part_way_then_playing_out_is_the_same(
    record: PlayRecord, pick: Parity, seed: int
) -> None:
    half = len(record.steps) // 2
    rng = random.Random(seed)
    partial = record
    for index in range(half):
        kind = expected_step(partial, index)
        assert kind is not None
        partial = reveal(partial, index, kind, pick if kind is StepKind.BONUS_PICK else None, rng)
    finished = play_out(partial, half, rng, pick)
    assert replay(finished).tier == replay(record).tier


def test_revealing_the_wrong_kind_of_step_is_refused() -> None:
    record = generate(None, random.Random(1))
    with pytest.raises(StepConflictError, match="expected 'spin', got 'bonus_pick'"):
        reveal(record, 0, StepKind.BONUS_PICK, Parity.ODD, random.Random(0))
    with pytest.raises(ValueError, match="only a Bonus Game round takes a pick"):
        reveal(record, 0, StepKind.SPIN, Parity.ODD, random.Random(0))
    with pytest.raises(StepConflictError, match="the play is over"):
        reveal(record, len(record.steps), StepKind.SPIN, None, random.Random(0))


def test_a_bonus_round_needs_a_pick() -> None:
    rng = random.Random(2)
    while True:
        record = generate(tier_by_name("£10 (£10 Prize Game)"), rng)
        index = next((i for i, s in enumerate(record.steps) if isinstance(s, BonusRound)), None)
        if index is not None:
            break
    with pytest.raises(ValueError, match="needs a pick"):
        reveal(record, index, StepKind.BONUS_PICK, None, rng)
