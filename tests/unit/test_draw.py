"""The independent outcome draw: exact weighting and goodness of fit."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from scipy.stats import binomtest, chisquare

from colour_collector.game.draw import (
    NO_WIN,
    IndependentDraw,
    outcome_of,
    secure_rng,
)
from colour_collector.game.pool import PoolError, PrizePool, load_pool
from colour_collector.game.prize_table import load_tiers

DRAWS = 200_000
SIGNIFICANCE = 0.001


class ScriptedRandom(random.Random):
    """A Random whose ``randrange`` returns the given values in turn and checks the range."""

    def __init__(self, values: list[int]) -> None:
        super().__init__(0)
        self.values = values
        self.stops: list[int] = []

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        assert stop is None
        assert step == 1
        self.stops.append(start)
        value = self.values.pop(0)
        assert 0 <= value < start
        return value


def _small_pool() -> PrizePool:
    """A pool about 2,000 times smaller than the real one, every tier kept."""
    real = load_pool()
    counts = tuple(max(1, count // 2000) for count in real.counts)
    return PrizePool(size=sum(counts) + real.no_win_count // 2000, counts=counts)


def _binned(pool: PrizePool, observed: Counter[int], draws: int) -> tuple[list[int], list[float]]:
    """Observed and expected counts per outcome, rare tiers (expected < 5) grouped into one bin."""
    weights = {index: count for index, count in enumerate(pool.counts)}
    weights[NO_WIN] = pool.no_win_count
    obs: list[int] = []
    exp: list[float] = []
    rare_obs = 0
    rare_exp = 0.0
    for index, weight in weights.items():
        expected = draws * weight / pool.size
        if expected >= 5:
            obs.append(observed[index])
            exp.append(expected)
        else:
            rare_obs += observed[index]
            rare_exp += expected
    assert rare_exp >= 5
    obs.append(rare_obs)
    exp.append(rare_exp)
    return obs, exp


def test_independent_draw_maps_every_value_to_its_outcome_exactly() -> None:
    pool = PrizePool(size=400, counts=tuple(range(1, 4)) + (2,) * 96)
    values = list(range(pool.size))
    rng = ScriptedRandom(list(values))
    draw = IndependentDraw(pool)
    seen = Counter(draw.draw_index(rng) for _ in values)
    assert set(rng.stops) == {pool.size}
    assert [seen[i] for i in range(99)] == list(pool.counts)
    assert seen[NO_WIN] == pool.no_win_count


def test_independent_draw_boundaries() -> None:
    pool = load_pool()
    draw = IndependentDraw(pool)
    first = pool.counts[0]
    values = [0, first - 1, first, pool.winners - 1, pool.winners, pool.size - 1]
    rng = ScriptedRandom(list(values))
    got = [draw.draw_index(rng) for _ in values]
    assert got == [0, 0, 1, 98, NO_WIN, NO_WIN]


def test_independent_draw_fits_the_pool() -> None:
    pool = load_pool()
    draw = IndependentDraw(pool)
    rng = random.Random(20240601)
    observed = Counter(draw.draw_index(rng) for _ in range(DRAWS))
    obs, exp = _binned(pool, observed, DRAWS)
    assert len(obs) > 50
    assert chisquare(obs, exp).pvalue > SIGNIFICANCE
    wins = DRAWS - observed[NO_WIN]
    assert binomtest(wins, DRAWS, pool.winners / pool.size).pvalue > SIGNIFICANCE


def test_the_fit_test_rejects_a_biased_draw() -> None:
    # The same test on draws from a different pool must fail, or it proves nothing.
    pool = load_pool()
    counts = list(pool.counts)
    counts[0] -= 20_000
    counts[1] += 20_000
    biased = IndependentDraw(PrizePool(pool.size, tuple(counts)))
    rng = random.Random(20240601)
    observed = Counter(biased.draw_index(rng) for _ in range(DRAWS))
    obs, exp = _binned(pool, observed, DRAWS)
    assert chisquare(obs, exp).pvalue < SIGNIFICANCE


def test_draw_returns_tiers_or_none() -> None:
    draw = IndependentDraw(load_pool())
    rng = random.Random(3)
    outcomes = [draw.draw(rng) for _ in range(200)]
    assert None in outcomes
    assert all(o is None or o is load_tiers()[o.index] for o in outcomes)
    assert repr(draw).startswith("IndependentDraw(PrizePool(size=6500000")


def test_secure_rng_is_system_random() -> None:
    rng = secure_rng()
    assert isinstance(rng, random.SystemRandom)
    assert IndependentDraw(load_pool()).draw_index(rng) in {NO_WIN, *range(99)}


def test_outcome_of() -> None:
    assert outcome_of(NO_WIN) is None
    assert outcome_of(0) == load_tiers()[0]
    for bad in (99, -2):
        with pytest.raises(PoolError, match=repr(bad)):
            outcome_of(bad)
