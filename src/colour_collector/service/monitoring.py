"""The operator's live view of the game: whether it is on sale, how it is paying against the
prize structure (payout and the frequency of each prize amount, with 99% control bands and an
alert for each figure outside its band), what is left in the prize pool on sale, and the audit
chain's last verification.

No figure here moves with the prize of a play not finished yet: every role may see this page,
and a figure that moved at a purchase by its prize would tell an operator the prize before the
player has seen it (decision 0151). So the payout and the prize frequencies are those of the
finished plays, and a prize of the pool on sale counts as left until its play is finished.

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
from colour_collector.game.money import pounds
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
    paid_plays: int
    """Finished plays with a prize."""
    paid_pence: Pence
    """Prizes credited (those of the finished plays)."""
    payout: Band
    """Payout of the finished plays (prizes credited over their stakes) against 73.50%."""
    prizes: Sequence[PrizeLine]
    """Each prize amount's frequency among the finished plays."""

    @property
    def finished(self) -> int:
        """Plays finished."""
        return self.plays - self.in_progress

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
                what = "no win" if line.prize_pence == 0 else f"prize {pounds(line.prize_pence)}"
                plays = f"{line.band.observed:.0f} play{'' if line.band.observed == 1 else 's'}"
                found.append(
                    f"{what}: {plays}, outside its 99% band"
                    f" {line.band.low:.0f} to {line.band.high:.0f}"
                )
        return found


@dataclass(frozen=True, slots=True)
class PoolLeft:
    """What is left in the prize pool on sale."""

    size: int
    """Plays the pool started with."""
    remaining: int
    """Plays left to sell."""
    by_prize: Sequence[tuple[Pence, int]]
    """Prizes not won yet per prize amount (0: no win), ascending: the plays left to sell and
    the plays sold from the pool but not finished."""


@dataclass(frozen=True, slots=True)
class GameState:
    """The console's front page."""

    sales: SalesState
    """The sales switch."""
    figures: Figures
    """Live figures."""
    pool: PoolLeft | None
    """The prize pool on sale, when plays are dealt from pools."""
    last_audit_check: AuditCheck | None
    """The audit chain's last verification."""


def figures_of(
    finished: Sequence[OutcomeFigures],
    pool: PrizePool,
    price_pence: Pence,
    *,
    in_progress: int = 0,
) -> Figures:
    """Figures of the ``finished`` plays, by outcome, and ``in_progress`` more sold, against the
    prize structure of ``pool``."""
    done = sum(o.plays for o in finished)
    paid = sum(o.prize_pence for o in finished)
    by_tier = {o.tier_index: o.plays for o in finished}
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
        PrizeLine(amount, chance, count_band(done, chance, seen))
        for amount, (chance, seen) in sorted(amounts.items())
    ]
    return Figures(
        plays=done + in_progress,
        in_progress=in_progress,
        stakes_pence=(done + in_progress) * price_pence,
        paid_plays=done - by_tier.get(None, 0),
        paid_pence=paid,
        payout=payout_band(
            done, [(line.probability, line.prize_pence) for line in lines], price_pence, paid
        ),
        prizes=lines,
    )


def pool_left(uow: UnitOfWork, pool: PrizePool) -> PoolLeft | None:
    """What is left in the prize pool on sale (None when none is): the one place the console
    reads the pools. A prize sold counts as left until its play is finished."""
    on_sale = uow.pools.on_sale()
    if on_sale is None:
        return None
    *tiers, no_win = on_sale.remaining  # one count per tier, then the plays that win nothing
    mine = {
        t: n for (pool_id, t), n in uow.plays.unfinished_plays().items() if pool_id == on_sale.id
    }
    unfinished = {tier: count for tier, count in mine.items() if tier is not None}
    by_prize: dict[Pence, int] = {0: no_win + mine.get(None, 0)}
    for tier, count in zip(pool.tiers, tiers, strict=True):
        left = count + unfinished.get(tier.index, 0)
        by_prize[tier.prize_pence] = by_prize.get(tier.prize_pence, 0) + left
    return PoolLeft(on_sale.size, sum(on_sale.remaining), sorted(by_prize.items()))


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
            uow.figures.finished_by_outcome(),
            pool,
            price_pence,
            in_progress=uow.figures.in_progress(),
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
            uow.figures.finished_by_outcome(),
            pool,
            price_pence,
            in_progress=uow.figures.in_progress(),
        )


def pool_left_now(factory: UnitOfWorkFactory, pool: PrizePool) -> PoolLeft | None:
    """What is left in the prize pool on sale, without an operator (for the metrics endpoint)."""
    with factory() as uow:
        return pool_left(uow, pool)
