"""The solver: its bounds, its answer and the checked-in counts all meet the published figures."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from importlib import resources
from pathlib import Path

import pytest

from colour_collector.game import calibration
from colour_collector.game.calibration import (
    CalibrationError,
    check,
    count_bounds,
    objective_value,
    optimal_ranges,
    payout_target,
    solve,
    target_winners,
    winner_bounds,
)
from colour_collector.game.pool import PrizePool, load_pool
from colour_collector.game.prize_table import load_tiers

N = 6_500_000


def _meets_published_figures(counts: tuple[int, ...]) -> None:
    """Recompute every constraint independently of the module under test."""
    tiers = load_tiers()
    assert len(counts) == len(tiers)
    for tier, count in zip(tiers, counts, strict=True):
        assert isinstance(count, int)
        assert count > 0
        assert math.ceil(Fraction(N, count)) == tier.printed_odds, tier.name
    winners = sum(counts)
    assert round(Fraction(N, winners), 2) == Fraction(277, 100)
    paid = sum(c * t.prize_pence for c, t in zip(counts, tiers, strict=True))
    assert paid == 2_388_750_000
    assert Fraction(paid, N * 500) == Fraction(735, 1000)


def test_count_bounds_match_brute_force() -> None:
    for size in range(1, 120):
        for odds in range(1, size + 1):
            counts = [c for c in range(1, size + 1) if -(-size // c) == odds]
            if counts:
                assert count_bounds(size, odds) == (counts[0], counts[-1]), (size, odds)
            else:
                with pytest.raises(CalibrationError, match=repr(odds)):
                    count_bounds(size, odds)


def test_count_bounds_of_published_figures() -> None:
    assert count_bounds(N, 43_334) == (150, 150)
    assert count_bounds(N, 6) == (1_083_334, 1_299_999)
    assert count_bounds(N, N) == (1, 1)
    with pytest.raises(CalibrationError, match="0"):
        count_bounds(N, 0)


def test_winner_bounds_are_exactly_the_totals_that_round_to_2_77() -> None:
    low, high = winner_bounds(N)
    for winners in (low, high):
        assert round(Fraction(N, winners), 2) == Fraction(277, 100)
    for winners in (low - 1, high + 1):
        assert round(Fraction(N, winners), 2) != Fraction(277, 100)
    assert (low, high) == (2_342_343, 2_350_813)


def test_target_winners_is_nearest_n_over_2_77() -> None:
    winners = target_winners(N)
    assert winners == 2_346_570
    exact = Fraction(N) / Fraction(277, 100)
    assert abs(winners - exact) <= Fraction(1, 2)


def test_payout_target() -> None:
    assert payout_target(N) == 2_388_750_000
    with pytest.raises(CalibrationError, match="whole pence"):
        payout_target(3)


def test_solver_answer_meets_every_published_figure() -> None:
    counts = solve()
    _meets_published_figures(counts)
    assert check(N, load_tiers(), counts) == ()
    assert sum(counts) == target_winners(N)


def test_checked_in_counts_meet_every_published_figure() -> None:
    _meets_published_figures(load_pool().counts)


def test_optimum_is_unique_so_the_checked_in_counts_are_the_solvers() -> None:
    ranges = optimal_ranges()
    assert all(low == high for low, high in ranges)
    counts = tuple(low for low, _ in ranges)
    assert counts == solve() == load_pool().counts


def test_objective_is_no_worse_than_a_nearby_feasible_pool() -> None:
    # Moving winners between two tiers that keep every constraint can only cost more.
    tiers = load_tiers()
    best = load_pool().counts
    value = objective_value(tiers, best)
    changed = 0
    for i in range(len(tiers)):
        for j in range(len(tiers)):
            if i == j or tiers[i].prize_pence != tiers[j].prize_pence:
                continue
            counts = list(best)
            counts[i] += 1
            counts[j] -= 1
            if check(N, tiers, counts) == ():
                changed += 1
                assert objective_value(tiers, counts) >= value
    assert changed > 0


def test_check_reports_each_broken_constraint() -> None:
    tiers = load_tiers()
    counts = list(load_pool().counts)
    counts[98] = 2
    problems = check(N, tiers, counts)
    assert any("£1,000,000" in p for p in problems)
    assert any("prize money" in p for p in problems)
    counts = list(load_pool().counts)
    counts[0] += 10_000
    assert any("winners" in p for p in check(N, tiers, counts))


def test_main_reports_the_solution(capsys: pytest.CaptureFixture[str]) -> None:
    assert calibration.main([]) == 0
    out = capsys.readouterr().out
    assert "winners 2,346,570 of 6,500,000" in out
    assert "payout 73.5000%" in out
    assert "matches the checked-in counts" in out


def test_main_write_writes_the_checked_in_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "pool_counts.json"
    monkeypatch.setattr(calibration, "COUNTS_PATH", target)
    assert calibration.main(["--write"]) == 0
    written = target.read_text(encoding="utf-8")
    checked_in = resources.files("colour_collector.game.data").joinpath("pool_counts.json")
    assert written == checked_in.read_text(encoding="utf-8")
    assert json.loads(written)["£5"] == load_pool().counts[0]
    assert PrizePool(N, tuple(json.loads(written).values())) == load_pool()
