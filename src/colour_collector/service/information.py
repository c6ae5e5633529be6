"""What anyone may read before buying, without an account: the prize table with the odds of
each prize, the overall odds, the payout percentage and the Game Procedures. Every figure comes
from the prize structure itself (``game.pool``), computed exactly and printed as published."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib import resources

from colour_collector.game.pool import PrizePool, round_2dp
from colour_collector.game.prize_table import Tier

PROCEDURES_NAME = "procedures.txt"
"""The Game Procedures' text inside ``colour_collector.game.data``."""


@dataclass(frozen=True, slots=True)
class GameInformation:
    """The published figures and text."""

    price_pence: int
    """The price of a play."""
    overall_odds: str
    """'1 in 2.77'."""
    payout_percent: str
    """'73.50%'."""
    prizes: tuple[Tier, ...]
    """The prize table, as printed."""
    procedures: str
    """The Game Procedures."""


def two_places(value: Fraction) -> str:
    """``value`` printed with two decimal places, halves up: ``Fraction(277, 100)`` as
    ``'2.77'``."""
    hundredths = int(round_2dp(value) * 100)
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def percent(value: Fraction) -> str:
    """``Fraction(147, 200)`` as ``'73.50%'``."""
    return two_places(value * 100) + "%"


@cache
def procedures() -> str:
    """The Game Procedures as published."""
    return (
        resources.files("colour_collector.game.data").joinpath(PROCEDURES_NAME).read_text("utf-8")
    )


def information(pool: PrizePool, price_pence: int) -> GameInformation:
    """The figures of ``pool``'s prize structure, and the Game Procedures."""
    return GameInformation(
        price_pence=price_pence,
        overall_odds=f"1 in {two_places(pool.overall_odds)}",
        payout_percent=percent(pool.payout),
        prizes=pool.tiers,
        procedures=procedures(),
    )
