"""Deposits and withdrawals through the payment provider, each with an Idempotency-Key."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, status
from starlette.responses import Response

from colour_collector.server.dependencies import PaymentKey, RuntimeDep, SessionToken
from colour_collector.server.problem_schemas import BAD_PARAMETERS, BODY_PROBLEMS, problem_responses
from colour_collector.server.protection_schemas import PaymentRequest, PaymentResponse
from colour_collector.server.request_bodies import JsonBodyRoute
from colour_collector.server.responses import answer
from colour_collector.service import deposits, withdrawals

router = APIRouter(
    prefix="/api/wallet", tags=["wallet"], responses=BAD_PARAMETERS, route_class=JsonBodyRoute
)

_REPEAT: dict[int | str, dict[str, Any]] = {
    200: {
        "model": PaymentResponse,
        "description": "Nothing moved: the payment an earlier request with this Idempotency-Key"
        " made.",
    }
}
_COMMON = {
    **BODY_PROBLEMS,
    401: "Not logged in (`not_authenticated`).",
    402: "The payment provider declined (`payment_declined`); nothing moved.",
    422: "A bad amount, no Idempotency-Key, or a key an earlier payment of another amount used"
    " (`invalid_request`).",
    503: "No payment provider on this server (`payments_unavailable`).",
}


@router.post(
    "/deposits",
    status_code=status.HTTP_201_CREATED,
    response_model=PaymentResponse,
    responses={
        **_REPEAT,
        **problem_responses(
            {
                **_COMMON,
                403: "CSRF check failed (`csrf_failed`); or a time-out (`timed_out`) or"
                " self-exclusion (`self_excluded`) is in force (`until`).",
                409: "Over a deposit limit (`deposit_limit_exceeded`: `limit`, `deposited_pence`,"
                " `resets_at`), or the deposit limit question is not answered yet"
                " (`deposit_limits_unanswered`).",
            }
        ),
    },
)
def deposit(
    body: PaymentRequest,
    runtime: RuntimeDep,
    idempotency_key: PaymentKey,
    token: SessionToken = None,
) -> Response:
    """Deposit through the payment provider (the simulated one outside production). Needs an
    Idempotency-Key: the same key answers the same deposit (200) and takes no more money."""
    made = deposits.deposit(
        runtime.database,
        token,
        body.amount_pence,
        idempotency_key=idempotency_key,
        provider=runtime.payment_provider,
    )
    return answer(
        PaymentResponse.of(made),
        status.HTTP_201_CREATED if made.created else status.HTTP_200_OK,
    )


@router.post(
    "/withdrawals",
    status_code=status.HTTP_201_CREATED,
    response_model=PaymentResponse,
    responses={
        **_REPEAT,
        **problem_responses(
            {**_COMMON, 409: "More than the balance (`insufficient_funds`, `balance_pence`)."}
        ),
    },
)
def withdraw(
    body: PaymentRequest,
    runtime: RuntimeDep,
    idempotency_key: PaymentKey,
    token: SessionToken = None,
) -> Response:
    """Withdraw from the balance through the payment provider; allowed during a time-out or
    self-exclusion. Needs an Idempotency-Key: the same key answers the same withdrawal."""
    made = withdrawals.withdraw(
        runtime.database,
        token,
        body.amount_pence,
        idempotency_key=idempotency_key,
        provider=runtime.payment_provider,
    )
    return answer(
        PaymentResponse.of(made),
        status.HTTP_201_CREATED if made.created else status.HTTP_200_OK,
    )
