"""``GET /healthz``."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy.exc import SQLAlchemyError

from colour_collector.server import problems
from colour_collector.server.dependencies import DatabaseDep
from colour_collector.server.offload import database_call
from colour_collector.server.schemas import HealthResponse, problem_responses

router = APIRouter(tags=["health"])


@router.get(
    "/healthz",
    response_model=HealthResponse,
    responses=problem_responses({503: "The database cannot be reached (`unavailable`)."}),
)
async def healthz(database: DatabaseDep) -> HealthResponse:
    """200 once the database answers a query."""
    try:
        await database_call(database, database.ping)
    except SQLAlchemyError:
        problems.log.warning("health check: database unreachable", exc_info=True)
        raise problems.ProblemError(problems.UNAVAILABLE, "the database is not reachable") from None
    return HealthResponse()
