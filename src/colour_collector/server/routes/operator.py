"""The operator console's API: log in and out, the game's state and live figures, the sales
switch, player look-up, verifying the audit chain. Every route needs a console session (the
``cc_operator`` cookie) whose role allows it; players' sessions count for nothing here."""

from __future__ import annotations

from dataclasses import replace

from fastapi import APIRouter, status
from starlette.responses import Response

from colour_collector.server.dependencies import (
    OPERATOR_COOKIE,
    ClientAddress,
    OperatorToken,
    RuntimeDep,
)
from colour_collector.server.operator_schemas import (
    AuditCheckResponse,
    GameStateResponse,
    LookupRequest,
    OperatorLoginRequest,
    OperatorResponse,
    PlayerFileResponse,
    SalesRequest,
    SalesResponse,
)
from colour_collector.server.play_schemas import EmptyRequest
from colour_collector.server.problem_schemas import (
    BAD_PARAMETERS,
    BODY_PROBLEMS,
    ENCODED_BODY,
    problem_responses,
)
from colour_collector.server.request_bodies import JsonBodyRoute
from colour_collector.server.responses import answer
from colour_collector.service import (
    audit_checks,
    monitoring,
    operators,
    player_lookup,
    pools,
    sales,
)

router = APIRouter(
    prefix="/api/operator", tags=["operator"], responses=BAD_PARAMETERS, route_class=JsonBodyRoute
)

CONSOLE_PATH = "/"
"""Path of the console cookie: the console page, its tables and the API all need it."""
_AUTH = {401: "No console session (`operator_not_authenticated`)."}
_ROLE = {403: "CSRF check failed (`csrf_failed`), or the role does not allow it"
         " (`operator_forbidden`)."}  # fmt: skip


@router.post(
    "/login",
    response_model=OperatorResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            401: "Wrong name or password (`invalid_credentials`).",
            429: "Too many failed logins (`too_many_attempts`); see Retry-After.",
        }
    ),
)
def login(body: OperatorLoginRequest, runtime: RuntimeDep, client: ClientAddress) -> Response:
    """Log in to the console; sets the HttpOnly, SameSite=Strict ``cc_operator`` cookie."""
    policy = runtime.operators
    done = operators.login(
        runtime.database, policy, name=body.name, password=body.password, client=client
    )
    response = answer(OperatorResponse.of(done.operator))
    response.set_cookie(
        OPERATOR_COOKIE,
        done.token,
        max_age=int(policy.session_lifetime.total_seconds()),
        path=CONSOLE_PATH,
        httponly=True,
        samesite="strict",
        secure=runtime.settings.cookies_secure,
    )
    return response


@router.post(
    "/logout",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=problem_responses(
        {
            403: BODY_PROBLEMS[403],
            413: BODY_PROBLEMS[413],
            415: ENCODED_BODY,
            422: "A bad cookie (`invalid_request`).",
        }
    ),
)
def logout(runtime: RuntimeDep, token: OperatorToken = None) -> Response:
    """End the console session (idempotent) and clear its cookie."""
    operators.logout(runtime.database, token)
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    response.delete_cookie(
        OPERATOR_COOKIE,
        path=CONSOLE_PATH,
        httponly=True,
        samesite="strict",
        secure=runtime.settings.cookies_secure,
    )
    return response


@router.get("/me", response_model=OperatorResponse, responses=problem_responses(_AUTH))
def me(runtime: RuntimeDep, token: OperatorToken = None) -> Response:
    """The logged-in operator and their role."""
    return answer(OperatorResponse.of(operators.current(runtime.database, token)))


@router.get("/game", response_model=GameStateResponse, responses=problem_responses(_AUTH))
def game(runtime: RuntimeDep, token: OperatorToken = None) -> Response:
    """The game's state: the sales switch, live payout and prize frequencies against the prize
    structure with 99% control bands and alerts, the plays left in the prize pool on sale, the audit
    chain's last verification. Any role."""
    found = monitoring.game_state(runtime.database, token, runtime.pool, runtime.plays.price_pence)
    if runtime.sale is None:
        found = replace(found, pool=None)  # nothing is sold from the pools loaded
    problem = pools.sale_problem(runtime.database, runtime.sale)
    return answer(GameStateResponse.of(found, runtime.settings.draw_mode.value, problem))


@router.post(
    "/sales",
    response_model=SalesResponse,
    responses=problem_responses({**BODY_PROBLEMS, **_AUTH, **_ROLE}),
)
def switch_sales(body: SalesRequest, runtime: RuntimeDep, token: OperatorToken = None) -> Response:
    """Stop (``on_sale: false``) or restart sales, saying why (managers). Plays in progress
    still finish and pay. Audited."""
    done = sales.switch(runtime.database, token, on_sale=body.on_sale, reason=body.reason)
    return answer(SalesResponse.of(done))


@router.post(
    "/players/lookup",
    response_model=PlayerFileResponse,
    responses=problem_responses(
        {**BODY_PROBLEMS, **_AUTH, **_ROLE, 404: "No such player (`not_found`)."}
    ),
)
def look_up_player(
    body: LookupRequest, runtime: RuntimeDep, token: OperatorToken = None
) -> Response:
    """A player's account, balance, limits, exclusions, latest plays and movements, by e-mail
    or account number or the Play Number of one of their plays (support and managers).
    Audited."""
    return answer(PlayerFileResponse.of(player_lookup.look_up(runtime.database, token, body.query)))


@router.post(
    "/audit/verify",
    response_model=AuditCheckResponse,
    responses=problem_responses({**BODY_PROBLEMS, **_AUTH, **_ROLE}),
)
def verify_audit(body: EmptyRequest, runtime: RuntimeDep, token: OperatorToken = None) -> Response:
    """Recompute every hash of the audit chain now and keep the result (managers). Audited."""
    return answer(AuditCheckResponse.of(audit_checks.verify(runtime.database, token)))
