"""The wallet: balance and movements, and test deposits in test environments."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, status
from starlette.responses import Response

from colour_collector.server.dependencies import IdempotencyKey, RuntimeDep, SessionToken
from colour_collector.server.problem_schemas import BAD_PARAMETERS, BODY_PROBLEMS, problem_responses
from colour_collector.server.request_bodies import JsonBodyRoute
from colour_collector.server.responses import answer
from colour_collector.server.schemas import (
    InDigits,
    MovementResponse,
    TestDepositRequest,
    TestDepositResponse,
    WalletResponse,
)
from colour_collector.service import wallet
from colour_collector.service.models import LARGEST_ID

router = APIRouter(
    prefix="/api/wallet", tags=["wallet"], responses=BAD_PARAMETERS, route_class=JsonBodyRoute
)

_UNAUTHENTICATED = {401: "Not logged in (`not_authenticated`)."}
_INVALID = {422: "Invalid parameter (`invalid_request`)."}


@router.get(
    "",
    response_model=WalletResponse,
    responses=problem_responses({**_UNAUTHENTICATED, **_INVALID}),
)
def get_wallet(
    runtime: RuntimeDep,
    token: SessionToken = None,
    limit: Annotated[
        int,
        Query(ge=1, le=wallet.MAX_MOVEMENTS_PAGE, description="How many movements."),
        InDigits,
    ] = 20,
) -> Response:
    """Balance (pence) and the latest movements, newest first."""
    found = wallet.statement(runtime.database, token, limit)
    return answer(
        WalletResponse(
            balance_pence=found.balance_pence,
            movements=[MovementResponse.of(row) for row in found.movements],
        )
    )


@router.get(
    "/movements/{movement_id}",
    response_model=MovementResponse,
    responses=problem_responses(
        {**_UNAUTHENTICATED, **_INVALID, 404: "No such movement in this wallet (`not_found`)."}
    ),
)
def get_movement(
    movement_id: Annotated[int, Path(ge=1, le=LARGEST_ID, description="Movement id."), InDigits],
    runtime: RuntimeDep,
    token: SessionToken = None,
) -> Response:
    """One movement of the logged-in player's wallet."""
    return answer(MovementResponse.of(wallet.movement(runtime.database, token, movement_id)))


@router.post(
    "/test-deposit",
    status_code=status.HTTP_201_CREATED,
    response_model=TestDepositResponse,
    summary="TEST ENVIRONMENTS ONLY: add test funds (not real money)",
    responses={
        200: {
            "model": TestDepositResponse,
            "description": "Nothing credited: the deposit an earlier request with the same"
            " Idempotency-Key made.",
        },
        **problem_responses(
            {
                **BODY_PROBLEMS,
                **_UNAUTHENTICATED,
                403: "CSRF check failed (`csrf_failed`), test deposits are disabled on this"
                " server (`test_deposits_disabled`, always so in production), or a time-out"
                " (`timed_out`) or self-exclusion (`self_excluded`) is in force (`until`).",
                409: "Over a deposit limit (`deposit_limit_exceeded`: `limit`,"
                " `deposited_pence`, `resets_at`): test deposits count as deposits.",
                422: "A bad amount or Idempotency-Key, or a key used for another movement"
                " (`invalid_request`).",
            }
        ),
    },
)
def test_deposit(
    body: TestDepositRequest,
    runtime: RuntimeDep,
    idempotency_key: IdempotencyKey,
    token: SessionToken = None,
) -> Response:
    """**Test environments only.** Credits test funds to the wallet: this is not real money
    and there is no payment. Refused with 403 ``test_deposits_disabled`` when the server runs
    with test deposits off (always in production). At most £1,000 (100000 pence) per deposit.
    """
    done = wallet.test_deposit(
        runtime.database,
        token,
        body.amount_pence,
        enabled=runtime.settings.test_deposits,
        max_pence=runtime.settings.max_test_deposit_pence,
        idempotency_key=idempotency_key,
    )
    return answer(
        TestDepositResponse(
            movement=MovementResponse.of(done.movement), balance_pence=done.balance_pence
        ),
        status.HTTP_201_CREATED if done.created else status.HTTP_200_OK,
    )
