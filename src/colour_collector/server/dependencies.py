"""FastAPI dependencies and parameters as ``Annotated`` aliases: routes declare what they need.

``RuntimeDep`` is the one dependency most routes take: what every route shares, built once per
app (``server.runtime``). It only reads the request (no I/O), so it is ``async def``: FastAPI
runs it on the event loop instead of sending it to a worker thread. The routes themselves are
plain ``def`` functions that FastAPI runs in AnyIO's worker threads (docs/architecture.md,
"Concurrency").
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Cookie, Depends, Header, Path, Request

from colour_collector.server.middleware import SESSION_COOKIE
from colour_collector.server.runtime import Runtime
from colour_collector.service.errors import InvalidInputError

OPERATOR_COOKIE = "cc_operator"
"""HttpOnly cookie holding an operator's console session token."""
PLAY_NUMBER_MAX = 40
"""Longest path value accepted as a Play Number (longer answers 422)."""


async def get_runtime(request: Request) -> Runtime:
    """The app's runtime."""
    runtime: Runtime = request.app.state.runtime
    return runtime


async def get_client_address(request: Request) -> str:
    """The client's address (behind a proxy, see docs/operations.md)."""
    return request.client.host if request.client else "unknown"


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
ClientAddress = Annotated[str, Depends(get_client_address)]
SessionToken = Annotated[
    str | None,
    Cookie(
        alias=SESSION_COOKIE,
        description="The HttpOnly session cookie set by `POST /api/login`; without a live one"
        " the answer is 401 `not_authenticated`.",
    ),
]
"""The session token from its cookie (None without one: the use case answers 401)."""
PlayNumber = Annotated[
    str,
    Path(min_length=1, max_length=PLAY_NUMBER_MAX, description="Play Number, e.g. CC-7K3-D9Q-XM4."),
]
IDEMPOTENCY_KEY = "Idempotency-Key"
_KEY = Header(
    alias=IDEMPOTENCY_KEY,
    min_length=1,
    max_length=255,
    description="Repeat a request safely: the same key answers the same result. 1 to 255"
    " printable ASCII characters.",
    # stated for the schema; ``service.idempotency`` checks it and says so in its words
    json_schema_extra={"pattern": "^[ -~]+$"},
)


def _sent_once(request: Request) -> None:
    # FastAPI reads the first of several; which one a repeated request would count is then
    # the client's accident, so two are refused (as two X-CSRF-Token headers are).
    sent = len(request.headers.getlist(IDEMPOTENCY_KEY))
    if sent > 1:
        raise InvalidInputError(
            f"the {IDEMPOTENCY_KEY} header is sent {sent} times: send one", field=IDEMPOTENCY_KEY
        )


async def _optional_key(request: Request, key: Annotated[str | None, _KEY] = None) -> str | None:
    _sent_once(request)
    return key


async def _required_key(request: Request, key: Annotated[str, _KEY]) -> str:
    _sent_once(request)
    return key


IdempotencyKey = Annotated[str | None, Depends(_optional_key)]
"""An optional Idempotency-Key (a purchase, a test deposit)."""
PaymentKey = Annotated[str, Depends(_required_key)]
"""The Idempotency-Key a payment must carry: without one the request answers 422 naming it."""
OperatorToken = Annotated[
    str | None,
    Cookie(
        alias=OPERATOR_COOKIE,
        description="The HttpOnly console session cookie set by `POST /api/operator/login`;"
        " without a live one the answer is 401 `operator_not_authenticated`.",
    ),
]
"""The operator's console session token from its cookie (None without one)."""
