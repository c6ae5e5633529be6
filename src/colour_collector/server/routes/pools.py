"""Prize pools, public: the pool on sale, every pool, and the plays of closed pools."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from starlette.responses import Response

from colour_collector.server.dependencies import RuntimeDep
from colour_collector.server.pool_schemas import (
    CurrentPoolResponse,
    PoolInfo,
    PoolListResponse,
    RegeneratedPlayResponse,
)
from colour_collector.server.presenter import board
from colour_collector.server.problem_schemas import BAD_PARAMETERS, problem_responses
from colour_collector.server.request_bodies import JsonBodyRoute
from colour_collector.server.responses import answer
from colour_collector.server.schemas import InDigits
from colour_collector.service import pool_views
from colour_collector.service.models import LARGEST_ID

router = APIRouter(
    prefix="/api/pools", tags=["pools"], responses=BAD_PARAMETERS, route_class=JsonBodyRoute
)

PoolIdPath = Annotated[int, Path(ge=1, le=LARGEST_ID, description="The pool's id."), InDigits]
PositionPath = Annotated[
    int, Path(ge=0, le=10**12, description="A position in the pool, from 0."), InDigits
]
_NOT_FOUND = {
    404: "No such pool (`pool_not_found`).",
    422: "Invalid parameter (`invalid_request`).",
}


@router.get("/current", response_model=CurrentPoolResponse)
def current(runtime: RuntimeDep) -> Response:
    """The pool on sale: its commitment, plays left and top prizes left (null when none, and on
    a server that draws every play independently, whatever pools are loaded)."""
    shown = pool_views.current(runtime.database, runtime.sale)
    return answer(CurrentPoolResponse.of(shown))


@router.get("", response_model=PoolListResponse)
def listing(runtime: RuntimeDep) -> Response:
    """The pools loaded, newest first (at most 100)."""
    shown = pool_views.newest(runtime.database, runtime.sale)
    return answer(PoolListResponse(items=[PoolInfo.of(one) for one in shown]))


@router.get("/{pool_id}", response_model=PoolInfo, responses=problem_responses(_NOT_FOUND))
def get_pool(pool_id: PoolIdPath, runtime: RuntimeDep) -> Response:
    """One pool; its secret once it is closed."""
    shown = pool_views.view(runtime.database, pool_id, runtime.sale)
    return answer(PoolInfo.of(shown))


@router.get(
    "/{pool_id}/plays/{position}",
    response_model=RegeneratedPlayResponse,
    responses=problem_responses(
        {
            **_NOT_FOUND,
            409: "The pool's secret is not published yet: it is once the pool is closed and"
            " every play of it is finished (`pool_not_closed`).",
            422: "Invalid parameter, or a position outside the pool (`invalid_request`).",
            503: "This server cannot regenerate the pool's plays (`pool_unavailable`).",
        }
    ),
)
def regenerated_play(pool_id: PoolIdPath, position: PositionPath, runtime: RuntimeDep) -> Response:
    """The play at ``position`` of a closed pool, regenerated from its published secret."""
    play = pool_views.regenerate(runtime.database, pool_id, position)
    return answer(RegeneratedPlayResponse.of(play, board(play.record, 0)))
