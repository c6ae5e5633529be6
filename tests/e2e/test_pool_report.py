"""The certification report opens in the browser: its heading, its figures, every plot loaded,
no serious accessibility problem; its screenshot is the README's (``./scripts/screenshots``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from e2e_support import axe_violations

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
DOCS_SCREENSHOTS = ROOT / "docs" / "screenshots"
COMMAND = [sys.executable, "-c", "from colour_collector.cli.app import main; main()"]


def cli(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLOUR_COLLECTOR_")}
    done = subprocess.run([*COMMAND, *args], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
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
