"""The report's PAR sheet lets a reader reconcile the tiers' shares of the payout with the payout.

A testing lab added up the column of shares, each rounded to 2 decimal places, and found 73.52%
for the published pool's payout of 73.50%. The shares are also given exactly (fractions of the
stakes), which add up to the payout; a total row gives the payout exactly; and a note says the
rounded column does not add up.
"""

from __future__ import annotations

import datetime as dt
import html
import importlib
from fractions import Fraction
from pathlib import Path

import pytest
from matplotlib.figure import Figure
from openpyxl import load_workbook

from colour_collector.game.pool_deal import categories
from colour_collector.game.pool_file import PoolFile
from colour_collector.game.pool_parameters import PoolParameters
from colour_collector.report import par_sheet
from colour_collector.report.page import page
from colour_collector.report.plots import _minor_label
from pool_support import small_pool

# ``colour_collector.report.figures`` is the module; the package exports a function by that name.
report_figures = importlib.import_module("colour_collector.report.figures")

EXACT = par_sheet.TIER_HEADER.index("payout_share_exact")
ROUNDED = par_sheet.TIER_HEADER.index("payout_share_percent")


def figures_of(pool: PoolFile, stop: int) -> report_figures.Figures:
    """The report's figures over the first ``stop`` positions (too few for naturalness)."""
    dealt = categories(pool.secret, pool.parameters, 0, stop)
    return report_figures.figures(pool, dealt, 0, 50)


@pytest.fixture(scope="module")
def published() -> report_figures.Figures:
    built = dt.datetime(2026, 12, 15, tzinfo=dt.UTC)
    return figures_of(PoolFile.build(PoolParameters.published(), built, bytes(32)), 60)


def test_the_exact_shares_add_up_to_the_exact_payout(published: report_figures.Figures) -> None:
    rows = par_sheet.tier_rows(published)
    assert published.payout == Fraction(147, 200)  # 73.50% of the stakes, exactly
    assert sum(Fraction(str(row[EXACT])) for row in rows) == published.payout
    # Each rounded share is its exact share rounded: no share is bent to make the column add up.
    for row in rows:
        assert row[ROUNDED] == par_sheet.two_dp(Fraction(str(row[EXACT])) * 100)
    # ... which is why the rounded column does not add up to the payout.
    assert sum(Fraction(str(row[ROUNDED])) for row in rows) == Fraction("73.52")
    # One denominator, the stakes in pence, never reduced: the numerators add up to the prize
    # money, and no share reads as a date in a spreadsheet (1/65 opened as January 1965).
    shares = [str(row[EXACT]).split("/") for row in rows]  # the no-win row too
    assert {denominator for _, denominator in shares} == {str(6_500_000 * 500)}
    assert sum(int(numerator) for numerator, _ in shares) == published.total_prize_pence


def test_the_total_row_and_the_note_give_the_payout_exactly(
    published: report_figures.Figures, tmp_path: Path
) -> None:
    total = dict(zip(par_sheet.TIER_HEADER, par_sheet.total_row(published), strict=True))
    assert total["name"] == "total" and total["count"] == 6_500_000
    assert total["payout_share_percent"] == "73.50"
    assert total["payout_share_exact"] == "2388750000/3250000000"  # 147/200, in pence of stakes
    note = par_sheet.share_note(published)
    assert "rounded to 2 decimal places on its own" in note
    assert "99 shares as printed add up to 73.52%, not to the payout" in note
    assert "147/200 of the stakes, 73.50% exactly" in note

    html = page(published)
    assert '<tr class="total">' in html and "2388750000/3250000000" in html
    assert "add up to 73.52%, not to the payout" in html

    par_sheet.write_xlsx(published, tmp_path / "par.xlsx")
    book = load_workbook(tmp_path / "par.xlsx", read_only=True)
    *_, no_win, last, footnote = book["Tiers"].iter_rows(min_row=2, values_only=True)
    book.close()
    assert no_win[1] == "no win"
    assert last[1] == "total" and float(last[ROUNDED]) == 73.5
    assert last[EXACT] == "2388750000/3250000000"
    assert footnote[0] == note


def test_the_note_does_not_say_the_column_misses_when_it_adds_up() -> None:
    # 13 winners in 40 plays (pool_support.SMALL): the rounded shares happen to add up.
    data = figures_of(small_pool(), 40)
    rows = par_sheet.tier_rows(data)
    rounded = sum(Fraction(str(row[ROUNDED])) for row in rows)
    assert par_sheet.two_dp(rounded) == par_sheet.two_dp(data.payout * 100)
    note = par_sheet.share_note(data)
    assert "need not add up to the payout (here they do" in note
    assert "not to the payout" not in note
    assert sum(Fraction(str(row[EXACT])) for row in rows) == data.payout


PRINTED = par_sheet.TIER_HEADER.index("printed_odds")
TABLE = par_sheet.TIER_HEADER.index("table_count")
COUNT = par_sheet.TIER_HEADER.index("count")


def test_a_pool_for_tests_shows_no_printed_odds_that_are_not_its_own(
    published: report_figures.Figures, tmp_path: Path
) -> None:
    """An operator's walkthrough: the PAR sheet of a small pool for tests left ``table_count``
    blank but showed the published table's ``printed_odds``, odds the pool does not have (1 in
    6 for £5 where the pool's are 1 in 5, 1 in 6,500,000 for the £1,000,000 where they are 1 in
    40). The published table's odds are shown for the published pool only; its counts for a
    pool of its size, to compare with the pool's own; a note under the table says so."""
    for row, tier in zip(par_sheet.tier_rows(published), published.rows, strict=False):
        assert row[PRINTED] == tier.tier.printed_odds and row[TABLE] == row[COUNT] == tier.count
    assert par_sheet.columns_note(published) is None  # the published pool's sheet is unchanged

    small = figures_of(small_pool(), 40)
    rows = par_sheet.tier_rows(small)
    assert {row[PRINTED] for row in rows} == {""} and {row[TABLE] for row in rows} == {""}
    note = par_sheet.columns_note(small)
    assert note is not None
    assert "printed_odds is blank (the published table's odds are not this pool's" in note
    assert "table_count is blank (the pool is not of the published table's 6,500,000" in note
    assert html.escape(note) in page(small)
    par_sheet.write_xlsx(small, tmp_path / "small.xlsx")
    book = load_workbook(tmp_path / "small.xlsx", read_only=True)
    *_, total, shares, columns = book["Tiers"].iter_rows(min_row=2, values_only=True)
    book.close()
    assert total[1] == "total" and shares[0] == par_sheet.share_note(small)
    assert columns[0] == note

    # Of the published size with other counts: the published counts stand beside its own.
    counts = list(PoolParameters.published().counts)
    counts[0] -= 1  # one £5 play fewer, one more that wins nothing
    other = PoolParameters(6_500_000, tuple(counts), PoolParameters.published().versions)
    built = dt.datetime(2026, 12, 15, tzinfo=dt.UTC)
    same_size = figures_of(PoolFile.build(other, built, bytes(32)), 60)
    rows = par_sheet.tier_rows(same_size)
    assert {row[PRINTED] for row in rows} == {""}
    assert [row[TABLE] for row in rows[:-1]] == list(PoolParameters.published().counts)
    assert rows[0][COUNT] == rows[0][TABLE] - 1
    note = par_sheet.columns_note(same_size)
    assert note is not None and "table_count holds the published table's count" in note


def test_a_log_axis_within_two_decades_is_labelled_between_its_powers_of_ten() -> None:
    """A small pool's tier counts (2 to 6 plays) span no power of ten: their ticks between are
    labelled in plain numbers; a wide axis (the published pool's) labels only the powers."""
    axes = Figure().add_subplot()
    axes.set_yscale("log")
    axes.set_ylim(1.8, 6.5)
    assert [_minor_label(axes, v, None) for v in (2, 3, 6)] == ["2", "3", "6"]
    axes.set_ylim(1, 6_500_000)
    assert _minor_label(axes, 3, None) == ""
