"""The operator's live view of the game: whether it is on sale, how it is paying against the
prize structure (payout and the frequency of each prize amount, with 99% control bands and an
alert for each figure outside its band), what is left in the finite pool, and the audit chain's
last verification.

Prize frequencies are shown per prize amount (tiers with the same amount but different
breakdowns are counted together), with the no-win outcome first. With about thirty bands at 99%
an alert now and then is chance; the same figure outside its band as plays accumulate is not.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from colour_collector.game.control_bands import Band, count_band, payout_band
from colour_collector.game.pool import PrizePool
from colour_collector.service.clock import utcnow
from colour_collector.service.models import Pence
from colour_collector.service.operators import operator_in
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory
from colour_collector.service.protection_models import (
    AuditCheck,
    OperatorRole,
    OutcomeFigures,
    SalesState,
)


@dataclass(frozen=True, slots=True)
class PrizeLine:
    """How often plays won one prize amount, against the prize structure."""

    prize_pence: Pence
    """The prize amount (0: no win)."""
    probability: Fraction
    """Its probability in the prize structure."""
    band: Band
    """Plays with this prize amount: observed, expected and the 99% band."""


@dataclass(frozen=True, slots=True)
class Figures:
    """What the game has sold and paid, against the prize structure."""

    plays: int
    """Plays sold."""
    in_progress: int
    """Plays not yet finished."""
    stakes_pence: Pence
    """Stakes of the plays sold."""
    prizes_pence: Pence
    """Prizes of the plays sold (fixed at purchase)."""
    paid_plays: int
    """Finished plays with a prize."""
    paid_pence: Pence
    """Prizes credited."""
    payout: Band
    """Payout so far (prizes over stakes) against 73.50%."""
    prizes: Sequence[PrizeLine]
    """Each prize amount's frequency."""

    @property
    def alerts(self) -> list[str]:
        """A sentence for each figure outside its band."""
        found = []
        if self.payout.outside:
            found.append(
                f"payout {self.payout.observed:.2%} is outside its 99% band"
                f" {self.payout.low:.2%} to {self.payout.high:.2%}"
            )
        for line in self.prizes:
            if line.band.outside:
                what = "no win" if line.prize_pence == 0 else f"prize {line.prize_pence} pence"
                found.append(
                    f"{what}: {line.band.observed:.0f} plays, outside its 99% band"
                    f" {line.band.low:.0f} to {line.band.high:.0f}"
                )
        return found


@dataclass(frozen=True, slots=True)
class PoolLeft:
    """What is left in the finite pool."""

    size: int
    """Plays the pool started with."""
    remaining: int
    """Plays left to sell."""
    by_prize: Sequence[tuple[Pence, int]]
    """Plays left per prize amount (0: no win), ascending."""


@dataclass(frozen=True, slots=True)
class GameState:
    """The console's front page."""

    sales: SalesState
    """The sales switch."""
    figures: Figures
    """Live figures."""
    pool: PoolLeft | None
    """The finite pool, when plays are dealt from it."""
    last_audit_check: AuditCheck | None
    """The audit chain's last verification."""


def figures_of(
    outcomes: Sequence[OutcomeFigures],
    pool: PrizePool,
    price_pence: Pence,
    *,
    in_progress: int = 0,
    paid: tuple[int, Pence] = (0, 0),
) -> Figures:
    """Figures of plays sold with ``outcomes``, against the prize structure of ``pool``."""
    plays = sum(o.plays for o in outcomes)
    prizes = sum(o.prize_pence for o in outcomes)
    by_tier = {o.tier_index: o.plays for o in outcomes}
    amounts: dict[Pence, tuple[Fraction, int]] = {
        0: (Fraction(pool.no_win_count, pool.size), by_tier.get(None, 0))
    }
    for tier, count in zip(pool.tiers, pool.counts, strict=True):
        chance, seen = amounts.get(tier.prize_pence, (Fraction(0), 0))
        amounts[tier.prize_pence] = (
            chance + Fraction(count, pool.size),
            seen + by_tier.get(tier.index, 0),
        )
    lines = [
        PrizeLine(amount, chance, count_band(plays, chance, seen))
        for amount, (chance, seen) in sorted(amounts.items())
    ]
    return Figures(
        plays=plays,
        in_progress=in_progress,
        stakes_pence=plays * price_pence,
        prizes_pence=prizes,
        paid_plays=paid[0],
        paid_pence=paid[1],
        payout=payout_band(
            plays, [(line.probability, line.prize_pence) for line in lines], price_pence, prizes
        ),
        prizes=lines,
    )


def pool_left(uow: UnitOfWork, pool: PrizePool) -> PoolLeft | None:
    """What is left in the finite pool (None when none is stored): the one place the console
    reads the pool, so that another way of keeping pools changes only this function. Reading it
    locks the pool row for the moment of this unit of work, as a deal does."""
    remaining = uow.pool.get_for_update()
    if remaining is None:
        return None
    *tiers, no_win = remaining  # one count per tier, then the plays that win nothing
    by_prize: dict[Pence, int] = {0: no_win}
    for tier, count in zip(pool.tiers, tiers, strict=True):
        by_prize[tier.prize_pence] = by_prize.get(tier.prize_pence, 0) + count
    return PoolLeft(pool.size, sum(remaining), sorted(by_prize.items()))


def game_state(
    factory: UnitOfWorkFactory,
    token: str | None,
    pool: PrizePool,
    price_pence: Pence,
    *,
    now: dt.datetime | None = None,
) -> GameState:
    """The console's front page, for any operator."""
    at = now or utcnow()
    with factory() as uow:
        operator_in(uow, token, OperatorRole.VIEWER, at)
        figures = figures_of(
            uow.figures.by_outcome(),
            pool,
            price_pence,
            in_progress=uow.figures.in_progress(),
            paid=uow.figures.paid(),
        )
        return GameState(
            sales=uow.sales.state(),
            figures=figures,
            pool=pool_left(uow, pool),
            last_audit_check=uow.audit_checks.last(),
        )


def figures_now(factory: UnitOfWorkFactory, pool: PrizePool, price_pence: Pence) -> Figures:
    """The live figures without an operator (for the metrics endpoint)."""
    with factory() as uow:
        return figures_of(
            uow.figures.by_outcome(),
            pool,
            price_pence,
            in_progress=uow.figures.in_progress(),
            paid=uow.figures.paid(),
        )


def pool_left_now(factory: UnitOfWorkFactory, pool: PrizePool) -> PoolLeft | None:
    """What is left in the finite pool, without an operator (for the metrics endpoint)."""
    with factory() as uow:
        return pool_left(uow, pool)
