"""The ``colour-collector prizes`` command, driven through the Typer application."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner, Result

import colour_collector.cli.prizes_cmd  # noqa: F401  (registers ``prizes`` on ``app``)
from colour_collector.cli.base import app
from colour_collector.game.pool import load_pool
from colour_collector.game.prize_table import load_tiers


def _invoke(*args: str) -> Result:
    # ``app`` is mounted under a parent, where Typer always makes it a group, so ``prizes`` stays a
    # subcommand even while it is the only command registered (a lone command would be the app).
    parent = typer.Typer()
    parent.add_typer(app, name="colour-collector")
    return CliRunner().invoke(parent, ["colour-collector", *args])


def test_prizes_json_is_one_object_with_the_published_figures() -> None:
    result = _invoke("prizes", "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    assert data["pool_size"] == 6_500_000
    assert data["winners"] == 2_346_570
    assert data["overall_odds"] == 2.77
    assert data["payout_percent"] == "73.50"
    tiers = data["tiers"]
    assert len(tiers) == 99
    assert [t["name"] for t in tiers] == [t.name for t in load_tiers()]
    assert [t["count"] for t in tiers] == list(load_pool().counts)
    assert sum(t["count"] for t in tiers) == data["winners"]
    assert sum(t["count"] * t["prize_pence"] for t in tiers) == 2_388_750_000
    assert tiers[68] == {
        "name": "£70 (£10 + £20 + £40 Prize Game)",
        "prize_pence": 7000,
        "printed_odds": 81250,
        "count": 80,
        "rows_pence": [1000, 2000],
        "prize_game_pence": 4000,
    }
    for tier in tiers:
        assert -(-data["pool_size"] // tier["count"]) == tier["printed_odds"]


def test_prizes_table_shows_tiers_and_totals() -> None:
    result = _invoke("prizes")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("£55 (£10 + £15 + £30)") and "1 in 43,334" in line for line in lines)
    five = next(line for line in lines if line.startswith("£5 "))
    assert five.split()[-3:] == ["1", "in", "5.56"]
    assert "1,168,389" in five
    assert "Pool size:     6,500,000 plays" in lines
    assert "Winners:       2,346,570 (4,153,430 plays win nothing)" in lines
    assert "Overall odds:  1 in 2.77" in lines
    assert "Payout:        73.50%" in lines
    assert sum(1 for line in lines if line.startswith("£")) == 99


def test_a_bad_option_is_a_clean_usage_error() -> None:
    result = _invoke("prizes", "--bogus")
    assert result.exit_code == 2
    assert "No such option" in result.output
    assert "--bogus" in result.output
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)


def test_prizes_help_describes_the_json_option() -> None:
    result = _invoke("prizes", "--help")
    assert result.exit_code == 0
    assert "--json" in result.output
    assert "Print one JSON object" in result.output
    # A flag takes no value, and its line does not pretend it does.
    assert "<bool>" not in result.output and "BOOLEAN" not in result.output, result.output


def _entry_point() -> Path:
    script = Path(sys.executable).with_name("colour-collector")
    assert script.exists(), f"{script} is missing: install the package (pip install -e .)"
    return script


def test_installed_command_prints_the_json() -> None:
    done = subprocess.run(
        [_entry_point(), "prizes", "--json"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["winners"], data["overall_odds"], data["payout_percent"]) == (
        2_346_570,
        2.77,
        "73.50",
    )


def test_installed_command_rejects_a_bad_option_without_a_traceback() -> None:
    done = subprocess.run(
        [_entry_point(), "prizes", "--nope"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "--nope" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_the_package_runs_as_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "colour_collector", "prizes", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["payout_percent"] == "73.50"
    wrong = subprocess.run(
        [sys.executable, "-m", "colour_collector", "nonsense"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert wrong.returncode == 2 and "nonsense" in wrong.stderr
    assert "Traceback" not in wrong.stderr + wrong.stdout
