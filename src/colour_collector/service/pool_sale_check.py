"""The close's check that a pool was sold as its secret deals it.

``pool close`` publishes a pool's secret only when every position from 0 to ``dealt - 1`` is
held by exactly one play, sold with the tier the secret's deal gives that position and paying
that tier's prize, no play holds a position beyond, and as many plays name the pool as were
dealt (none without a position or below 0). The remaining counts the close also
checks would not show a sale steered by someone able to write to the database: set the counts so
that the next purchase gets a chosen prize, then put them back with one play of its real tier
fewer (found by the lab review of 6 December 2026).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from colour_collector.game.money import pounds
from colour_collector.game.pool_deal import outcome_of
from colour_collector.game.prize_table import Tier, load_tiers
from colour_collector.service.errors import PoolRefusedError
from colour_collector.service.pool_models import PoolId, SoldPlay

BATCH = 10_000
"""Plays read at a time."""

ReadSold = Callable[[int, int], Sequence[SoldPlay]]
"""``(after, limit)``: the pool's plays at positions above ``after``, by position."""


def check_sold(pool_id: PoolId, read: ReadSold, dealt: bytes, start: int = 0) -> None:
    """Refuse (``PoolRefusedError``) unless positions ``start .. start + len(dealt) - 1`` are
    each held by one play of the category ``dealt`` gives it (one byte a position)."""
    stop = start + len(dealt)
    position = start
    while position < stop:
        batch = read(position - 1, min(BATCH, stop - position))
        if not batch:
            raise _refused(pool_id, f"no play holds position {position:,}")
        for sold in batch:
            if sold.position != position:
                raise _refused(pool_id, f"no play holds position {position:,}")
            problem = tier_problem(sold, outcome_of(dealt[position - start]))
            if problem is not None:
                raise _refused(
                    pool_id, f"the play at position {position:,} ({sold.play_number}) {problem}"
                )
            position += 1


def tier_problem(sold: SoldPlay, tier: Tier | None) -> str | None:
    """Why ``sold`` is not sold as ``tier`` (its position's, as the secret deals it), or None."""
    if sold.tier_index == _index(tier) and sold.prize_pence == _prize(tier):
        return None
    return f"was sold as {_sold_as(sold)} where the secret deals {_name(tier)}"


def check_none_beyond(pool_id: PoolId, read: ReadSold, dealt: int, naming: int) -> None:
    """Refuse unless no play holds a position at or beyond ``dealt``, and ``naming`` (the plays
    that name the pool, whatever their positions: none, or one below 0) is ``dealt``."""
    beyond = read(dealt - 1, 1)
    if beyond:
        raise _refused(
            pool_id,
            f"play {beyond[0].play_number} holds position {beyond[0].position:,}, but only"
            f" {dealt:,} were dealt",
        )
    if naming != dealt:
        raise _refused(
            pool_id,
            f"{naming:,} plays name the pool, but {dealt:,} were dealt (a play without a"
            " position, or at one below 0)",
        )


def _refused(pool_id: PoolId, why: str) -> PoolRefusedError:
    return PoolRefusedError(
        f"pool {pool_id}'s sale does not follow its secret: {why}; nothing was published"
    )


def _index(tier: Tier | None) -> int | None:
    return None if tier is None else tier.index


def _prize(tier: Tier | None) -> int:
    return 0 if tier is None else tier.prize_pence


def _name(tier: Tier | None) -> str:
    return "no win" if tier is None else f"prize tier {tier.name}"


def _sold_as(sold: SoldPlay) -> str:
    tiers = load_tiers()
    if sold.tier_index is None:
        what = "no win"
    elif 0 <= sold.tier_index < len(tiers):
        what = f"prize tier {tiers[sold.tier_index].name}"
    else:
        what = f"tier index {sold.tier_index}"
    return f"{what} paying {pounds(sold.prize_pence)}"
