"""The report says how the bins of its chi-square tests and of its payout band were formed.

A testing lab read "6 dof, 7 bins" beside the chi-square of the tier counts and found nothing on
the page saying how the 100 outcomes became 7 bins. The page now says, beside each test, how many
bins, how they were formed, the rule on expected counts and the degrees of freedom, all from the
computation; and, under the band's plot, at how many numbers of plays and from how many deals the
band was simulated.
"""

from __future__ import annotations

import datetime as dt
import html
import importlib
import re
from fractions import Fraction

import pytest

from colour_collector.game.pool_deal import categories
from colour_collector.game.pool_file import PoolFile
from colour_collector.game.pool_parameters import PoolParameters
from colour_collector.game.simulation import MIN_EXPECTED
from colour_collector.report.page import page
from pool_support import small_pool

# ``colour_collector.report.figures`` is the module; the package exports a function by that name.
report_figures = importlib.import_module("colour_collector.report.figures")


def figures_of(pool: PoolFile, stop: int) -> report_figures.Figures:
    """The report's figures over the first ``stop`` positions, without the naturalness tables."""
    return report_figures.figures(pool, categories(pool.secret, pool.parameters, 0, stop), 0, 0)


def text_of(data: report_figures.Figures) -> str:
    """The page's text, tags dropped, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page(data))).split())


@pytest.mark.parametrize("covered", [2_000, 20_000])
def test_the_page_says_how_the_tier_counts_were_binned(covered: int) -> None:
    built = dt.datetime(2026, 12, 15, tzinfo=dt.UTC)
    parameters = PoolParameters.published()
    data = figures_of(PoolFile.build(parameters, built, bytes(32)), covered)
    expected = [Fraction(covered * c, parameters.size) for c in parameters.start]
    alone = sum(e >= MIN_EXPECTED for e in expected)
    rare = sum(0 < e < MIN_EXPECTED for e in expected)
    bins = alone + 1  # the rare outcomes of these slices expect more than 5 together
    assert sum(e for e in expected if e < MIN_EXPECTED) >= MIN_EXPECTED
    test = data.tests[0]
    assert test.detail == f"{bins - 1} dof, {bins} bins"
    text = text_of(data)
    assert (
        f"The {covered:,} positions covered, in {bins} bins. An outcome (a tier, or no win) with"
        f" c plays in the pool is expected c × {covered:,} / 6,500,000 times among them;"
        f" {alone} outcomes are expected 5 times or more, a bin each, and the {rare} rarer"
        " outcomes go into one pooled bin"
    ) in text
    assert "So every bin expects at least 5 plays" in text
    assert f"Degrees of freedom: bins - 1 = {bins - 1}" in text
    # Beside the test, in its row of the table.
    row = next(r for r in page(data).split("<tr>") if "Tier counts against" in r)
    assert f"in {bins} bins" in row


def test_rare_outcomes_that_expect_too_few_together_join_the_smallest_bin() -> None:
    # 300 positions of a 1,000-play pool: £2,000 and £1,000,000 expect 0.9 plays together.
    counts = {"£5": 100, "£6": 30, "£10 (£10 Prize Game)": 20, "£2,000": 2, "£1,000,000": 1}
    data = figures_of(small_pool(1_000, counts), 300)
    test = data.tests[0]
    # £5, £6, £10 and no win alone, the two rare ones with £10 (expected 6): 4 bins, not 5 with
    # one of them expecting 0.9 plays.
    assert test.detail == "3 dof, 4 bins"
    assert (
        "go into one pooled bin (expected 0.90 plays); as that is fewer than 5, the smallest"
        ' single bin, "£10 (£10 Prize Game)" (expected 6.00 plays), joins it.'
    ) in test.method
    assert "So every bin expects at least 5 plays" in text_of(data)


def test_the_page_says_how_the_payout_band_was_simulated() -> None:
    for pool, covered in ((small_pool(), 40), (small_pool(1_000, {"£5": 100}), 1_000)):
        data = figures_of(pool, covered)
        plays = data.band_plays
        text = text_of(data)
        assert (
            f"At each of {len(plays)} numbers of plays, from {plays[0]:,} to the pool's"
            f" {data.size:,}"
        ) in text
        assert "quantile of the payouts of 4,000 deals of that many plays drawn without" in text
        segments = len(data.segment_winners)
        assert f"{segments} segments of the positions covered" in text
        assert f"Winners in {segments} equal segments (chi-square)" in text
        assert f"Degrees of freedom: (segments - 1) x (2 - 1) = {segments - 1}." in text
