"""``GET /metrics``: Prometheus's text format (not JSON, so not in the OpenAPI description)."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import APIRouter, Header
from starlette.responses import Response

from colour_collector.server.dependencies import RuntimeDep
from colour_collector.server.metrics import exposition
from colour_collector.server.problems import NOT_AUTHENTICATED, ProblemError
from colour_collector.server.request_bodies import JsonBodyRoute

router = APIRouter(include_in_schema=False, route_class=JsonBodyRoute)


@router.get("/metrics")
def metrics(runtime: RuntimeDep, authorization: Annotated[str | None, Header()] = None) -> Response:
    """Request latency and errors of this process (or of all, in multiprocess mode) and the
    game's figures. With ``METRICS_TOKEN`` set, only ``Authorization: Bearer <token>``."""
    wanted = runtime.settings.metrics_token
    if wanted is not None:
        expected = f"Bearer {wanted.get_secret_value()}".encode()
        if not hmac.compare_digest((authorization or "").encode(), expected):
            raise ProblemError(
                NOT_AUTHENTICATED,
                "the metrics need Authorization: Bearer <COLOUR_COLLECTOR_METRICS_TOKEN>",
                headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
            )
    body, content_type = exposition(runtime.metrics)
    return Response(body, media_type=content_type)
