"""``GET /healthz``."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from colour_collector.server.dependencies import DatabaseDep
from colour_collector.server.responses import answer
from colour_collector.server.schemas import HealthResponse, problem_responses

router = APIRouter(tags=["health"])


@router.get(
    "/healthz",
    response_model=HealthResponse,
    responses=problem_responses({503: "The database cannot be reached (`unavailable`)."}),
)
def healthz(database: DatabaseDep) -> Response:
    """200 once the database answers a query (503 ``unavailable`` otherwise)."""
    database.ping()
    return answer(HealthResponse())
