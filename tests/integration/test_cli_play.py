"""``colour-collector play``, ``verify`` and ``simulate``: their outputs and exit codes (run in
this process), and the installed command."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from fractions import Fraction
from math import sqrt
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import binomtest
from typer.testing import CliRunner

from colour_collector.cli.app import app as cli
from colour_collector.game.codec import loads
from colour_collector.game.generator import generate
from colour_collector.game.pool import load_pool
from colour_collector.game.prize_table import load_tiers
from colour_collector.game.record import BonusRound
from colour_collector.game.replay import replay

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _installed(*args: str) -> subprocess.CompletedProcess[str]:
    """``colour-collector ARGS`` as the installed command, in a process of its own."""
    command = Path(sys.executable).with_name("colour-collector")
    assert command.exists(), f"{command} is missing: install the package (pip install -e .)"
    return subprocess.run([command, *args], capture_output=True, text=True, check=False)


def _run(*args: str, stdin: str | bytes | None = None) -> subprocess.CompletedProcess[str]:
    """``colour-collector ARGS`` run in this process (the installed command costs a second and a
    half of imports a run: ``test_the_installed_command_runs`` runs it once); its exit code and
    outputs, as a finished process's."""
    result = CliRunner().invoke(cli, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def _clean_error(done: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    assert done.returncode == code, (done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr
    for word in words:
        assert word in done.stdout + done.stderr, (word, done.stdout, done.stderr)


# -- play ------------------------------------------------------------------------------------------


def test_the_installed_command_runs() -> None:
    """The entry point ``pip install`` makes runs a command, and its errors are short."""
    done = _installed("play", "--tier", "£5", "--seed", "7", "--json")
    assert done.returncode == 0, done.stderr
    assert replay(loads(done.stdout)).tier.name == "£5"  # type: ignore[union-attr]
    assert done.stdout == _run("play", "--tier", "£5", "--seed", "7", "--json").stdout
    _clean_error(_installed("play", "--tier", "£3", "--json"), 2, "'£3'", "--tier")


def test_play_prints_a_record_of_the_asked_tier() -> None:
    tier = "£15 (£5 + £10 Prize Game)"
    done = _run("play", "--tier", tier, "--seed", "7", "--json")
    assert done.returncode == 0, done.stderr
    record = loads(done.stdout)
    assert done.stdout.startswith('{\n  "format": "colour-collector-play"')
    assert replay(record).tier is not None
    assert replay(record).tier.name == tier  # type: ignore[union-attr]
    again = _run("play", "--tier", tier, "--seed", "7", "--json")
    assert again.stdout == done.stdout


@pytest.mark.parametrize("name", ["none", "no-win", "None"])
def test_play_none_is_a_losing_play(name: str) -> None:
    done = _run("play", "--tier", name, "--seed", "3", "--json")
    assert done.returncode == 0, done.stderr
    assert replay(loads(done.stdout)).tier is None


def test_play_without_a_tier_draws_the_outcome() -> None:
    outcomes = set()
    for seed in range(6):
        done = _run("play", "--seed", str(seed), "--json")
        assert done.returncode == 0, done.stderr
        result = replay(loads(done.stdout))
        outcomes.add(None if result.tier is None else result.tier.name)
    assert None in outcomes  # the commonest outcome turns up in six draws...
    assert len(outcomes) >= 2  # ...and so does a win (a drawn outcome, not a fixed one)


def test_play_with_an_unknown_tier_says_how_to_list_them() -> None:
    done = _run("play", "--tier", "£3", "--json")
    _clean_error(done, 2, "'£3'", "colour-collector prizes", "--tier")
    assert done.stdout == ""


@pytest.mark.parametrize("seed", ["-1", "x"])
def test_play_with_a_bad_seed_names_the_option(seed: str) -> None:
    _clean_error(_run("play", "--seed", seed, "--json"), 2, "--seed")


def test_play_in_the_terminal_with_piped_input() -> None:
    answers = "\n".join(["", "o", "e", "", "x", "e"] * 60) + "\n"
    done = _run(
        "play", "--tier", "£20 (£20 Prize Game)", "--seed", "1", "--interactive", stdin=answers
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "PRIZE TABLE (level 0)" in out
    assert "SPINS LEFT: 6" in out
    assert "GRID (item:colour letter)" in out
    assert "BONUS GAME box" in out
    assert "PRIZE GAME: keep spinning" in out
    assert "PRIZE POT:" in out
    assert "YOU WIN £20 (£20 (£20 Prize Game))" in out
    assert "The wheel stops on" in out


def test_play_in_the_terminal_shows_the_bonus_game_and_a_losing_end() -> None:
    # A losing play with a Bonus Game at a small seed, looked for in this process the way
    # `play --tier none --seed S` makes it (running the command for each seed would start a
    # process each time); the run below fails if the command makes another play.
    for seed in range(30):
        if any(isinstance(s, BonusRound) for s in generate(None, random.Random(seed)).steps):
            break
    else:
        pytest.fail("no losing play with a Bonus Game in 30 seeds")
    done = _run("play", "--tier", "none", "--seed", str(seed), "--interactive", stdin="\no\n" * 80)
    assert done.returncode == 0, done.stderr
    assert "BONUS GAME: select ODD or EVEN" in done.stdout
    assert "You picked ODD" in done.stdout
    assert "GAME OVER - no win this time." in done.stdout


def test_play_in_the_terminal_stops_cleanly_when_input_ends() -> None:
    done = _run("play", "--tier", "£5", "--seed", "2", "--interactive", stdin="\n")
    _clean_error(done, 1, "input ended")


# -- verify ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "entry",
    json.loads((GOLDEN / "manifest.json").read_text("utf-8")),
    ids=lambda e: e["file"],
)
def test_verify_a_golden_record(entry: dict[str, Any]) -> None:
    done = _run("verify", str(GOLDEN / entry["file"]), "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["valid"] is True
    assert answer["tier"] == entry["tier"]
    assert answer["prize_pence"] == entry["prize_pence"]
    assert answer["level"] == entry["level"]
    text = _run("verify", str(GOLDEN / entry["file"]))
    assert text.returncode == 0
    assert text.stdout.startswith("VALID: ")
    assert f"Prize Table level: {entry['level']}" in text.stdout


def test_verify_reads_stdin_and_shows_the_prize_game() -> None:
    text = (GOLDEN / "prize_game_by_bonus_prize_x2.json").read_text("utf-8")
    done = _run("verify", "-", stdin=text)
    assert done.returncode == 0, done.stderr
    assert "VALID: wins £20, tier £20 (£20 Prize Game)" in done.stdout
    assert "Prize Game: pot £10, doubled by WIN x2 to £20" in done.stdout


def test_verify_names_the_step_of_a_broken_rule(tmp_path: Path) -> None:
    data = json.loads((GOLDEN / "no_win.json").read_text("utf-8"))
    spin = data["steps"][0]
    square = next(s for s, c in enumerate(spin["colours"]) if c != spin["wheel"])
    spin["colours"][square] = spin["wheel"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), "utf-8")
    done = _run("verify", str(path))
    _clean_error(done, 1, "step 0", "refill-count")
    answer = json.loads(_run("verify", str(path), "--json").stdout)
    assert answer == {
        "valid": False,
        "step": 0,
        "rule": "refill-count",
        "detail": answer["detail"],
    }


def test_verify_a_record_whose_version_is_not_the_integer_1(tmp_path: Path) -> None:
    text = (GOLDEN / "main_game_win.json").read_text("utf-8")
    path = tmp_path / "float.json"
    path.write_text(text.replace('"version": 1', '"version": 1.0', 1), "utf-8")
    assert path.read_text("utf-8") != text
    _clean_error(_run("verify", str(path)), 1, "altered or damaged", "'version'", "1.0")


def test_verify_a_record_with_an_unknown_field(tmp_path: Path) -> None:
    data = json.loads((GOLDEN / "main_game_win.json").read_text("utf-8"))
    data["steps"][1]["extra"] = 1
    path = tmp_path / "extra.json"
    path.write_text(json.dumps(data), "utf-8")
    _clean_error(_run("verify", str(path)), 1, "altered or damaged", "steps[1]", "extra")


@pytest.mark.parametrize(
    ("content", "status", "words"),
    [
        (b"{not json", 2, ("not a play record", "not valid JSON")),
        (b"[1, 2, 3]", 2, ("not a play record",)),
        (b"\x00\x01\x02\xff\xfe binary", 2, ("not valid JSON",)),
        (b"", 2, ("not valid JSON",)),
        # It says it is a play record and is not a whole one: altered or damaged.
        (b'{"format": "colour-collector-play"}', 1, ("altered or damaged", "lacks")),
    ],
)
def test_verify_malformed_input_is_a_one_line_error(
    tmp_path: Path, content: bytes, status: int, words: tuple[str, ...]
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    done = _run("verify", str(path))
    _clean_error(done, status, *words)
    assert len(done.stderr.strip().splitlines()) == 1
    piped = _run("verify", "-", stdin=content)
    _clean_error(piped, status, *words)


def test_verify_a_missing_file_or_a_directory(tmp_path: Path) -> None:
    _clean_error(_run("verify", str(tmp_path / "nope.json")), 2, "no such file", "nope.json")
    _clean_error(_run("verify", str(tmp_path)), 2, "is a directory")


# -- simulate --------------------------------------------------------------------------------------


def _simulate(*args: str) -> dict[str, Any]:
    done = _run("simulate", *args, "--json")
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)  # exactly one JSON object on stdout
    return data


def test_simulate_two_thousand_plays_are_all_valid() -> None:
    data = _simulate("--plays", "2000", "--seed", "1")
    assert data["plays"] == 2000
    assert data["invalid"] == 0
    assert data["invalid_examples"] == []
    assert len(data["tiers"]) == 99
    assert sum(t["observed"] for t in data["tiers"]) + data["no_win"]["observed"] == 2000
    assert 0 <= data["chi2_pvalue"] <= 1
    assert {"payout_percent", "hit_rate", "chi2_pvalue"} <= data.keys()


def test_simulate_is_reproducible_and_does_not_depend_on_workers() -> None:
    one = _simulate("--plays", "3000", "--seed", "5", "--workers", "1")
    two = _simulate("--plays", "3000", "--seed", "5", "--workers", "2")
    for data in (one, two):
        data.pop("seconds")
        data.pop("workers")
    assert one == two


def test_simulate_text_report() -> None:
    done = _run("simulate", "--plays", "500", "--seed", "2")
    assert done.returncode == 0, done.stderr
    assert "Invalid plays:  0" in done.stdout
    assert "Payout:" in done.stdout
    assert "Chi-square:" in done.stdout
    assert re.search(r"p-value 0\.\d{4}$", done.stdout, re.MULTILINE), done.stdout


def test_simulate_too_few_plays_for_a_chi_square_says_so() -> None:
    done = _run("simulate", "--plays", "1", "--seed", "1")
    assert done.returncode == 0, done.stderr
    assert "on 0 degrees of freedom" in done.stdout
    assert "too few plays" in done.stdout and "scipy" not in done.stdout


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--plays", "-5"), "--plays"),
        (("--plays", "0"), "--plays"),
        (("--workers", "0"), "--workers"),
        (("--seed", "abc"), "--seed"),
        (("--seed", "-2"), "--seed"),
    ],
)
def test_simulate_bad_arguments_name_the_option(args: tuple[str, ...], option: str) -> None:
    _clean_error(_run("simulate", *args), 2, option)


@pytest.mark.slow
def test_simulate_twenty_thousand_plays_match_the_published_figures() -> None:
    plays = 20_000
    data = _simulate("--plays", str(plays), "--seed", "2026", "--workers", "2")
    assert data["invalid"] == 0
    pool = load_pool()
    # Hit rate: a two-sided binomial test against the pool's exact rate (1 in 2.77).
    winners = data["winners"]
    expected_rate = Fraction(pool.winners, pool.size)
    assert binomtest(winners, plays, float(expected_rate)).pvalue > 0.001
    assert round(1 / expected_rate, 2) == Fraction(277, 100)
    # Payout: within 4 standard errors of 73.50%, the standard error from the pool's variance.
    prizes = [t.prize_pence for t in load_tiers()]
    mean = Fraction(sum(c * p for c, p in zip(pool.counts, prizes, strict=True)), pool.size)
    square = Fraction(sum(c * p * p for c, p in zip(pool.counts, prizes, strict=True)), pool.size)
    se = sqrt(float(square - mean * mean) / plays)
    observed = Fraction(data["prize_pence"], plays)
    assert abs(float(observed - mean)) < 4 * se
    assert pool.payout == Fraction(735, 1000)
    # The jackpot makes that loose; prizes up to £100 have a small variance: a tight check.
    small = [(c, p) for c, p in zip(pool.counts, prizes, strict=True) if p <= 10_000]
    small_mean = Fraction(sum(c * p for c, p in small), pool.size)
    small_square = Fraction(sum(c * p * p for c, p in small), pool.size)
    small_se = sqrt(float(small_square - small_mean * small_mean) / plays)
    small_observed = Fraction(
        sum(t["observed"] * p for t, p in zip(data["tiers"], prizes, strict=True) if p <= 10_000),
        plays,
    )
    assert abs(float(small_observed - small_mean)) < 4 * small_se
    assert small_se < 0.03 * float(small_mean)  # the tight check is tight
