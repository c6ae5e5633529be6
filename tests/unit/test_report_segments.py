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
