"""The transcribed prize table: literal rows, name parsing and structural properties."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from colour_collector.game.errors import GameError
from colour_collector.game.prize_table import (
    PrizeTableError,
    Tier,
    UnknownTierError,
    load_tiers,
    parse_amount,
    parse_name,
    parse_tsv,
    tier_by_name,
    tier_for_breakdown,
)

HEADER = "name\tprinted_odds\n"


def test_there_are_99_tiers_indexed_in_printed_order() -> None:
    tiers = load_tiers()
    assert len(tiers) == 99
    assert [tier.index for tier in tiers] == list(range(99))


@pytest.mark.parametrize(
    "expected",
    [
        Tier(0, "£5", 500, 6, (500,), 0),
        Tier(5, "£10 (£10 Prize Game)", 1000, 65, (), 1000),
        Tier(12, "£15 (£5 + £10)", 1500, 650, (500, 1000), 0),
        Tier(13, "£15 (£5 + £10 Prize Game)", 1500, 163, (500,), 1000),
        Tier(42, "£32 (£12 + £20 Prize Game)", 3200, 2889, (1200,), 2000),
        Tier(62, "£55 (£10 + £15 + £30)", 5500, 43334, (1000, 1500, 3000), 0),
        Tier(68, "£70 (£10 + £20 + £40 Prize Game)", 7000, 81250, (1000, 2000), 4000),
        Tier(69, "£72 (£5 + £7 + £10 + £50 Prize Game)", 7200, 81250, (500, 700, 1000), 5000),
        Tier(86, "£200 (£25 + £75 + £100 Prize Game)", 20000, 406250, (2500, 7500), 10000),
        Tier(98, "£1,000,000", 100_000_000, 6_500_000, (100_000_000,), 0),
    ],
    ids=lambda tier: tier.name,
)
def test_literal_rows(expected: Tier) -> None:
    assert load_tiers()[expected.index] == expected
    assert tier_by_name(expected.name) == expected


def test_printed_odds_of_the_smallest_and_largest_tiers() -> None:
    odds = [tier.printed_odds for tier in load_tiers()]
    assert min(odds) == 6
    assert max(odds) == 6_500_000
    assert sum(1 for o in odds if o == 6_500_000) == 7


def test_every_breakdown_adds_up_to_its_prize() -> None:
    for tier in load_tiers():
        assert sum(tier.rows) + tier.prize_game == tier.prize_pence, tier.name
        assert tier.rows == tuple(sorted(tier.rows)), tier.name
        assert tier.rows or tier.prize_game, tier.name


def test_every_amount_is_whole_pounds_and_positive() -> None:
    for tier in load_tiers():
        assert tier.prize_pence > 0
        assert all(row > 0 and row % 100 == 0 for row in tier.rows), tier.name
        assert tier.prize_game % 100 == 0, tier.name


def test_names_and_breakdowns_are_unique() -> None:
    tiers = load_tiers()
    assert len({tier.name for tier in tiers}) == len(tiers)
    assert len({(tier.rows, tier.prize_game) for tier in tiers}) == len(tiers)


def test_prizes_ascend_as_printed() -> None:
    prizes = [tier.prize_pence for tier in load_tiers()]
    assert prizes == sorted(prizes)


def test_names_round_trip_through_the_parser() -> None:
    for tier in load_tiers():
        breakdown = parse_name(tier.name)
        assert (breakdown.prize_pence, breakdown.rows, breakdown.prize_game) == (
            tier.prize_pence,
            tier.rows,
            tier.prize_game,
        )


@pytest.mark.parametrize(
    ("name", "rows", "prize_game"),
    [
        ("£5", (500,), 0),
        ("£10 (£10 Prize Game)", (), 1000),
        ("£15 (£5 + £10)", (500, 1000), 0),
        ("£70 (£10 + £20 + £40 Prize Game)", (1000, 2000), 4000),
        ("£1,000,000", (100_000_000,), 0),
        ("£30 (£20 + £10)", (1000, 2000), 0),
    ],
)
def test_parse_name_examples(name: str, rows: tuple[int, ...], prize_game: int) -> None:
    breakdown = parse_name(name)
    assert breakdown.rows == rows
    assert breakdown.prize_game == prize_game


@pytest.mark.parametrize(
    "name",
    [
        "£15 (£5 Prize Game + £10)",
        "£16 (£5 + £10)",
        "£5.50",
        "5",
        "£1000,000",
        "£05",
        "£15 (£5 + £10",
        "£15  (£5 + £10)",
        "",
    ],
)
def test_parse_name_rejects_bad_names(name: str) -> None:
    with pytest.raises(PrizeTableError, match="'"):
        parse_name(name)


def test_parse_amount() -> None:
    assert parse_amount("£1,500") == 150_000
    assert parse_amount("£999") == 99_900
    with pytest.raises(PrizeTableError, match=r"'£1,50'"):
        parse_amount("£1,50")


def test_tier_for_breakdown_accepts_rows_in_any_order() -> None:
    rng = random.Random(7)
    for tier in load_tiers():
        rows = list(tier.rows)
        rng.shuffle(rows)
        assert tier_for_breakdown(tuple(rows), tier.prize_game) == tier


def test_tier_for_breakdown_is_none_when_nothing_matches() -> None:
    assert tier_for_breakdown((), 0) is None
    assert tier_for_breakdown((500, 500), 0) is None
    assert tier_for_breakdown((500,), 500) is None
    assert tier_for_breakdown((), 10_000_000) is None


def test_unknown_tier_name_is_a_value_error_quoting_the_name() -> None:
    with pytest.raises(UnknownTierError, match=r"'£3'") as caught:
        tier_by_name("£3")
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, GameError)


def test_load_tiers_is_cached() -> None:
    assert load_tiers() is load_tiers()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name\todds\n£5\t6\n", "header"),
        ("", "header"),
        (HEADER, "no tiers"),
        (HEADER + "£5\t6\n£5\t7\n", "twice"),
        (HEADER + "£10\t6\n£10 (£10)\t7\n", "same breakdown"),
        (HEADER + "£15 (£5 + £5)\t6\n", "adds up"),
        (HEADER + "£5\tsix\n", "'six'"),
        (HEADER + "£5\t0\n", "'0'"),
        (HEADER + "£5\t6\t7\n", "2 tab-separated"),
        (HEADER + "£6\t6\n£5\t6\n", "ascending"),
    ],
)
def test_parse_tsv_rejects_malformed_tables(text: str, message: str) -> None:
    with pytest.raises(PrizeTableError, match=message):
        parse_tsv(text)


def test_parse_tsv_reports_the_line_number() -> None:
    with pytest.raises(PrizeTableError, match="line 3"):
        parse_tsv(HEADER + "£5\t6\n£6 (£7)\t6\n")


@pytest.mark.parametrize(
    "module",
    [
        "colour_collector.game.prize_table",
        "colour_collector.game.pool",
        "colour_collector.game.draw",
        "colour_collector.game.calibration",
    ],
)
def test_importing_the_game_modules_loads_no_scipy(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        f"{module}\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'scipy', 'numpy'})\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
