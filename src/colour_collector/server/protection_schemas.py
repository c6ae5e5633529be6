"""Request and response bodies of player protection, payments and the public game information."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StrictBool, StrictInt, ValidationInfo

from colour_collector.server.schemas import (
    EXPIRES_IN,
    EXTENDABLE,
    Request,
    Response,
    seconds_until,
)
from colour_collector.service.accounts import AccountPolicy
from colour_collector.service.deposits import PaymentMade
from colour_collector.service.exclusions import SELF_EXCLUSION_MONTHS, TIME_OUT_DAYS
from colour_collector.service.limits import MAX_LIMIT_PENCE, check_amount
from colour_collector.service.models import Session
from colour_collector.service.payments import MAX_PAYMENT_PENCE
from colour_collector.service.protection import LimitStanding, Protection
from colour_collector.service.protection_models import (
    Exclusion,
    ExclusionKind,
    LimitPeriod,
    PaymentKind,
)
from colour_collector.service.reality_checks import INTERVAL_MINUTES, RealityCheck


def _limit_in_range(value: int | None, info: ValidationInfo) -> int | None:
    # The service's own check, in its words, here too: pydantic then reports a limit out of
    # range together with the other fields' errors, not after them.
    period = LimitPeriod(str(info.field_name).removesuffix("_pence"))
    return check_amount(period, value)


LimitAmount = Annotated[StrictInt | None, AfterValidator(_limit_in_range)]


def _between(bounds: tuple[int, int]) -> dict[str, Any]:
    """The range the service enforces, stated in the OpenAPI schema. The service checks it, so
    that its answer says the rule in the player's words, for every caller."""
    return {"minimum": bounds[0], "maximum": bounds[1]}


_LIMIT = _between((1, MAX_LIMIT_PENCE))


class DepositLimitsRequest(Request):
    """``POST /api/protection/deposit-limits``: every period, null for no limit."""

    daily_pence: LimitAmount = Field(
        description=f"Limit over any 24 hours, 1 to {MAX_LIMIT_PENCE} pence, or null.",
        json_schema_extra=_LIMIT,
    )
    weekly_pence: LimitAmount = Field(
        description=f"Limit over any 7 days, 1 to {MAX_LIMIT_PENCE} pence, or null.",
        json_schema_extra=_LIMIT,
    )
    monthly_pence: LimitAmount = Field(
        description=f"Limit over any 30 days, 1 to {MAX_LIMIT_PENCE} pence, or null.",
        json_schema_extra=_LIMIT,
    )


class TimeOutRequest(Request):
    """``POST /api/protection/time-out``."""

    days: StrictInt = Field(
        description="1 to 42 days (24 hours to 6 weeks).", json_schema_extra=_between(TIME_OUT_DAYS)
    )
    confirm: StrictBool = Field(description="Must be true: a time-out cannot be undone.")


class SelfExclusionRequest(Request):
    """``POST /api/protection/self-exclusion``."""

    months: StrictInt = Field(
        description="6 to 60 months (6 months to 5 years).",
        json_schema_extra=_between(SELF_EXCLUSION_MONTHS),
    )
    confirm: StrictBool = Field(description="Must be true: a self-exclusion cannot be undone.")


class SelfExclusionReturnRequest(Request):
    """``POST /api/protection/self-exclusion/return``."""

    confirm: StrictBool = Field(
        description="Must be true: plays and deposits open again 24 hours later."
    )


class RealityCheckIntervalRequest(Request):
    """``POST /api/protection/reality-check/interval``."""

    interval_minutes: StrictInt = Field(
        description=f"Minutes of play between reality checks, {INTERVAL_MINUTES[0]} to"
        f" {INTERVAL_MINUTES[1]}.",
        json_schema_extra=_between(INTERVAL_MINUTES),
    )


class PaymentRequest(Request):
    """``POST /api/wallet/deposits`` and ``/api/wallet/withdrawals``."""

    amount_pence: StrictInt = Field(
        gt=0, le=MAX_PAYMENT_PENCE, description=f"1 to {MAX_PAYMENT_PENCE} pence (£10,000)."
    )


class DepositLimitResponse(Response):
    """One period's deposit limit."""

    period: LimitPeriod
    amount_pence: int | None = Field(description="The limit in force; null: no limit.")
    deposited_pence: int = Field(description="Deposits in the window ending now (gross).")
    remaining_pence: int | None = Field(description="What may still be deposited; null: any.")
    pending: bool = Field(description="An increase or removal waits for confirmation.")
    requested_pence: int | None = Field(
        description="The limit asked for (null with pending: removal)."
    )
    confirmable_at: dt.datetime | None = Field(
        description="When the waiting change may be confirmed (24 hours after it was asked)."
    )

    @classmethod
    def of(cls, standing: LimitStanding) -> DepositLimitResponse:
        """Shape a service record."""
        limit = standing.limit
        remaining = (
            None
            if limit.amount_pence is None
            else max(0, limit.amount_pence - standing.deposited_pence)
        )
        return cls(
            period=limit.period,
            amount_pence=limit.amount_pence,
            deposited_pence=standing.deposited_pence,
            remaining_pence=remaining,
            pending=limit.pending,
            requested_pence=limit.requested_pence,
            confirmable_at=limit.confirmable_at,
        )


class ExclusionResponse(Response):
    """A time-out or self-exclusion."""

    kind: ExclusionKind
    starts_at: dt.datetime
    ends_at: dt.datetime = Field(description="The end of its term: it cannot be lifted before.")
    ended: bool = Field(
        description="Its term is over: a self-exclusion then stays in place until the player"
        " asks to play again (`POST /api/protection/self-exclusion/return`) and 24 hours after."
    )
    returns_at: dt.datetime | None = Field(
        description="When plays and deposits open again: a time-out's end; for a"
        " self-exclusion, 24 hours after the player asked to play again once it had ended"
        " (null until they have)."
    )

    @classmethod
    def of(cls, exclusion: Exclusion, now: dt.datetime) -> ExclusionResponse:
        """Shape a service record."""
        return cls(
            kind=exclusion.kind,
            starts_at=exclusion.starts_at,
            ends_at=exclusion.ends_at,
            ended=exclusion.ended(now),
            returns_at=exclusion.returns_at,
        )


class ProtectionResponse(Response):
    """``GET /api/protection``: the player's protection now."""

    deposit_limits: list[DepositLimitResponse] = Field(description="Daily, weekly, monthly.")
    limits_answered: bool = Field(
        description="The player has set a limit or declined to (asked before the first deposit)."
    )
    exclusion: ExclusionResponse | None = Field(
        description="The time-out or self-exclusion in force: no purchases or deposits."
    )
    reality_check_minutes: int
    now: dt.datetime = Field(description="The server's time of this answer.")

    @classmethod
    def of(cls, found: Protection) -> ProtectionResponse:
        """Shape a service record."""
        return cls(
            deposit_limits=[DepositLimitResponse.of(found.limits[p]) for p in LimitPeriod],
            limits_answered=found.limits_answered,
            exclusion=(
                None
                if found.exclusion is None
                else ExclusionResponse.of(found.exclusion, found.now)
            ),
            reality_check_minutes=found.reality_check_minutes,
            now=found.now,
        )


class RealityCheckResponse(Response):
    """``GET /api/protection/reality-check``: this login session's reality check."""

    interval_minutes: int
    started_at: dt.datetime = Field(description="When this login session started.")
    due_at: dt.datetime = Field(description="When the next check is (or was) due.")
    due: bool = Field(description="A purchase now would be paused for the check.")
    played_seconds: int = Field(description="Time played in this session.")
    staked_pence: int
    won_pence: int
    net_pence: int = Field(description="Prizes minus stakes in this session.")

    @classmethod
    def of(cls, check: RealityCheck, now: dt.datetime) -> RealityCheckResponse:
        """Shape a service record."""
        return cls(
            interval_minutes=check.interval_minutes,
            started_at=check.started_at,
            due_at=check.due_at,
            due=check.due(now),
            played_seconds=check.played_seconds,
            staked_pence=check.staked_pence,
            won_pence=check.won_pence,
            net_pence=check.net_pence,
        )


class ActivityResponse(Response):
    """``POST /api/session/activity``."""

    expires_at: dt.datetime = Field(description="When the session ends unless active again.")
    expires_in_seconds: int = Field(ge=0, description=EXPIRES_IN)
    extendable: bool = Field(description=EXTENDABLE)

    @classmethod
    def of(cls, session: Session, policy: AccountPolicy, now: dt.datetime) -> ActivityResponse:
        """Shape a service record, as of ``now``."""
        return cls(
            expires_at=session.expires_at,
            expires_in_seconds=seconds_until(session.expires_at, now),
            extendable=policy.extendable(session.created_at, session.expires_at),
        )


class PaymentResponse(Response):
    """A deposit or withdrawal through the payment provider."""

    id: int
    kind: PaymentKind
    amount_pence: int
    provider_reference: str
    created_at: dt.datetime
    balance_pence: int = Field(description="The wallet balance after the request.")

    @classmethod
    def of(cls, made: PaymentMade) -> PaymentResponse:
        """Shape a service record."""
        payment = made.payment
        return cls(
            id=payment.id,
            kind=payment.kind,
            amount_pence=payment.amount_pence,
            provider_reference=payment.provider_reference,
            created_at=payment.created_at,
            balance_pence=made.balance_pence,
        )


class PrizeInformation(Response):
    """One line of the published prize table."""

    name: str = Field(description="The tier as printed, e.g. '£15 (£5 + £10 Prize Game)'.")
    prize_pence: int
    odds: int = Field(description="Approx. odds, 1 in this.")


class GameInformationResponse(Response):
    """``GET /api/game/information``: what a player may read before buying."""

    name: Literal["Colour Collector"] = "Colour Collector"
    price_pence: int
    overall_odds: str = Field(description="'1 in 2.77'.")
    payout_percent: str = Field(description="'73.50%'.")
    prizes: list[PrizeInformation]
    procedures: str = Field(description="The Game Procedures, as published (plain text).")
