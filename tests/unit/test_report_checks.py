"""The report carries its own checks of the pool, each passed or failed with what it compared,
and names the checks of ``pool verify`` it does not run (a lab found nothing of ``pool verify``
in the report). It never calls the pool verified."""

from __future__ import annotations

import dataclasses
import datetime as dt
import html
import importlib
import re
from pathlib import Path

from openpyxl import load_workbook

from colour_collector.game.pool_deal import categories
from colour_collector.game.pool_file import PoolFile
from colour_collector.game.pool_parameters import PoolParameters
from colour_collector.game.versions import current_versions
from colour_collector.report.checks import Check, Outcome
from colour_collector.report.page import page
from colour_collector.report.par_sheet import summary_rows, write_xlsx
from pool_support import parameters, small_pool

# ``colour_collector.report.figures`` is the module; the package exports a function by that name.
report_figures = importlib.import_module("colour_collector.report.figures")

NAMES = ["Commitment", "Game and generator", "Published prize structure"]


def figures_of(pool: PoolFile, stop: int | None = None) -> report_figures.Figures:
    """The report's figures over positions 0 to ``stop`` (all), without the naturalness
    tables."""
    dealt = categories(pool.secret, pool.parameters, 0, stop or pool.parameters.size)
    return report_figures.figures(pool, dealt, 0, 0)


def checks_of(data: report_figures.Figures) -> dict[str, Check]:
    assert [c.name for c in data.checks] == NAMES
    return {c.name: c for c in data.checks}


def text_of(data: report_figures.Figures) -> str:
    """The page's text, tags dropped, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page(data))).split())


def row_of(data: report_figures.Figures, name: str) -> str:
    """The text of the checks table's row of ``name``."""
    row = next(r for r in page(data).split("<tr>") if f">{name}</th>" in r)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", row)).split())


def test_a_published_pools_report_shows_each_check_with_what_it_compared() -> None:
    built = dt.datetime(2026, 12, 15, tzinfo=dt.UTC)
    pool = PoolFile.build(PoolParameters.published(), built, bytes(32))
    data = figures_of(pool, 2_000)
    checks = checks_of(data)
    assert checks["Commitment"].outcome is Outcome.PASSED
    assert f"{pool.commitment}, against the file's commitment, {pool.commitment}: the same" in (
        checks["Commitment"].compared
    )
    assert checks["Game and generator"].outcome is Outcome.PASSED
    assert checks["Published prize structure"].outcome is Outcome.PASSED
    text = text_of(data)
    assert "The report's 3 checks passed." in text
    assert row_of(data, "Commitment").endswith("the same passed")
    # What it leaves to pool verify, and the command that runs it.
    assert "It does not run these checks of pool verify" in text
    assert "Every play regenerated from the secret and replayed" in text
    assert "colour-collector pool verify POOL --workers N" in text
    assert "colour-collector pool verify POOL --commitment C" in text
    assert "verified" not in text.lower()
    summary = dict(summary_rows(data))
    assert summary["report_checks"] == (
        "Commitment: passed; Game and generator: passed; Published prize structure: passed"
    )


def test_a_whole_small_pool_fails_the_published_structure(tmp_path: Path) -> None:
    data = figures_of(small_pool())
    checks = checks_of(data)
    structure = checks["Published prize structure"]
    assert structure.outcome is Outcome.FAILED
    # Its £2,000 and £1,000,000 counts (1 each) are the published ones; the others differ.
    assert "97 of the 99 counts differ, and the size is 40: a pool for tests" in structure.compared
    text = text_of(data)
    assert "1 of the report's 3 checks failed: Published prize structure." in text
    assert "checks passed" not in text and "verified" not in text.lower()
    write_xlsx(data, tmp_path / "par.xlsx")
    book = load_workbook(tmp_path / "par.xlsx", read_only=True)
    rows = list(book["Checks"].iter_rows(min_row=2, values_only=True))
    book.close()
    assert [(r[0], r[2]) for r in rows[:3]] == [(c.name, str(c.outcome)) for c in data.checks]
    assert [r[2] for r in rows[3:]] == ["not run", "not run"]
    assert "pool verify POOL --workers N" in rows[3][1]


def test_an_altered_pool_file_fails_the_commitment_check() -> None:
    pool = dataclasses.replace(small_pool(), commitment="f" * 64)
    data = figures_of(pool)
    commitment = checks_of(data)["Commitment"]
    assert commitment.outcome is Outcome.FAILED
    assert f"against the file's commitment, {'f' * 64}: they differ" in commitment.compared
    assert "2 of the report's 3 checks failed: Commitment, Published prize structure." in (
        text_of(data)
    )
    assert row_of(data, "Commitment").endswith("the file was altered failed")


def test_a_pool_of_another_generator_fails_the_versions_check() -> None:
    other = dataclasses.replace(current_versions(), generator_sources_sha256="0" * 64)
    pool = PoolFile.build(
        dataclasses.replace(parameters(), versions=other), small_pool().created_at
    )
    versions = checks_of(figures_of(pool))["Game and generator"]
    assert versions.outcome is Outcome.FAILED
    assert "they differ: play generator 000000000000... against" in versions.compared
