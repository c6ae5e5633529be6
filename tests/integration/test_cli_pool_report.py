"""``pool report``: the PAR sheet (CSV, xlsx) and the page agree with ``prizes --json``, every
plot is a PNG, and a failed report leaves nothing behind."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from openpyxl import load_workbook
from test_cli_pool import run

import colour_collector.report as report_package
from pool_support import small_pool

PNG = b"\x89PNG\r\n\x1a\n"


def test_the_report_agrees_with_the_published_prize_structure(tmp_path: Path) -> None:
    pool = tmp_path / "pool.json"
    assert run("pool", "build", "--plays", "6500000", "--out", str(pool)).exit_code == 0
    report = tmp_path / "report"
    done = run("pool", "report", str(pool), "--out", str(report), "--positions", "0:20000",
               "--naturalness-plays", "60")  # fmt: skip
    assert done.exit_code == 0, done.output
    prizes = json.loads(run("prizes", "--json").output)

    with (report / "summary.csv").open(encoding="utf-8") as stream:
        summary = {row["key"]: row["value"] for row in csv.DictReader(stream)}
    assert int(summary["pool_size"]) == prizes["pool_size"]
    assert int(summary["winners"]) == prizes["winners"]
    assert int(summary["no_win_count"]) == prizes["no_win_count"]
    assert float(summary["overall_odds"]) == prizes["overall_odds"]
    assert summary["payout_percent"] == prizes["payout_percent"]
    assert int(summary["total_prize_pence"]) == prizes["total_prize_pence"]
    assert summary["commitment"] == json.loads(pool.read_text())["commitment"]

    with (report / "par.csv").open(encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert len(rows) == len(prizes["tiers"]) + 1 and rows[-1]["name"] == "no win"
    for row, tier in zip(rows, prizes["tiers"], strict=False):
        assert row["name"] == tier["name"]
        assert int(row["count"]) == int(row["table_count"]) == tier["count"]
        assert int(row["prize_pence"]) == tier["prize_pence"]
        assert int(row["printed_odds"]) == tier["printed_odds"]
    assert sum(int(r["dealt_to_positions"]) for r in rows) == 20_000
    assert int(rows[-1]["count"]) == prizes["no_win_count"]

    book = load_workbook(report / "par.xlsx", read_only=True)
    assert book.sheetnames == ["Summary", "Tiers", "Tests", "Naturalness", "Checks"]
    sheet = {row[0]: row[1] for row in book["Summary"].iter_rows(min_row=2, values_only=True)}
    # Decimal figures are numbers a spreadsheet computes with (they were text), shown as printed.
    assert sheet["winners"] == prizes["winners"] and sheet["payout_percent"] == 73.5
    *tiers, no_win, total, _ = book["Tiers"].iter_rows(min_row=2, values_only=True)
    assert [t[7] for t in tiers] == [t["count"] for t in prizes["tiers"]]
    assert all(isinstance(t[10], float) and isinstance(t[11], int | float) for t in tiers)
    assert sum(t[11] for t in tiers) == pytest.approx(73.5, abs=0.05)
    assert no_win[1] == "no win" and total[1] == "total" and total[11] == 73.5
    *tests, level = book["Tests"].iter_rows(min_row=2, values_only=True)
    assert len(tests) == 5 and all(t[3] is None or 0 <= t[3] <= 1 for t in tests)
    assert level[0] == "A test reads as failed at a p-value of 0.001 or less."
    assert all("Degrees of freedom: " in t[5] for t in tests if "chi-square" in t[0])
    assert any("(segments - 1) x (2 - 1) = 99" in t[5] for t in tests)
    natural = list(book["Naturalness"].iter_rows(min_row=2, values_only=True))
    assert len(natural) > 10
    # Holm's adjustment of the tests taken together: never below a test's own p-value.
    assert all(row[6] <= row[7] <= 1 for row in natural), natural
    book.close()

    page = (report / "index.html").read_text(encoding="utf-8")
    assert "Confidential until the pool closes" in page
    assert report.stat().st_mode & 0o077 == 0  # its plots show the order: owner only
    assert [f.name for f in report.iterdir() if f.stat().st_mode & 0o077] == []  # each file too
    assert f"{prizes['payout_percent']}%" in page and "1 in 2.77" in page
    assert "Holm-adjusted" in page
    # The report's own checks: the slice leaves the deal's counts to pool verify.
    assert "The report's 3 checks passed." in page
    assert "<code>colour-collector pool verify POOL --workers N</code>" in page
    assert f"{prizes['winners']:,}" in page and "£23,887,500.00" in page
    for name in ("prizes", "tiers", "band", "running", "segments"):
        assert f'src="{name}.png"' in page
        assert (report / f"{name}.png").read_bytes()[:8] == PNG


def test_a_report_that_fails_leaves_nothing_behind(tmp_path: Path) -> None:
    pool = tmp_path / "pool.json"
    assert run("pool", "build", "--plays", "6500000", "--out", str(pool)).exit_code == 0
    data = json.loads(pool.read_text())
    data["commitment"] = "f" * 64
    altered = tmp_path / "altered.json"
    altered.write_text(json.dumps(data), encoding="utf-8")
    refused = run("pool", "report", str(altered), "--out", str(tmp_path / "report"))
    assert refused.exit_code == 1 and "altered" in refused.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["altered.json", "pool.json"]


def test_a_pool_without_winners_is_refused_in_one_line(tmp_path: Path) -> None:
    counts, pool = tmp_path / "none.json", tmp_path / "pool.json"
    counts.write_text("{}", encoding="utf-8")
    built = run("pool", "build", "--plays", "100", "--out", str(pool), "--counts", str(counts))
    assert built.exit_code == 0, built.output
    refused = run("pool", "report", str(pool), "--out", str(tmp_path / "report"))
    assert refused.exit_code == 2, refused.output
    assert "no winning plays" in refused.output and "Traceback" not in refused.output
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize("plays", [1, 2, 9])
def test_a_pool_of_fewer_than_ten_plays_has_its_report(tmp_path: Path, plays: int) -> None:
    # The payout band started at 10 plays: in a smaller pool it drew n > size and stopped on
    # "math domain error" (the square root of a negative).
    counts, pool = tmp_path / "counts.json", tmp_path / "pool.json"
    counts.write_text('{"£5": 1}', encoding="utf-8")
    built = run("pool", "build", "--plays", str(plays), "--out", str(pool), "--counts", str(counts))
    assert built.exit_code == 0, built.output
    report = tmp_path / "report"
    done = run("pool", "report", str(pool), "--out", str(report), "--naturalness-plays", "50")
    assert done.exit_code == 0, done.output
    page = (report / "index.html").read_text(encoding="utf-8")
    for name in ("prizes", "tiers", "band", "running", "segments"):
        assert f'src="{name}.png"' in page
        assert (report / f"{name}.png").read_bytes()[:8] == PNG


def test_a_report_that_breaks_half_way_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pool = small_pool(200, {"£5": 30})
    out = tmp_path / "report"

    def broken(data: object, folder: Path) -> None:
        (folder / "prizes.png").write_bytes(PNG)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report_package, "draw_all", broken)
    with pytest.raises(OSError, match="No space left"):
        report_package.write_report(pool, out, start=0, stop=200, naturalness_plays=50)
    assert list(tmp_path.iterdir()) == []
