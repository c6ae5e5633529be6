"""The report's chi-square tests of the pool's order are real tests: over orders dealt at random
their p-values are spread evenly, so each fails as often as its level says, and where there is
too little to test they say so instead of reading a p-value.

The chi-square of the winners in equal segments is the Pearson chi-square of the segments'
winners and losers.
A testing lab found that it summed over the winners' cells only: over 400 random orders of 50,000
positions the statistic averaged 63.5 instead of about 99, no p-value fell under 0.05, and the
median p-value was 0.998.
"""

from __future__ import annotations

import importlib

import numpy as np
from scipy import stats

from colour_collector.game.pool import load_pool
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
        assert test.reading == "too few positions to test"


def test_segments_expect_five_winners_and_five_losers_each() -> None:
    """With segments of one position each the statistic was the number of positions, whatever
    the order: 40 positions read p = 0.43 with every winner first."""
    first = np.zeros(40, dtype=np.int8)
    first[:15] = 1
    test, observed, _ = report_figures._segments_test(first)
    assert len(observed) == 40 * 15 // 40 // 5 == 3  # 15 winners, 25 losers: 3 segments of 5
    assert test.pvalue is not None and test.pvalue < 0.01
    assert test.reading == "winners are not even"
    assert "as many as 100 with each expecting at least 5 winners and 5 losers" in test.method
    bunched = np.zeros(1_000, dtype=np.int8)
    bunched[:361] = 1  # every winner first
    test, observed, _ = report_figures._segments_test(bunched)
    assert len(observed) == 72 and test.pvalue is not None and test.pvalue < 1e-12
    test, observed, _ = report_figures._segments_test(np.array([1, 0] * 4, dtype=np.int8))
    assert len(observed) == 1 and test.pvalue is None
    assert test.reading == "too few positions to test"


def published_rows(dealt: np.ndarray) -> list[report_figures.TierRow]:
    pool = load_pool()
    return [
        report_figures.TierRow(tier, count, count, int(seen), pool.size)
        for tier, count, seen in zip(load_tiers(), pool.counts, dealt, strict=False)
    ]


def test_a_slice_of_most_of_the_pool_is_tested_on_the_positions_not_covered() -> None:
    """Binned by the covered side's expected counts, 6,499,000 positions of the published pool
    left most bins expecting under 1 play among the 1,000 others, and about one random order in
    ten read as not the table's proportions."""
    pool = load_pool()
    counts = [*pool.counts, pool.no_win_count]
    rng = np.random.default_rng(SEED)
    p_values = []
    for _ in range(ORDERS):
        dealt = rng.multivariate_hypergeometric(counts, pool.size - 1_000)
        test = report_figures._tiers_test(
            published_rows(dealt), pool.no_win_count, int(dealt[-1]), pool.size
        )
        assert test.pvalue is not None
        p_values.append(test.pvalue)
    assert "The 1,000 positions of the pool not covered (the smaller side" in test.method
    under = sum(p < 0.01 for p in p_values)
    assert stats.binomtest(under, ORDERS, 0.01).pvalue > 0.001, under
    assert stats.kstest(p_values, "uniform").pvalue > 0.001


def test_too_few_positions_or_the_whole_pool_read_no_p_value() -> None:
    pool = load_pool()
    counts = [*pool.counts, pool.no_win_count]
    few = np.random.default_rng(SEED).multivariate_hypergeometric(counts, 8)
    rows = published_rows(few)
    test = report_figures._tiers_test(rows, pool.no_win_count, int(few[-1]), pool.size)
    assert (test.pvalue, test.reading) == (None, "too few positions to test")
    assert "With one bin there is nothing to compare" in test.method
    assert "So every bin expects at least" not in test.method
    whole = report_figures._tiers_test(
        published_rows(np.array(counts)), pool.no_win_count, pool.no_win_count, pool.size
    )
    assert (whole.pvalue, whole.reading) == (None, "exactly the table's counts")
    assert "by construction" in whole.method


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
