"""``GET /healthz``."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from colour_collector.server.dependencies import RuntimeDep
from colour_collector.server.problem_schemas import problem_responses
from colour_collector.server.request_bodies import JsonBodyRoute
from colour_collector.server.responses import answer
from colour_collector.server.schemas import HealthResponse

router = APIRouter(tags=["health"], route_class=JsonBodyRoute)


@router.get(
    "/healthz",
    response_model=HealthResponse,
    responses=problem_responses({503: "The database cannot be reached (`unavailable`)."}),
)
def healthz(runtime: RuntimeDep) -> Response:
    """200 once the database answers a query (503 ``unavailable`` otherwise)."""
    runtime.database.ping()
    return answer(HealthResponse())
