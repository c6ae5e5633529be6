"""The PAR sheet (probability and accounting report): the pool's tiers and totals as a
spreadsheet (xlsx, with openpyxl) and as CSV files.

``par.csv`` has one row per tier; ``summary.csv`` one ``key,value`` row per total, keyed as
``colour-collector prizes --json`` names them (``pool_size``, ``winners``, ``no_win_count``,
``overall_odds``, ``payout_percent``, ``total_prize_pence``) plus the report's own.
``par.xlsx`` holds both, the statistical tests, the naturalness tables and the report's checks of
the pool (``checks``), one sheet each; its sheet "Tiers" and the page's PAR table end on a total
row and a note on rounding, and for a pool for tests a note on what its columns of the published
table hold (``columns_note``).

Each tier's share of the payout is given rounded, as the prize table prints percentages, and
exactly, as a fraction: the rounded shares of 99 tiers add up to 73.52% for a payout of 73.50%,
the exact ones to the payout. Rounding them so that they add up (largest remainders) would
misstate single tiers; the note under the table says why the column does not add up instead.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from openpyxl.styles import Font

from colour_collector.game import sample_comparison
from colour_collector.game.pool import STAKE_PENCE, load_pool
from colour_collector.report.checks import NOT_INCLUDED
from colour_collector.report.figures import Figures
from colour_collector.report.order_tests import LEVEL


def two_dp(value: Fraction) -> str:
    """``value`` to 2 decimal places, halves up (as ``prizes`` prints it), no separators."""
    hundredths = (value * 100 + Fraction(1, 2)).__floor__()
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def odds_text(odds: Fraction | None) -> str:
    """Odds as the page prints them: "1 in 2.77", or "no play wins" for a pool without a
    winner."""
    return "no play wins" if odds is None else f"1 in {two_dp(odds)}"


TIER_HEADER = (
    "index",
    "name",
    "prize_pence",
    "rows_pence",
    "prize_game_pence",
    "printed_odds",
    "table_count",
    "count",
    "dealt_to_positions",
    "exact_odds",
    "probability",
    "payout_share_percent",
    "payout_share_exact",
)
"""Columns of ``par.csv`` and of the xlsx sheet "Tiers". ``printed_odds`` and ``table_count``
are the published table's, beside the pool's own ``exact_odds`` and ``count``: its odds for the
published pool only, its counts for a pool of its size (``columns_note``).
``payout_share_percent`` is rounded tier by tier, so the column does not add up to the payout;
``payout_share_exact`` (the tier's prize money over the stakes, :func:`over_stakes`) does,
exactly."""


def over_stakes(prize_pence: int, size: int) -> str:
    """``prize_pence`` over the stakes of ``size`` plays, as the fraction ``P/S`` in pence, not
    reduced: every share has the same denominator, so the numerators add up to the total prize
    money, and none reads as a date in a spreadsheet (a reduced ``1/65`` opens as January
    1965)."""
    return f"{prize_pence}/{size * STAKE_PENCE}"


def tier_rows(data: Figures) -> list[tuple[object, ...]]:
    """One row per tier, then the no-win row."""
    rows: list[tuple[object, ...]] = []
    for row in data.rows:
        tier = row.tier
        rows.append(
            (
                tier.index,
                tier.name,
                tier.prize_pence,
                " + ".join(str(r) for r in tier.rows),
                tier.prize_game,
                "" if row.printed_odds is None else row.printed_odds,
                "" if row.table_count is None else row.table_count,
                row.count,
                row.covered,
                "" if row.odds is None else two_dp(row.odds),
                f"{float(row.probability):.10f}",
                two_dp(row.payout_share * 100),
                over_stakes(row.count * tier.prize_pence, row.size),
            )
        )
    rows.append(
        (
            "",
            "no win",
            0,
            "",
            0,
            "",
            "",
            data.no_win,
            data.no_win_covered,
            two_dp(Fraction(data.size, data.no_win)) if data.no_win else "",
            f"{data.no_win / data.size:.10f}",
            "0.00",
            over_stakes(0, data.size),
        )
    )
    return rows


def total_row(data: Figures) -> tuple[object, ...]:
    """The row under the tiers: every play, and the payout, exactly as well as rounded (the
    tiers' rounded shares do not add up to it: :func:`share_note`)."""
    return (
        "",
        "total",
        *("",) * 5,
        data.size,
        data.stop - data.start,
        "",
        "",
        two_dp(data.payout * 100),
        over_stakes(data.total_prize_pence, data.size),
    )


def share_note(data: Figures) -> str:
    """Why the rounded payout shares need not add up to the payout, with their sum and the
    payout's exact value: a lab adding up the column found 73.52% for a payout of 73.50%."""
    shown = two_dp(sum((Fraction(two_dp(r.payout_share * 100)) for r in data.rows), Fraction(0)))
    tiers = len(data.rows)
    adds_up = (
        f"so the {tiers} shares as printed add up to {shown}%, not to the payout"
        if shown != two_dp(data.payout * 100)
        else f"so the {tiers} shares as printed need not add up to the payout (here they do,"
        f" to {shown}%)"
    )
    return (
        f"Each tier's share of the payout is rounded to 2 decimal places on its own, {adds_up}."
        f" The exact shares (payout share exact: the tier's prize money over the stakes) add up"
        f" to the payout exactly: {data.payout} of the stakes, {_percent(data.payout)} (the total"
        " row)."
    )


def columns_note(data: Figures) -> str | None:
    """For a pool for tests, what its columns of the published table hold (an operator read a
    small pool's ``printed_odds`` as its own); None for the published pool, whose columns are its
    own figures."""
    if data.parameters.is_published:
        return None
    counts = (
        "table_count holds the published table's count of each tier, to compare with count (the"
        " pool's own)"
        if data.table_sized
        else f"table_count is blank (the pool is not of the published table's"
        f" {load_pool().size:,} plays, so none of the table's counts compares with its own)"
    )
    return (
        "A pool for tests, not the published prize structure. printed_odds is blank (the"
        " published table's odds are not this pool's; its own are exact_odds); " + counts + "."
    )


def _percent(value: Fraction) -> str:
    """``value`` as a percentage: "73.50% exactly", or "70.37% to 2 decimal places"."""
    exact = (value * 10_000).denominator == 1
    return f"{two_dp(value * 100)}% " + ("exactly" if exact else "to 2 decimal places")


def summary_rows(data: Figures) -> list[tuple[str, object]]:
    """The totals, keyed."""
    versions = data.parameters.versions
    return [
        ("pool_size", data.size),
        ("winners", data.winners),
        ("no_win_count", data.no_win),
        ("overall_odds", "" if data.overall_odds is None else two_dp(data.overall_odds)),
        ("payout_percent", two_dp(data.payout * 100)),
        ("payout_exact", over_stakes(data.total_prize_pence, data.size)),
        ("total_prize_pence", data.total_prize_pence),
        ("hit_rate", f"{float(data.hit_rate):.6f}"),
        ("return_sd_stakes", f"{data.return_sd:.4f}"),
        ("published_structure", data.parameters.is_published),
        ("commitment", data.pool.commitment),
        ("report_checks", "; ".join(f"{c.name}: {c.outcome}" for c in data.checks)),
        ("positions", f"{data.start}:{data.stop}"),
        ("game_sha256", versions.game_sha256),
        ("generator_sources_sha256", versions.generator_sources_sha256),
        ("generator_sample_sha256", versions.generator_sample_sha256),
        ("package", versions.package),
    ]


def write_csv(data: Figures, folder: Path) -> None:
    """``par.csv`` and ``summary.csv``."""
    with (folder / "par.csv").open("w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(TIER_HEADER)
        writer.writerows(tier_rows(data))
    with (folder / "summary.csv").open("w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(("key", "value"))
        writer.writerows(summary_rows(data))


_DECIMAL = re.compile(r"-?[0-9]+\.([0-9]+)")


def _append(sheet: Any, row: Sequence[object]) -> None:
    """Append ``row``, its decimal texts (``two_dp``, probabilities) as numbers shown with the
    same digits, so that a spreadsheet computes with them; exact fractions stay text."""
    decimals = [_DECIMAL.fullmatch(v) if isinstance(v, str) else None for v in row]
    sheet.append([Decimal(d.group()) if d else v for v, d in zip(row, decimals, strict=True)])
    for cell, decimal in zip(sheet[sheet.max_row], decimals, strict=True):
        if decimal:
            cell.number_format = "0." + "0" * len(decimal.group(1))


def write_xlsx(data: Figures, path: Path) -> None:
    """``par.xlsx``: sheets Summary, Tiers, Tests, Naturalness and Checks."""
    book = Workbook()
    summary = book.active
    summary.title = "Summary"
    summary.append(("key", "value"))
    for key, value in summary_rows(data):
        _append(summary, (key, value if isinstance(value, int | str) else str(value)))
    tiers = book.create_sheet("Tiers")
    tiers.append(TIER_HEADER)
    for row in tier_rows(data):
        _append(tiers, row)
    _append(tiers, total_row(data))
    tiers.append((share_note(data),))
    columns = columns_note(data)
    if columns is not None:
        tiers.append((columns,))
    tests = book.create_sheet("Tests")
    tests.append(("test", "statistic", "detail", "p_value", "reading", "method"))
    for t in data.tests:
        statistic = None if t.pvalue is None else t.statistic
        tests.append((t.name, statistic, t.detail, t.pvalue, t.reading, t.method))
    tests.append((f"A test reads as failed at a p-value of {LEVEL} or less.",))
    natural = book.create_sheet("Naturalness")
    natural.append(
        (
            "outcome",
            "statistic",
            "pool_plays",
            "natural_plays",
            "test",
            "test_statistic",
            "p_value",
            "holm_adjusted_p_value",
        )
    )
    adjusted = sample_comparison.holm([c.pvalue for _, c in data.naturalness])
    for (outcome, c), holm in zip(data.naturalness, adjusted, strict=True):
        natural.append(
            (
                outcome,
                c.statistic,
                c.generated,
                c.natural,
                c.test,
                c.statistic_value,
                c.pvalue,
                holm,
            )
        )
    checks = book.create_sheet("Checks")
    checks.append(("check", "compared", "outcome"))
    for check in data.checks:
        checks.append((check.name, check.compared, str(check.outcome)))
    for what, command in NOT_INCLUDED:
        checks.append((what, f"not included here: {command}", "not run"))
    for sheet in book.worksheets:
        for cell in sheet[1]:
            cell.font = Font(bold=True)
    book.save(path)
