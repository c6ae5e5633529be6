"""The pool procedure: the commitment, the deal and the seeds, re-implemented here from
docs/pools.md alone and compared; the deal is exact and uniform; bad input is refused."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from collections import Counter

import pytest
from scipy.stats import chisquare

from colour_collector.game import codec
from colour_collector.game.generator import generate
from colour_collector.game.pool_deal import (
    Dealer,
    categories,
    category_at,
    checkpoints,
    commitment,
    deal_number,
    deal_one,
    no_win_category,
    outcome_of,
    play_at,
    play_seed,
    remaining_at,
    secret_from_hex,
)
from colour_collector.game.pool_parameters import (
    MAX_SIZE,
    PROCEDURE,
    PoolDealError,
    PoolParameters,
    PoolVersionError,
    check_versions,
)
from colour_collector.game.prize_table import load_tiers
from colour_collector.game.replay import replay
from colour_collector.game.versions import Versions, current_versions
from pool_support import SMALL, parameters, small_pool

SECRET = bytes(range(32))


# -- an outsider's implementation, written from docs/pools.md -------------------------------------


def outsider_parameters_text(size: int, counts: list[int]) -> str:
    versions = current_versions()
    return json.dumps(
        {
            "procedure": "colour-collector-pool/1",
            "size": size,
            "counts": [[t.name, c] for t, c in zip(load_tiers(), counts, strict=True)],
            "no_win": size - sum(counts),
            "game": {"package": versions.package, "sha256": versions.game_sha256},
            "generator": {
                "sources_sha256": versions.generator_sources_sha256,
                "sample_sha256": versions.generator_sample_sha256,
            },
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )


def outsider_deal(secret: bytes, size: int, counts: list[int]) -> list[int]:
    remaining = [*counts, size - sum(counts)]
    order = []
    for k in range(size):
        total = sum(remaining)
        attempt = 0
        while True:
            message = b"colour-collector-pool/1 deal\x00" + k.to_bytes(8, "big")
            value = int.from_bytes(
                hmac.new(secret, message + attempt.to_bytes(4, "big"), hashlib.sha256).digest(),
                "big",
            )
            if value < 2**256 - 2**256 % total:
                u = value % total
                break
            attempt += 1
        running, category = 0, 0
        while u >= running + remaining[category]:
            running += remaining[category]
            category += 1
        remaining[category] -= 1
        order.append(category)
    return order


def outsider_play(secret: bytes, k: int, category: int) -> str:
    seed = hmac.new(
        secret, b"colour-collector-pool/1 play\x00" + k.to_bytes(8, "big"), hashlib.sha256
    ).digest()
    tiers = load_tiers()
    tier = None if category == len(tiers) else tiers[category]
    return codec.dumps(generate(tier, random.Random(int.from_bytes(seed, "big"))))


def test_the_procedure_is_what_the_documentation_says() -> None:
    pool = small_pool(secret=SECRET)
    counts = list(pool.parameters.counts)
    text = outsider_parameters_text(40, counts)
    assert pool.parameters.text == text
    assert pool.commitment == hashlib.sha256(text.encode() + b"\n" + SECRET).hexdigest()
    order = outsider_deal(SECRET, 40, counts)
    assert list(categories(SECRET, pool.parameters, 0, 40)) == order
    for k in (0, 7, 39):
        assert codec.dumps(play_at(SECRET, k, order[k])) == outsider_play(SECRET, k, order[k])
    assert PROCEDURE == "colour-collector-pool/1"


def test_the_worked_example_of_the_documentation() -> None:
    # docs/pools.md, "A worked example": a pool of 10 plays, two £5 and the £1,000,000.
    params = parameters(10, {"£5": 2, "£1,000,000": 1})
    assert [deal_number(SECRET, k, 10 - k) for k in range(3)] == [2, 0, 4]
    assert list(categories(SECRET, params, 0, 10)) == [98, 0, 99, 99, 99, 99, 99, 99, 99, 0]
    assert (
        play_seed(SECRET, 0) == 0x297E2C783B7589D2A4A59DB8734429156B3CE2AB8DE715534EB408E73C80693F
    )


# -- the deal ------------------------------------------------------------------------------------


def test_a_pool_dealt_to_the_end_gives_every_category_exactly_its_count() -> None:
    params = parameters(200, {"£5": 30, "£7": 9, "£100": 2, "£1,000,000": 1})
    order = categories(SECRET, params, 0, 200)
    assert Counter(order) == Counter({c: n for c, n in enumerate(params.start) if n})
    assert order[:60] != bytes(sorted(order[:60]))  # shuffled, not dealt tier by tier
    dealer = Dealer(SECRET, params.start)
    dealer.skip(200)
    assert dealer.remaining == (0,) * len(params.start)
    with pytest.raises(PoolDealError, match="nothing is left"):
        dealer.deal()


def test_the_fast_dealer_deals_as_the_one_step_deal() -> None:
    params = parameters(300, {"£5": 50, "£7": 20, "£50": 5, "£1,000": 2, "£1,000,000": 1})
    remaining = params.start
    dealer = Dealer(SECRET, params.start)
    for position in range(300):
        category, remaining = deal_one(SECRET, position, remaining)
        assert dealer.deal() == category
        assert dealer.remaining == remaining
    assert remaining_at(SECRET, params, 123) == remaining_at(SECRET, params, 123)
    marks = checkpoints(SECRET, params, 64)
    assert [m[0] for m in marks] == [0, 64, 128, 192, 256]
    for position, left in marks:
        assert remaining_at(SECRET, params, position) == left
        assert sum(left) == 300 - position


def test_a_slice_deals_as_the_whole_pool() -> None:
    params = parameters(120, {"£5": 20, "£10": 7})
    whole = categories(SECRET, params, 0, 120)
    assert categories(SECRET, params, 37, 90) == whole[37:90]
    with pytest.raises(PoolDealError, match="not within"):
        categories(SECRET, params, 10, 121)


def test_each_position_is_equally_likely_to_hold_the_top_prize() -> None:
    # One top prize among 10 plays: over 3,000 secrets its position is uniform.
    params = parameters(10, {"£1,000,000": 1})
    top = load_tiers()[-1].index
    where = Counter(
        categories(hashlib.sha256(str(n).encode()).digest(), params, 0, 10).index(top)
        for n in range(3_000)
    )
    assert set(where) == set(range(10))
    assert chisquare([where[p] for p in range(10)]).pvalue > 0.001


def test_deal_numbers_are_uniform_and_in_range() -> None:
    numbers = [deal_number(SECRET, k, 7) for k in range(7_000)]
    assert set(numbers) == set(range(7))
    assert chisquare([numbers.count(v) for v in range(7)]).pvalue > 0.001
    with pytest.raises(PoolDealError, match="nothing is left"):
        deal_number(SECRET, 0, 0)


def test_category_at_reads_the_remaining_counts_in_order() -> None:
    assert category_at((2, 0, 3), 0) == 0
    assert category_at((2, 0, 3), 1) == 0
    assert category_at((2, 0, 3), 2) == 2
    with pytest.raises(PoolDealError, match="not below"):
        category_at((2, 0, 3), 5)


def test_every_play_of_a_small_pool_replays_to_its_outcome() -> None:
    pool = small_pool(secret=SECRET)
    for position, category in enumerate(categories(SECRET, pool.parameters, 0, 40)):
        assert replay(play_at(SECRET, position, category)).tier == outcome_of(category)
    assert play_seed(SECRET, 0) != play_seed(SECRET, 1)
    assert play_seed(SECRET, 0) != play_seed(bytes(32), 0)


# -- parameters, commitment, secret --------------------------------------------------------------


def test_the_commitment_binds_secret_size_counts_and_versions() -> None:
    base = parameters()
    first = commitment(SECRET, base)
    assert first == commitment(SECRET, parameters())
    others = [
        commitment(bytes(32), base),
        commitment(SECRET, parameters(41)),
        commitment(SECRET, parameters(40, {**SMALL, "£5": 9})),
        commitment(
            SECRET,
            PoolParameters(
                40,
                base.counts,
                Versions(
                    "0.1.0", "0" * 64, base.versions.generator_sources_sha256,
                    base.versions.generator_sample_sha256,
                ),
            ),
        ),
    ]  # fmt: skip
    assert first not in others
    assert len(set(others)) == len(others)
    with pytest.raises(PoolDealError, match="32 bytes"):
        commitment(b"short", base)


def test_parameters_round_trip_and_refuse_anything_else() -> None:
    base = parameters()
    assert PoolParameters.from_text(base.text) == base
    data = json.loads(base.text)
    assert not parameters().is_published
    assert PoolParameters.published().is_published
    for change, message in [
        ({"procedure": "other/1"}, "procedure"),
        ({"size": "40"}, "size must be an integer"),
        ({"no_win": 1}, "no_win must be"),
        ({"extra": 1}, "unknown field"),
        ({"counts": data["counts"][:-1]}, "must list the 99 tiers"),
        ({"counts": [["£6", 8], *data["counts"][1:]]}, r"counts\[0\]"),
        ({"game": {"package": "0.1.0"}}, "lacks 'sha256'"),
        ({"generator": {"sources_sha256": "x", "sample_sha256": "0" * 64}}, "64 lower-case"),
    ]:
        text = json.dumps({**data, **change}, sort_keys=True, separators=(",", ":"))
        with pytest.raises(PoolDealError, match=message):
            PoolParameters.from_text(text)
    with pytest.raises(PoolDealError, match="canonical"):
        PoolParameters.from_text(json.dumps(data, sort_keys=True))
    with pytest.raises(PoolDealError, match="not valid JSON"):
        PoolParameters.from_text("{")
    with pytest.raises(PoolDealError, match="winners do not fit"):
        parameters(10)


def test_secrets_are_read_as_64_hex_digits() -> None:
    assert secret_from_hex(SECRET.hex().upper() + "\n") == SECRET
    for bad in ("", "00", "g" * 64, SECRET.hex() + "00"):
        with pytest.raises(PoolDealError, match="64 hex digits"):
            secret_from_hex(bad)


def test_a_pool_of_another_generator_is_refused() -> None:
    base = parameters()
    check_versions(base)
    versions = base.versions
    for other in (
        Versions("9", "a" * 64, versions.generator_sources_sha256,
                           versions.generator_sample_sha256),
        Versions("9", versions.game_sha256, "b" * 64, versions.generator_sample_sha256),
        Versions("9", versions.game_sha256, versions.generator_sources_sha256, "c" * 64),
    ):  # fmt: skip
        with pytest.raises(PoolVersionError, match="another version") as refused:
            check_versions(PoolParameters(40, base.counts, other))
        assert "colour-collector 9" in str(refused.value)
    assert no_win_category() == len(load_tiers())


def test_a_pool_larger_than_the_largest_is_refused() -> None:
    assert parameters(MAX_SIZE).size == MAX_SIZE
    with pytest.raises(PoolDealError, match=r"at most 100,000,000 plays, not 100,000,001"):
        parameters(MAX_SIZE + 1)
