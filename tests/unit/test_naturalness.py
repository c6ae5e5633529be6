"""The naturalness battery, reduced: generated plays against natural plays of the same tier class.

For every tier class (``naturalness.CLASSES``) a natural reference sample and a generated sample
with the same tiers are measured through the rules (``play_statistics``) and compared statistic
by statistic; all p-values of a class are Holm-adjusted, and each class is held to
``FAMILY / len(CLASSES)``, so the whole battery keeps its family-wise error below ``FAMILY``.
The control runs the same battery on the planned generator this one replaced
(``tests/control``) and must reject it. ``benchmarks/naturalness_report.py`` runs the full
battery with larger samples; ``docs/generator.md`` shows its table.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from colour_collector.game import naturalness, sample_comparison
from colour_collector.game.config import load_config
from colour_collector.game.generator import generate
from colour_collector.game.naturalness import CLASSES, ClassRun, TierClass
from colour_collector.game.play_statistics import CATEGORIES, RATIOS, measure
from colour_collector.game.prize_table import load_tiers, tier_by_name
from colour_collector.game.record import BonusRound, MainSpin, PrizeSpin
from colour_collector.game.sample_comparison import Comparison
from control.generator import generate as planned_generate

FAMILY = 0.01
"""Family-wise error rate of the whole reduced battery."""
PLAYS = {"£1,000,000": 60}
"""Plays per class in the reduced battery, where not ``DEFAULT_PLAYS``."""
DEFAULT_PLAYS = 120
SEED = 2026


@cache
def run(name: str, planned: bool = False) -> ClassRun:
    cls = next(c for c in CLASSES if c.name == name)
    generator = planned_generate if planned else generate
    return naturalness.run_class(cls, PLAYS.get(name, DEFAULT_PLAYS), SEED, generator)


def adjusted(comparisons: list[Comparison]) -> list[tuple[Comparison, float]]:
    return list(
        zip(comparisons, sample_comparison.holm([c.pvalue for c in comparisons]), strict=True)
    )


def test_every_tier_is_in_exactly_one_class() -> None:
    tiers = [t for c in CLASSES for t in c.tiers]
    assert len(tiers) == len(set(tiers))
    assert set(tiers) == {None, *load_tiers()}


def test_there_are_at_least_thirty_statistics_across_every_part_of_a_play() -> None:
    assert len(RATIOS) + len(CATEGORIES) >= 30
    parts = {s.part for s in (*RATIOS, *CATEGORIES)}
    assert {p.value for p in parts} == {"Main Game", "whole play", "Bonus Game", "Prize Game"}


def test_statistics_are_read_through_the_rules() -> None:
    record = generate(tier_by_name("£20 (£20 Prize Game)"), random.Random(3))
    measured = measure(record, load_config())
    spins = [s for s in record.steps if isinstance(s, MainSpin)]
    collected = sum(sum(c == s.wheel for c in s.colours) for s in spins)
    assert measured.ratios["squares collected a spin"] == (collected, len(spins))
    assert measured.ratios["spins played"] == (len(spins), 1)
    lost = sum(isinstance(s, BonusRound) and not s.won for s in record.steps)
    assert measured.ratios["Bonus Games a play"] == (lost, 1)
    prize_spins = sum(isinstance(s, PrizeSpin) for s in record.steps)
    assert measured.ratios["Prize Game spins"] == (prize_spins, 1)
    assert measured.ratios["Prize Game box at the end (no Prize Game)"][1] == 0
    # A play without a Prize Game has no Prize Game statistics.
    losing = measure(generate(None, random.Random(4)), load_config())
    assert losing.ratios["Prize Game spins"] == (0, 0)
    assert "Prize Game spins (categories)" not in losing.categories


def test_holm_adjusts_in_step_down_order() -> None:
    adjusted_p = sample_comparison.holm([0.01, 0.04, 0.03, 0.5])
    assert adjusted_p == pytest.approx([0.04, 0.09, 0.09, 0.5])


def test_the_tests_tell_apart_samples_that_differ() -> None:
    # Two natural samples of different tiers: the battery's tests must see the difference.
    five = naturalness.run_class(next(c for c in CLASSES if c.name == "£5"), 150, 7)
    no_win = naturalness.natural_plays(
        next(c for c in CLASSES if c.name == "no win"), 150, random.Random(8)
    )
    comparisons = sample_comparison.compare(
        "£5 against no win", five.generated, [(measure(p.record), 1.0) for p in no_win]
    )
    assert min(p for _, p in adjusted(comparisons)) < FAMILY


@pytest.mark.parametrize("tier_class", CLASSES, ids=lambda c: c.name)
def test_generated_plays_are_natural_plays_of_their_class(tier_class: TierClass) -> None:
    result = run(tier_class.name)
    comparisons = sample_comparison.compare(tier_class.name, result.generated, result.reference)
    assert len(comparisons) >= 20, [c.statistic for c in comparisons]
    worst = min(adjusted(comparisons), key=lambda pair: pair[1])
    assert worst[1] > FAMILY / len(CLASSES), worst
    # The wheel stays unpredictable: the chance that the colour most represented on the grid
    # wins the next spin is natural play's, within its error.
    wheel = next(c for c in comparisons if c.statistic == "wheel on the grid's commonest colour")
    assert wheel.pvalue > FAMILY / len(CLASSES), wheel
    assert abs(wheel.generated - wheel.natural) < 4 * wheel.error, wheel


@pytest.mark.parametrize("name", ["Prize Game only, £10 to £20", "one row, £6 to £12"])
def test_the_battery_rejects_the_planned_generator(name: str) -> None:
    # The control: plays built to a plan (the generator this one replaced) are told apart.
    result = run(name, planned=True)
    comparisons = sample_comparison.compare(name, result.generated, result.reference)
    assert min(p for _, p in adjusted(comparisons)) < FAMILY / len(CLASSES)
