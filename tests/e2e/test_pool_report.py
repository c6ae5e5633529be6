"""The certification report opens in the browser: its heading, its figures, every plot loaded,
no serious accessibility problem; its screenshot is the README's (``./scripts/screenshots``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from e2e_support import axe_violations
from typer.testing import CliRunner

from colour_collector.cli.app import app as cli_app

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
DOCS_SCREENSHOTS = ROOT / "docs" / "screenshots"


def cli(*args: str) -> str:
    """``colour-collector ARGS`` in this process (Typer's runner): the process's generator
    sample is worked out once, where a command of its own would work it out again (about 5 s a
    command, decision 0010); ``test_cli_pool_report.py`` tests the command's report itself."""
    done = CliRunner().invoke(cli_app, list(args))
    assert done.exit_code == 0, done.output
    return done.stdout


def test_the_report_page_opens_in_the_browser(chromium: Any, tmp_path: Path) -> None:
    pool = tmp_path / "pool.json"
    cli("pool", "build", "--plays", "6500000", "--out", str(pool))
    report = tmp_path / "report"
    cli("pool", "report", str(pool), "--out", str(report), "--positions", "0:50000",
        "--naturalness-plays", "200")  # fmt: skip
    prizes = json.loads(cli("prizes", "--json"))
    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(report.joinpath("index.html").as_uri())
        assert page.get_by_role("heading", level=1).inner_text() == (
            "Colour Collector: pool certification report"
        )
        summary = page.get_by_role("table", name="The pool's prize structure, exactly")
        cells = {
            row.get_by_role("rowheader").inner_text(): row.get_by_role("cell").inner_text()
            for row in summary.get_by_role("row").all()
        }
        assert cells["Winners"] == f"{prizes['winners']:,}"
        assert cells["Payout (prize money / stakes)"] == f"{prizes['payout_percent']}%"
        assert cells["Overall odds"] == f"1 in {prizes['overall_odds']:.2f}"
        images = page.get_by_role("img")
        assert images.count() == 5
        for index in range(5):
            assert images.nth(index).evaluate("(img) => img.complete && img.naturalWidth > 0")
        assert axe_violations(page) == []
        assert errors == []
        shot = SCREENSHOTS / "pool-report.png"
        page.screenshot(path=str(shot))
        if os.environ.get("UPDATE_DOCS_SCREENSHOTS") == "1":
            DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            (DOCS_SCREENSHOTS / "pool-report.png").write_bytes(shot.read_bytes())
    finally:
        context.close()
