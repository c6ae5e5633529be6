"""Request and response bodies of the operator console's API."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import Field, StrictBool, StringConstraints

from colour_collector.game.control_bands import Band
from colour_collector.server.protection_schemas import DepositLimitResponse, ExclusionResponse
from colour_collector.server.schemas import MovementResponse, Request, Response, Text
from colour_collector.service.monitoring import Figures, GameState, PoolLeft
from colour_collector.service.play_models import PlayStatus
from colour_collector.service.player_lookup import PlayerFile
from colour_collector.service.protection_models import (
    AuditCheck,
    LimitPeriod,
    Operator,
    OperatorRole,
    SalesState,
)


class OperatorLoginRequest(Request):
    """``POST /api/operator/login``."""

    name: Annotated[Text, StringConstraints(min_length=1, max_length=64)]
    password: Annotated[Text, StringConstraints(min_length=1, max_length=256)]


class SalesRequest(Request):
    """``POST /api/operator/sales``."""

    on_sale: StrictBool = Field(description="false stops sales, true restarts them.")
    reason: Annotated[Text, StringConstraints(min_length=1, max_length=500)] = Field(
        description="Why (kept in the audit log)."
    )


class LookupRequest(Request):
    """``POST /api/operator/players/lookup``."""

    query: Annotated[Text, StringConstraints(min_length=1, max_length=254)] = Field(
        description="An e-mail address, an account number (12 or #12), or the Play Number of"
        " one of the player's plays (CC-XXX-XXX-XXX)."
    )


class OperatorResponse(Response):
    """An operator."""

    id: int
    name: str
    role: OperatorRole

    @classmethod
    def of(cls, operator: Operator) -> OperatorResponse:
        """Shape a service record."""
        return cls(id=operator.id, name=operator.name, role=operator.role)


class SalesResponse(Response):
    """The sales switch."""

    on_sale: bool
    changed_at: dt.datetime | None
    changed_by: str | None
    reason: str | None

    @classmethod
    def of(cls, state: SalesState) -> SalesResponse:
        """Shape a service record."""
        return cls(
            on_sale=state.on_sale,
            changed_at=state.changed_at,
            changed_by=state.changed_by,
            reason=state.reason,
        )


class BandResponse(Response):
    """A figure against the prize structure, with its 99% control band."""

    observed: float
    expected: float
    low: float
    high: float
    outside: bool = Field(description="Outside the band: an alert.")

    @classmethod
    def of(cls, band: Band) -> BandResponse:
        """Shape a value."""
        return cls(
            observed=band.observed,
            expected=band.expected,
            low=band.low,
            high=band.high,
            outside=band.outside,
        )


class PrizeLineResponse(Response):
    """How often one prize amount was sold."""

    prize_pence: int = Field(description="0: no win.")
    probability: float
    plays: BandResponse = Field(description="Plays with this prize amount.")


class FiguresResponse(Response):
    """Live figures."""

    plays: int
    in_progress: int
    stakes_pence: int = Field(description="Stakes of the plays sold.")
    paid_plays: int = Field(description="Finished plays with a prize.")
    paid_pence: int = Field(description="Prizes credited (those of the finished plays).")
    payout: BandResponse = Field(
        description="The finished plays' prizes over their stakes, against 73.50%."
    )
    prizes: list[PrizeLineResponse] = Field(
        description="Each prize amount's frequency among the finished plays: no figure moves"
        " with the prize of a play in progress."
    )
    alerts: list[str] = Field(description="A sentence for each figure outside its band.")

    @classmethod
    def of(cls, figures: Figures) -> FiguresResponse:
        """Shape a service record."""
        return cls(
            plays=figures.plays,
            in_progress=figures.in_progress,
            stakes_pence=figures.stakes_pence,
            paid_plays=figures.paid_plays,
            paid_pence=figures.paid_pence,
            payout=BandResponse.of(figures.payout),
            prizes=[
                PrizeLineResponse(
                    prize_pence=line.prize_pence,
                    probability=float(line.probability),
                    plays=BandResponse.of(line.band),
                )
                for line in figures.prizes
            ],
            alerts=figures.alerts,
        )


class PoolAmountLeft(Response):
    """Plays left in the pool with one prize amount."""

    prize_pence: int = Field(description="0: no win.")
    remaining: int


class PoolResponse(Response):
    """What is left in the prize pool on sale."""

    size: int
    remaining: int
    by_prize: list[PoolAmountLeft]

    @classmethod
    def of(cls, pool: PoolLeft) -> PoolResponse:
        """Shape a service record."""
        return cls(
            size=pool.size,
            remaining=pool.remaining,
            by_prize=[PoolAmountLeft(prize_pence=a, remaining=n) for a, n in pool.by_prize],
        )


class AuditCheckResponse(Response):
    """A verification of the audit chain."""

    checked_at: dt.datetime
    operator: str | None
    entries: int
    last_hash: str
    intact: bool
    problem: str | None

    @classmethod
    def of(cls, check: AuditCheck) -> AuditCheckResponse:
        """Shape a service record."""
        return cls(
            checked_at=check.checked_at,
            operator=check.operator,
            entries=check.entries,
            last_hash=check.last_hash,
            intact=check.problem is None,
            problem=check.problem,
        )


class GameStateResponse(Response):
    """``GET /api/operator/game``: the console's front page."""

    sales: SalesResponse
    draw_mode: str
    figures: FiguresResponse
    pool: PoolResponse | None = Field(
        description="The prize pool on sale; null with independent draws or none on sale."
    )
    pool_problem: str | None = Field(
        description="Why the pool on sale, or a pool queued after it, cannot be sold from, and"
        " the fix: pools loaded on a server drawing independently, a pool sealed with another"
        " key or built with another version of the game, or on a production server not of the"
        " published structure; null when every pool waiting can be sold."
    )
    last_audit_check: AuditCheckResponse | None

    @classmethod
    def of(cls, state: GameState, draw_mode: str, pool_problem: str | None) -> GameStateResponse:
        """Shape a service record."""
        return cls(
            sales=SalesResponse.of(state.sales),
            draw_mode=draw_mode,
            pool_problem=pool_problem,
            figures=FiguresResponse.of(state.figures),
            pool=None if state.pool is None else PoolResponse.of(state.pool),
            last_audit_check=(
                None
                if state.last_audit_check is None
                else AuditCheckResponse.of(state.last_audit_check)
            ),
        )


class PlayerPlayResponse(Response):
    """A play in a player's file."""

    play_number: str
    status: PlayStatus
    price_pence: int
    prize_pence: int
    purchased_at: dt.datetime
    finished_at: dt.datetime | None
    pool_id: int | None = Field(description="The prize pool it was dealt from (null: drawn).")
    pool_position: int | None = Field(description="Its position in that pool, from 0.")


class PlayerFileResponse(Response):
    """``POST /api/operator/players/lookup``: what the console shows of a player."""

    id: int
    email: str
    date_of_birth: dt.date
    created_at: dt.datetime
    balance_pence: int
    deposit_limits: list[DepositLimitResponse]
    limits_answered: bool
    reality_check_minutes: int
    exclusions: list[ExclusionResponse] = Field(description="Every break taken, latest first.")
    play_count: int
    plays: list[PlayerPlayResponse] = Field(description="Latest plays, newest first.")
    movements: list[MovementResponse] = Field(description="Latest movements, newest first.")

    @classmethod
    def of(cls, found: PlayerFile) -> PlayerFileResponse:
        """Shape a service record."""
        return cls(
            id=found.account.id,
            email=found.account.email,
            date_of_birth=found.account.date_of_birth,
            created_at=found.account.created_at,
            balance_pence=found.balance_pence,
            deposit_limits=[DepositLimitResponse.of(found.limits[p]) for p in LimitPeriod],
            limits_answered=found.settings.limits_answered_at is not None,
            reality_check_minutes=found.settings.reality_check_minutes,
            exclusions=[ExclusionResponse.of(e, found.at) for e in found.exclusions],
            play_count=found.play_count,
            plays=[
                PlayerPlayResponse(
                    play_number=p.play_number,
                    status=p.status,
                    price_pence=p.price_pence,
                    prize_pence=p.prize_pence,
                    purchased_at=p.purchased_at,
                    finished_at=p.finished_at,
                    pool_id=p.pool_id,
                    pool_position=p.pool_position,
                )
                for p in found.plays
            ],
            movements=[MovementResponse.of(m) for m in found.movements],
        )
