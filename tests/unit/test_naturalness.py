"""Naturalness: generated losing plays look like natural plays that lost.

A generated no-win play and a plain forward simulation (``natural.simulate_main``) kept only when it
loses are compared on every measure of ``naturalness`` with a two-sample chi-square test at a fixed
seed. A control shows the same test does tell different plays apart.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from colour_collector.game import naturalness
from colour_collector.game.generator import generate
from colour_collector.game.prize_table import tier_by_name
from colour_collector.game.record import BonusRound, MainSpin

SAMPLE = 2000
SIGNIFICANCE = 0.001
MEASURES = {
    "bonus_games",
    "spins",
    "prize_game_box",
    *(
        f"row_{s}"
        for s in ("circle", "triangle", "square", "diamond", "pentagon", "hexagon", "star")
    ),
}


def _generated(tier_name: str | None, count: int, seed: int) -> list[naturalness.Measures]:
    rng = random.Random(seed)
    tier = None if tier_name is None else tier_by_name(tier_name)
    found = []
    for _ in range(count):
        record = generate(tier, rng)
        found.append(naturalness.main_measures(record.grid, record.steps))
    return found


@pytest.fixture(scope="module")
def natural_losing() -> list[naturalness.Measures]:
    return naturalness.natural_plays(SAMPLE, random.Random(20), naturalness.no_win)


def test_generated_losing_plays_match_natural_losing_plays(
    natural_losing: list[naturalness.Measures],
) -> None:
    generated = _generated(None, SAMPLE, seed=21)
    comparisons = naturalness.compare(generated, natural_losing)
    assert {c.measure for c in comparisons} == MEASURES
    for comparison in comparisons:
        assert comparison.pvalue is not None, comparison
        assert comparison.dof >= 1, comparison
        assert comparison.pvalue > SIGNIFICANCE, comparison


def test_the_comparison_tells_different_plays_apart(
    natural_losing: list[naturalness.Measures],
) -> None:
    # £14 (£6 + £8) needs a Prize Booster, so every such play has a Bonus Game: the test must
    # see that against losing plays, which rarely have one.
    boosted = _generated("£14 (£6 + £8)", SAMPLE // 4, seed=22)
    comparisons = {c.measure: c for c in naturalness.compare(boosted, natural_losing)}
    bonus = comparisons["bonus_games"]
    assert bonus.pvalue is not None
    assert bonus.pvalue < SIGNIFICANCE


def test_measures_are_read_through_the_rules() -> None:
    record = generate(tier_by_name("£5"), random.Random(3))
    measures = naturalness.main_measures(record.grid, record.steps)
    assert "row_circle" not in measures  # the £5 row is complete
    assert measures["spins"] == sum(isinstance(s, MainSpin) for s in record.steps)
    lost_rounds = sum(isinstance(s, BonusRound) and not s.won for s in record.steps)
    assert measures["bonus_games"] == lost_rounds  # each Bonus Game ends on one lost round
    assert naturalness.outcome_key(record.grid, record.steps) == ((0,), 0, False)
    assert naturalness.five_pounds(naturalness.outcome_key(record.grid, record.steps))


def test_sparse_categories_are_merged_until_each_expected_count_is_five() -> None:
    a = Counter({0: 50, 1: 40, 2: 3, 3: 1})
    b = Counter({0: 45, 1: 50, 2: 2})
    cells = naturalness.merged_table(a, b)
    assert sum(x for x, _ in cells) == sum(a.values())
    assert sum(y for _, y in cells) == sum(b.values())
    assert cells == [(50, 45), (44, 52)]
    statistic, dof = naturalness.chi_square_two_sample(cells)
    assert dof == 1
    assert statistic > 0
    assert naturalness.chi_square_two_sample([(10, 10), (10, 10)]) == (0.0, 1)


def test_generated_five_pound_plays_match_natural_five_pound_plays() -> None:
    # The commonest win is built like losing plays: natural plays selected by their outcome.
    natural = naturalness.natural_plays(SAMPLE // 2, random.Random(23), naturalness.five_pounds)
    generated = _generated("£5", SAMPLE // 2, seed=24)
    for comparison in naturalness.compare(generated, natural):
        assert comparison.pvalue is not None, comparison
        assert comparison.pvalue > SIGNIFICANCE, comparison
