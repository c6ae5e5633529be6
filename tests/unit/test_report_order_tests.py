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

import datetime as dt
import importlib

import numpy as np
import pytest
from scipy import stats

from colour_collector.game.pool import load_pool
from colour_collector.game.pool_deal import categories
from colour_collector.game.pool_file import PoolFile
from colour_collector.game.pool_parameters import PoolParameters
from colour_collector.game.prize_table import load_tiers
from colour_collector.report import order_tests
from colour_collector.report.page import page
from pool_support import parameters, small_pool

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
    test, observed, _ = order_tests.segments(wins)
    parts = np.array_split(wins, order_tests.SEGMENTS)
    lost = [len(part) - won for part, won in zip(parts, observed, strict=True)]
    table = np.array([observed, lost])
    expected = stats.chi2_contingency(table, correction=False)
    assert np.isclose(test.statistic, expected.statistic, rtol=1e-9)
    assert test.detail == f"{expected.dof} dof"
    assert test.pvalue is not None
    assert np.isclose(test.pvalue, expected.pvalue, rtol=1e-6)


def test_over_random_orders_its_p_values_are_uniform() -> None:
    rng = np.random.default_rng(SEED)
    p_values = np.array([order_tests.segments(random_order(rng))[0].pvalue for _ in range(ORDERS)])
    # As often under 0.05 as a test at that level should be (the bug gave 0 of 400)...
    under = int((p_values < 0.05).sum())
    assert stats.binomtest(under, ORDERS, 0.05).pvalue > 0.001, under
    # ... and spread evenly from 0 to 1 (the bug's median was 0.998).
    assert stats.kstest(p_values, "uniform").pvalue > 0.001


def test_every_position_winning_or_none_is_not_a_p_value() -> None:
    for wins in (np.ones(1_000, dtype=np.int8), np.zeros(1_000, dtype=np.int8)):
        test, _, _ = order_tests.segments(wins)
        assert (test.statistic, test.pvalue) == (0.0, None)
        assert test.reading == "too few positions to test"


def test_segments_expect_five_winners_and_five_losers_each() -> None:
    """With segments of one position each the statistic was the number of positions, whatever
    the order: 40 positions read p = 0.43 with every winner first."""
    first = np.zeros(40, dtype=np.int8)
    first[:15] = 1
    test, observed, _ = order_tests.segments(first)
    assert observed == [15, 0]  # 15 winners: 2 segments of 20 (3 would make one of 13)
    assert test.pvalue is not None and test.pvalue < 0.01
    assert test.reading == "winners are unevenly spread (p ≤ 0.001)"
    assert "as many as 100 with each expecting at least 5 winners and 5 losers" in test.method
    bunched = np.zeros(1_000, dtype=np.int8)
    bunched[:361] = 1  # every winner first
    test, observed, _ = order_tests.segments(bunched)
    assert len(observed) == 71 and test.pvalue is not None and test.pvalue < 1e-12
    test, observed, _ = order_tests.segments(np.array([1, 0] * 4, dtype=np.int8))
    assert len(observed) == 1 and test.pvalue is None
    assert test.reading == "too few positions to test"


def published(dealt: np.ndarray) -> list[tuple[str, int, int]]:
    """The published pool's outcomes (each tier, then no win) with the plays ``dealt`` gave."""
    pool = load_pool()
    names = [*(tier.name for tier in load_tiers()), "no win"]
    counts = [*pool.counts, pool.no_win_count]
    return [(name, c, int(seen)) for name, c, seen in zip(names, counts, dealt, strict=True)]


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
        test = order_tests.tier_counts(published(dealt), pool.size)
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
    test = order_tests.tier_counts(published(few), pool.size)
    assert (test.pvalue, test.reading) == (None, "too few positions to test")
    assert "With one bin there is nothing to compare" in test.method
    assert "So every bin expects at least" not in test.method
    whole = order_tests.tier_counts(published(np.array(counts)), pool.size)
    assert (whole.pvalue, whole.reading) == (None, "exactly the pool's counts")
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
        names = [*(tier.name for tier in tiers), "no win"]
        outcomes = [(n, c, int(seen)) for n, c, seen in zip(names, counts, dealt, strict=True)]
        test = order_tests.tier_counts(outcomes, size)
        p_values.append(test.pvalue)
    assert stats.kstest(p_values, "uniform").pvalue > 0.001
    under = sum(p < 0.05 for p in p_values)
    assert stats.binomtest(under, ORDERS, 0.05).pvalue > 0.001, under


@pytest.mark.parametrize(("positions", "winners"), [(28, 18), (105, 10), (209, 75), (500, 180)])
def test_the_shortest_segment_expects_five_winners_and_five_losers(
    positions: int, winners: int
) -> None:
    """The count was floor(n x rate / 5), in floats: segments one position shorter than the
    others expected 4.7, and 28 positions of which 18 win (4.999... in floats) read too few to
    test where two segments of 14 expect 9 and 5."""
    wins = np.zeros(positions, dtype=np.int8)
    wins[:winners] = 1
    _, observed, _ = order_tests.segments(wins)
    fewer = min(winners, positions - winners)
    shortest = positions // len(observed)
    assert shortest * fewer >= 5 * positions  # each segment expects 5 winners and 5 losers
    longer = len(observed) + 1  # and one segment more would break that
    assert longer > 100 or (positions // longer) * fewer < 5 * positions


def test_the_texts_say_what_was_done_when_one_bin_is_left() -> None:
    pool = load_pool()
    counts = [*pool.counts, pool.no_win_count]
    dealt = np.random.default_rng(SEED).multivariate_hypergeometric(counts, pool.size - 10)
    test = order_tests.tier_counts(published(dealt), pool.size)
    assert (test.pvalue, test.reading) == (None, "too few positions not covered to test")
    assert "1 outcome is expected 5 times or more (it joins the pooled bin: below)" in test.method
    assert "has a bin of its own" not in test.method


def test_a_pool_without_a_winner_has_a_page() -> None:
    pool = PoolFile.build(parameters(30, {}), dt.datetime(2026, 12, 15, tzinfo=dt.UTC))
    data = report_figures.figures(pool, categories(pool.secret, pool.parameters, 0, 30), 0, 0)
    assert data.overall_odds is None
    text = page(data)
    assert "no play wins" in text and "1 segment of the positions" in text
    serial = next(t for t in data.tests if t.name.startswith("Serial"))
    assert (serial.pvalue, serial.reading) == (None, "too few positions to test")
    assert '<td>–</td><td class="text">n = 30</td>' in text  # no statistic without a test


def test_a_reading_says_no_evidence_above_the_level_and_names_it() -> None:
    """p = 0.0166 read "wins do not bunch or alternate": a p-value above the level is no
    evidence against the shuffle, not proof of it, and the page says where the level is."""
    rng = np.random.default_rng(SEED)
    wins = random_order(rng)
    for test in (order_tests.runs(wins), order_tests.serial(wins), order_tests.segments(wins)[0]):
        assert test.pvalue is not None and test.pvalue > order_tests.LEVEL
        assert test.reading.startswith("no evidence at the 0.001 level that "), test.reading
    alternating = np.array([1, 0] * 500, dtype=np.int8)
    assert order_tests.runs(alternating).reading == "wins bunch or alternate (p ≤ 0.001)"
    assert order_tests.serial(alternating).reading == (
        "consecutive plays are correlated (p ≤ 0.001)"
    )
    data = report_figures.figures(small_pool(), categories(*_dealt(small_pool())), 0, 0)
    assert "each reads as failed at a p-value of 0.001 or less" in page(data)


def _dealt(pool: PoolFile) -> tuple[bytes, PoolParameters, int, int]:
    return pool.secret, pool.parameters, 0, pool.parameters.size


@pytest.mark.parametrize("winners", [9, 991])
def test_runs_and_serial_need_ten_winners_and_ten_losers(winners: int) -> None:
    wins = np.zeros(1_000, dtype=np.int8)
    wins[:winners] = 1
    for test in (order_tests.runs(wins), order_tests.serial(wins)):
        assert (test.pvalue, test.reading) == (None, "too few positions to test")
