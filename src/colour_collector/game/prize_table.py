"""The published prize tiers: ``data/prize_table.tsv`` read into ``Tier`` values.

The TSV holds the Game Procedures' "Prize Amounts and Odds" table as printed: one line per tier,
the name exactly as printed and the printed odds as an integer. Each name is parsed into its
breakdown: the Prize Table row amounts and the Prize Game part that make up the prize.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TypeAlias

from colour_collector.game.errors import GameError

Pence: TypeAlias = int
"""An amount of money in pence."""

TSV_NAME = "prize_table.tsv"
"""File name of the prize table inside ``colour_collector.game.data``."""
TSV_HEADER = ("name", "printed_odds")
"""The TSV's header line, tab separated."""
PRIZE_GAME_SUFFIX = " Prize Game"
"""Marks the part of a breakdown won in the Prize Game."""

_AMOUNT = re.compile(r"£(?P<pounds>[1-9]\d{0,2}(?:,\d{3})*)")
_NAME = re.compile(r"(?P<total>£[^ ]+)(?: \((?P<parts>[^()]+)\))?")


class PrizeTableError(GameError, ValueError):
    """The prize table is malformed: the message names the line and the value."""


class UnknownTierError(GameError, ValueError):
    """No prize tier has the given name or breakdown."""


@dataclass(frozen=True, slots=True)
class Tier:
    """One prize tier of the published table."""

    index: int
    """Position in the printed table, 0 to 98; the no-win outcome is not a tier."""
    name: str
    """The name exactly as printed, e.g. ``'£15 (£5 + £10 Prize Game)'``."""
    prize_pence: Pence
    """The Prize Amount."""
    printed_odds: int
    """The printed "Approx. odds (1 in x)" figure."""
    rows: tuple[Pence, ...]
    """Prize Table row amounts in the breakdown, ascending; empty if none."""
    prize_game: Pence
    """The Prize Game part of the breakdown; 0 if none."""


@dataclass(frozen=True, slots=True)
class Breakdown:
    """What a tier's name says the prize is made of."""

    prize_pence: Pence
    """The Prize Amount."""
    rows: tuple[Pence, ...]
    """Prize Table row amounts, ascending."""
    prize_game: Pence
    """The Prize Game part; 0 if none."""


def parse_amount(text: str) -> Pence:
    """Read a printed amount such as ``'£1,000,000'`` as pence."""
    match = _AMOUNT.fullmatch(text)
    if match is None:
        raise PrizeTableError(f"not a whole-pound amount: {text!r}")
    return int(match["pounds"].replace(",", "")) * 100


def parse_name(name: str) -> Breakdown:
    """Parse a printed tier name into its breakdown and check the parts add up."""
    match = _NAME.fullmatch(name)
    if match is None:
        raise PrizeTableError(f"not a prize tier name: {name!r}")
    total = parse_amount(match["total"])
    if match["parts"] is None:
        return Breakdown(total, (total,), 0)
    parts = match["parts"].split(" + ")
    prize_game = 0
    if parts[-1].endswith(PRIZE_GAME_SUFFIX):
        prize_game = parse_amount(parts[-1].removesuffix(PRIZE_GAME_SUFFIX))
        parts = parts[:-1]
    rows = tuple(sorted(parse_amount(part) for part in parts))
    if sum(rows) + prize_game != total:
        raise PrizeTableError(
            f"breakdown of {name!r} adds up to {sum(rows) + prize_game!r} pence, not {total!r}"
        )
    return Breakdown(total, rows, prize_game)


def parse_tsv(text: str) -> tuple[Tier, ...]:
    """Read the prize table TSV text into tiers, checking names, odds and breakdowns."""
    lines = text.splitlines()
    if not lines or tuple(lines[0].split("\t")) != TSV_HEADER:
        head = lines[0] if lines else ""
        expected = "\t".join(TSV_HEADER)
        raise PrizeTableError(f"prize table header is {head!r}, expected {expected!r}")
    tiers: list[Tier] = []
    by_name: dict[str, int] = {}
    by_breakdown: dict[tuple[tuple[Pence, ...], Pence], int] = {}
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(TSV_HEADER):
            raise PrizeTableError(f"line {number}: expected 2 tab-separated fields, got {line!r}")
        name, odds_text = fields
        if not odds_text.isascii() or not odds_text.isdigit() or int(odds_text) < 1:
            raise PrizeTableError(
                f"line {number}: printed odds {odds_text!r} is not a positive int"
            )
        try:
            breakdown = parse_name(name)
        except PrizeTableError as error:
            raise PrizeTableError(f"line {number}: {error}") from None
        key = (breakdown.rows, breakdown.prize_game)
        if name in by_name:
            raise PrizeTableError(f"line {number}: tier name {name!r} appears twice")
        if key in by_breakdown:
            other = tiers[by_breakdown[key]].name
            raise PrizeTableError(f"line {number}: {name!r} has the same breakdown as {other!r}")
        if tiers and breakdown.prize_pence < tiers[-1].prize_pence:
            raise PrizeTableError(f"line {number}: {name!r} is out of ascending prize order")
        index = len(tiers)
        by_name[name] = index
        by_breakdown[key] = index
        tiers.append(
            Tier(
                index=index,
                name=name,
                prize_pence=breakdown.prize_pence,
                printed_odds=int(odds_text),
                rows=breakdown.rows,
                prize_game=breakdown.prize_game,
            )
        )
    if not tiers:
        raise PrizeTableError("prize table has no tiers")
    return tuple(tiers)


@cache
def load_tiers() -> tuple[Tier, ...]:
    """The 99 published prize tiers in printed order."""
    text = resources.files("colour_collector.game.data").joinpath(TSV_NAME).read_text("utf-8")
    return parse_tsv(text)


@cache
def _by_name() -> Mapping[str, Tier]:
    return {tier.name: tier for tier in load_tiers()}


@cache
def _by_breakdown() -> Mapping[tuple[tuple[Pence, ...], Pence], Tier]:
    return {(tier.rows, tier.prize_game): tier for tier in load_tiers()}


def tier_by_name(name: str) -> Tier:
    """The tier printed as ``name``."""
    try:
        return _by_name()[name]
    except KeyError:
        raise UnknownTierError(f"no prize tier is named {name!r}") from None


def tier_for_breakdown(rows: tuple[Pence, ...], prize_game: Pence) -> Tier | None:
    """The tier won by completing ``rows`` (any order) plus ``prize_game``; None if none is."""
    return _by_breakdown().get((tuple(sorted(rows)), prize_game))
