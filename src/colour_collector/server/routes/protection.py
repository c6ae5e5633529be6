"""Player protection: deposit limits, time-outs, self-exclusion, reality checks, and the
activity that keeps a session alive."""

from __future__ import annotations

from fastapi import APIRouter, status
from starlette.responses import Response

from colour_collector.server.dependencies import RuntimeDep, SessionToken
from colour_collector.server.play_schemas import EmptyRequest
from colour_collector.server.problem_schemas import BAD_PARAMETERS, BODY_PROBLEMS, problem_responses
from colour_collector.server.protection_schemas import (
    ActivityResponse,
    DepositLimitsRequest,
    ProtectionResponse,
    RealityCheckIntervalRequest,
    RealityCheckResponse,
    SelfExclusionRequest,
    SelfExclusionReturnRequest,
    TimeOutRequest,
)
from colour_collector.server.request_bodies import JsonBodyRoute
from colour_collector.server.responses import answer
from colour_collector.service import exclusions, inactivity, limits, protection, reality_checks
from colour_collector.service.clock import utcnow
from colour_collector.service.protection_models import ExclusionKind, LimitPeriod

router = APIRouter(
    prefix="/api", tags=["protection"], responses=BAD_PARAMETERS, route_class=JsonBodyRoute
)

_AUTH = {401: "Not logged in (`not_authenticated`)."}


@router.get("/protection", response_model=ProtectionResponse, responses=problem_responses(_AUTH))
def get_protection(runtime: RuntimeDep, token: SessionToken = None) -> Response:
    """Your deposit limits (with what you deposited in each window and any change waiting),
    whether you have answered the deposit limit question, a time-out or self-exclusion in force,
    and your reality check interval."""
    return answer(ProtectionResponse.of(protection.overview(runtime.database, token)))


@router.post(
    "/protection/deposit-limits",
    response_model=ProtectionResponse,
    responses=problem_responses({**BODY_PROBLEMS, **_AUTH}),
)
def set_deposit_limits(
    body: DepositLimitsRequest, runtime: RuntimeDep, token: SessionToken = None
) -> Response:
    """Set the daily, weekly and monthly limits (null: none). A lower limit, or one where there
    was none, applies at once; a higher one or a removal waits: confirm it 24 hours later."""
    found = limits.set_limits(
        runtime.database,
        token,
        {
            LimitPeriod.DAILY: body.daily_pence,
            LimitPeriod.WEEKLY: body.weekly_pence,
            LimitPeriod.MONTHLY: body.monthly_pence,
        },
    )
    return answer(ProtectionResponse.of(found))


@router.post(
    "/protection/deposit-limits/decline",
    response_model=ProtectionResponse,
    responses=problem_responses({**BODY_PROBLEMS, **_AUTH}),
)
def decline_deposit_limits(
    body: EmptyRequest, runtime: RuntimeDep, token: SessionToken = None
) -> Response:
    """Answer the deposit limit question without setting a limit (you may set one later)."""
    return answer(ProtectionResponse.of(limits.decline(runtime.database, token)))


@router.post(
    "/protection/deposit-limits/{period}/confirm",
    response_model=ProtectionResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            **_AUTH,
            409: "Nothing to confirm (`no_pending_limit_change`), or the 24 hours have not"
            " passed (`limit_change_not_due`, with `confirmable_at`).",
        }
    ),
)
def confirm_deposit_limit(
    period: LimitPeriod, body: EmptyRequest, runtime: RuntimeDep, token: SessionToken = None
) -> Response:
    """Confirm a waiting increase or removal of the period's limit, 24 hours or more after it
    was asked for: it then applies."""
    return answer(ProtectionResponse.of(limits.confirm_change(runtime.database, token, period)))


@router.post(
    "/protection/time-out",
    status_code=status.HTTP_201_CREATED,
    response_model=ProtectionResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            **_AUTH,
            422: "Not 1 to 42 days, or not confirmed (`confirmation_required`).",
        }
    ),
)
def take_time_out(
    body: TimeOutRequest, runtime: RuntimeDep, token: SessionToken = None
) -> Response:
    """Take a time-out of 1 to 42 days, at once: no plays or deposits until it ends (a play in
    progress may be finished; withdrawals stay open). It cannot be lifted early."""
    found = exclusions.take(
        runtime.database, token, ExclusionKind.TIME_OUT, body.days, confirm=body.confirm
    )
    return answer(ProtectionResponse.of(found), status.HTTP_201_CREATED)


@router.post(
    "/protection/self-exclusion",
    status_code=status.HTTP_201_CREATED,
    response_model=ProtectionResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            **_AUTH,
            422: "Not 6 to 60 months, or not confirmed (`confirmation_required`).",
        }
    ),
)
def self_exclude(
    body: SelfExclusionRequest, runtime: RuntimeDep, token: SessionToken = None
) -> Response:
    """Exclude yourself for 6 to 60 months, at once: no plays or deposits until it ends (a play
    in progress may be finished; withdrawals stay open). It cannot be lifted early."""
    found = exclusions.take(
        runtime.database, token, ExclusionKind.SELF_EXCLUSION, body.months, confirm=body.confirm
    )
    return answer(ProtectionResponse.of(found), status.HTTP_201_CREATED)


@router.post(
    "/protection/self-exclusion/return",
    response_model=ProtectionResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            **_AUTH,
            409: "No self-exclusion has ended (`return_not_allowed`): none was taken, or its"
            " term still runs.",
            422: "Not confirmed (`confirmation_required`).",
        }
    ),
)
def return_after_self_exclusion(
    body: SelfExclusionReturnRequest, runtime: RuntimeDep, token: SessionToken = None
) -> Response:
    """Ask to play again once your self-exclusion has ended: until you do it stays in place,
    and plays and deposits open 24 hours after you ask. Asking again changes nothing."""
    found = exclusions.ask_to_return(runtime.database, token, confirm=body.confirm)
    return answer(ProtectionResponse.of(found))


@router.get(
    "/protection/reality-check",
    response_model=RealityCheckResponse,
    responses=problem_responses(_AUTH),
)
def get_reality_check(runtime: RuntimeDep, token: SessionToken = None) -> Response:
    """This session's reality check: the interval, when it is due, time played and net
    position."""
    now = utcnow()
    return answer(
        RealityCheckResponse.of(reality_checks.look(runtime.database, token, now=now), now)
    )


@router.post(
    "/protection/reality-check/continue",
    response_model=RealityCheckResponse,
    responses=problem_responses({**BODY_PROBLEMS, **_AUTH}),
)
def continue_after_reality_check(
    body: EmptyRequest, runtime: RuntimeDep, token: SessionToken = None
) -> Response:
    """You saw the reality check and continue: the next is an interval from now."""
    now = utcnow()
    done = reality_checks.continue_playing(runtime.database, token, now=now)
    return answer(RealityCheckResponse.of(done, now))


@router.post(
    "/protection/reality-check/interval",
    response_model=RealityCheckResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            **_AUTH,
            409: "A reality check is due (`reality_check_due`): see it (continue) before choosing"
            " an interval that would put it off; nothing is written.",
        }
    ),
)
def set_reality_check_interval(
    body: RealityCheckIntervalRequest, runtime: RuntimeDep, token: SessionToken = None
) -> Response:
    """Choose the minutes of play between reality checks (10 to 240; 60 until you choose)."""
    now = utcnow()
    done = reality_checks.set_interval(runtime.database, token, body.interval_minutes, now=now)
    return answer(RealityCheckResponse.of(done, now))


@router.post(
    "/session/activity",
    response_model=ActivityResponse,
    responses=problem_responses({**BODY_PROBLEMS, **_AUTH}),
)
def report_activity(
    body: EmptyRequest, runtime: RuntimeDep, token: SessionToken = None
) -> Response:
    """The player is active (the client sends this on a click or a key, at most once a
    minute): the session now ends 30 minutes from now, or at its 12 hours, whichever is first.
    A session idle for 30 minutes has ended: 401."""
    now = utcnow()
    session = inactivity.keep_alive(runtime.database, token, runtime.accounts, now=now)
    return answer(ActivityResponse.of(session, runtime.accounts, now))
