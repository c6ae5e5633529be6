"""The report's chi-square of the winners in equal segments is a real test: its statistic is the
Pearson chi-square of the segments' winners and losers, and over orders dealt at random its
p-values are spread evenly, so it fails as often as its level says.

A testing lab found that it summed over the winners' cells only: over 400 random orders of 50,000
positions the statistic averaged 63.5 instead of about 99, no p-value fell under 0.05, and the
median p-value was 0.998.
"""

from __future__ import annotations

import importlib

import numpy as np
from scipy import stats

from colour_collector.game.prize_table import load_tiers

# ``colour_collector.report.figures`` is the module; the package exports a function by that name.
report_figures = importlib.import_module("colour_collector.report.figures")

POSITIONS = 50_000
WINNERS = 18_050  # about the published pool's share of winners (1 in 2.77)
ORDERS = 400
SEED = 20261207


def random_order(rng: np.random.Generator) -> np.ndarray:
    wins = np.zeros(POSITIONS, dtype=np.int8)
    wins[:WINNERS] = 1
    rng.shuffle(wins)
    return wins


def test_the_statistic_is_the_chi_square_of_the_winners_and_losers_of_each_segment() -> None:
    wins = random_order(np.random.default_rng(SEED))
    test, observed, _ = report_figures._segments_test(wins)
    parts = np.array_split(wins, report_figures.SEGMENTS)
    lost = [len(part) - won for part, won in zip(parts, observed, strict=True)]
    table = np.array([observed, lost])
    expected = stats.chi2_contingency(table, correction=False)
    assert np.isclose(test.statistic, expected.statistic, rtol=1e-9)
    assert test.detail == f"{expected.dof} dof"
    assert test.pvalue is not None
    assert np.isclose(test.pvalue, expected.pvalue, rtol=1e-6)


def test_over_random_orders_its_p_values_are_uniform() -> None:
    rng = np.random.default_rng(SEED)
    p_values = np.array(
        [report_figures._segments_test(random_order(rng))[0].pvalue for _ in range(ORDERS)]
    )
    # As often under 0.05 as a test at that level should be (the bug gave 0 of 400)...
    under = int((p_values < 0.05).sum())
    assert stats.binomtest(under, ORDERS, 0.05).pvalue > 0.001, under
    # ... and spread evenly from 0 to 1 (the bug's median was 0.998).
    assert stats.kstest(p_values, "uniform").pvalue > 0.001


def test_every_position_winning_or_none_is_not_a_p_value() -> None:
    for wins in (np.ones(1_000, dtype=np.int8), np.zeros(1_000, dtype=np.int8)):
        test, _, _ = report_figures._segments_test(wins)
        assert (test.statistic, test.pvalue) == (0.0, None)


def test_the_tier_counts_of_a_large_slice_are_tested_as_dealt_without_replacement() -> None:
    """n of N positions dealt without replacement keep closer to the expected counts than
    independent draws: without the factor (N - 1) / (N - n), covering 900 of 1,000 positions
    made the statistic a tenth of the chi-square's and its p-values near 1."""
    tiers = load_tiers()[:4]
    counts = [100, 100, 100, 100, 600]  # four tiers and no win, 1,000 positions
    size, covered = sum(counts), 900
    rng = np.random.default_rng(SEED)
    p_values = []
    for _ in range(ORDERS):
        dealt = rng.multivariate_hypergeometric(counts, covered)
        rows = [
            report_figures.TierRow(tier, None, count, int(seen), size)
            for tier, count, seen in zip(tiers, counts, dealt, strict=False)
        ]
        test = report_figures._tiers_test(rows, counts[-1], int(dealt[-1]), size)
        p_values.append(test.pvalue)
    assert stats.kstest(p_values, "uniform").pvalue > 0.001
    under = sum(p < 0.05 for p in p_values)
    assert stats.binomtest(under, ORDERS, 0.05).pvalue > 0.001, under
