"""The checked-in pool: every published figure recomputed exactly, and the loader's checks."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import pytest

from colour_collector.game.pool import (
    POOL_SIZE,
    PoolError,
    PrizePool,
    load_pool,
    pool_from_mapping,
    pool_to_mapping,
    printed_odds_of,
    round_2dp,
)
from colour_collector.game.prize_table import load_tiers

N = 6_500_000


def test_pool_size_is_six_and_a_half_million() -> None:
    assert POOL_SIZE == N
    assert load_pool().size == N


def test_every_tier_prints_its_published_odds() -> None:
    pool = load_pool()
    assert len(pool.counts) == 99
    for tier, count in zip(load_tiers(), pool.counts, strict=True):
        assert count > 0, tier.name
        assert math.ceil(Fraction(N, count)) == tier.printed_odds, tier.name


def test_overall_odds_round_to_2_77() -> None:
    pool = load_pool()
    winners = sum(pool.counts)
    assert pool.winners == winners
    assert round(Fraction(N, winners), 2) == Fraction(277, 100)
    assert pool.overall_odds == Fraction(N, winners)


def test_payout_is_exactly_73_50_percent() -> None:
    pool = load_pool()
    total = sum(c * t.prize_pence for c, t in zip(pool.counts, load_tiers(), strict=True))
    assert total == 2_388_750_000
    assert pool.total_prize_pence == total
    assert Fraction(total, N * 500) == Fraction(735, 1000)
    assert pool.payout == Fraction(735, 1000)


def test_solved_totals() -> None:
    pool = load_pool()
    assert pool.winners == 2_346_570
    assert pool.no_win_count == N - 2_346_570
    assert pool.published_violations() == ()


def test_tier_odds_are_exact() -> None:
    pool = load_pool()
    assert pool.tier_odds(98) == Fraction(N, 1)
    for index, count in enumerate(pool.counts):
        assert pool.tier_odds(index) * count == N


def test_known_counts() -> None:
    counts = pool_to_mapping(load_pool())
    assert counts["£55 (£10 + £15 + £30)"] == 150
    assert counts["£200 (£25 + £75 + £100 Prize Game)"] == 16
    assert counts["£1,000,000"] == 1
    assert list(counts) == [tier.name for tier in load_tiers()]


def test_a_perturbed_pool_breaks_the_published_figures() -> None:
    pool = load_pool()
    counts = list(pool.counts)
    counts[0] -= 1
    moved = PrizePool(N, tuple(counts))
    assert any("payout" in problem for problem in moved.published_violations())
    counts = list(pool.counts)
    counts[98] = 2
    assert any("£1,000,000" in p for p in PrizePool(N, tuple(counts)).published_violations())


def test_printed_odds_of() -> None:
    assert printed_odds_of(N, 150) == 43_334
    assert printed_odds_of(N, 1) == N
    assert printed_odds_of(10, 5) == 2
    with pytest.raises(PoolError, match="0"):
        printed_odds_of(N, 0)


def test_round_2dp_rounds_halves_up() -> None:
    assert round_2dp(Fraction(2765, 1000)) == Fraction(277, 100)
    assert round_2dp(Fraction(27649, 10000)) == Fraction(276, 100)
    assert round_2dp(Fraction(N, 2_346_570)) == Fraction(277, 100)


def test_load_pool_is_cached_and_round_trips() -> None:
    pool = load_pool()
    assert load_pool() is pool
    assert pool_from_mapping(json.loads(json.dumps(pool_to_mapping(pool)))) == pool


def _mapping() -> dict[str, Any]:
    return dict(pool_to_mapping(load_pool()))


def test_mapping_must_name_every_tier() -> None:
    data = _mapping()
    del data["£750"]
    with pytest.raises(PoolError, match="'£750'"):
        pool_from_mapping(data)


def test_mapping_must_not_name_unknown_tiers() -> None:
    data = _mapping()
    data["£3"] = 1
    with pytest.raises(PoolError, match="'£3'"):
        pool_from_mapping(data)


@pytest.mark.parametrize("bad", [0, -1, 1.0, "1", True, None])
def test_mapping_counts_must_be_positive_ints(bad: object) -> None:
    data = _mapping()
    data["£6"] = bad
    with pytest.raises(PoolError, match=r"'£6'.*" + repr(bad).replace(".", r"\.")):
        pool_from_mapping(data)


def test_mapping_must_be_an_object() -> None:
    with pytest.raises(PoolError, match="'list'"):
        pool_from_mapping([1, 2])


def test_pool_rejects_wrong_shapes() -> None:
    counts = load_pool().counts
    with pytest.raises(PoolError, match="99 counts"):
        PrizePool(N, counts[:-1])
    with pytest.raises(PoolError, match="-3"):
        PrizePool(N, (-3, *counts[1:]))
    with pytest.raises(PoolError, match="do not fit"):
        PrizePool(1000, counts)
    with pytest.raises(PoolError, match="0"):
        PrizePool(0, (0,) * 99)


def test_a_small_pool_may_have_empty_tiers() -> None:
    pool = PrizePool(100, (10,) + (0,) * 98)
    assert pool.winners == 10
    assert pool.no_win_count == 90
    assert pool.overall_odds == 10
    assert pool.payout == Fraction(5000, 100 * 500)
    with pytest.raises(PoolError, match="'£6'"):
        pool.tier_odds(1)
    with pytest.raises(PoolError, match="no winners"):
        _ = PrizePool(100, (0,) * 99).overall_odds
