"""Try mode: free plays with the same rules and odds; no account, never a wallet."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Cookie, Path, status
from starlette.responses import Response

from colour_collector.server.dependencies import ClientAddress, RuntimeDep
from colour_collector.server.middleware import SESSION_COOKIE
from colour_collector.server.play_schemas import (
    EmptyRequest,
    StepRequest,
    TryFinishResponse,
    TryStartResponse,
    TryStepResponse,
    TryViewResponse,
)
from colour_collector.server.presenter import board, resumed, step_and_board
from colour_collector.server.problem_schemas import BAD_PARAMETERS, BODY_PROBLEMS, problem_responses
from colour_collector.server.request_bodies import JsonBodyRoute
from colour_collector.server.responses import answer
from colour_collector.service import records, try_plays

router = APIRouter(
    prefix="/api/try", tags=["try"], responses=BAD_PARAMETERS, route_class=JsonBodyRoute
)

TryId = Annotated[str, Path(min_length=1, max_length=100, description="The Try play's secret id.")]
_NOT_FOUND = {404: "No such Try play (`play_not_found`).", 422: "Invalid id (`invalid_request`)."}


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=TryStartResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            403: "A player logged in is taking a break (`timed_out`, `self_excluded`).",
            429: "Too many Try plays from this address (`too_many_tries`).",
        }
    ),
)
def start(
    body: EmptyRequest,
    runtime: RuntimeDep,
    client: ClientAddress,
    session: Annotated[
        str | None,
        Cookie(
            alias=SESSION_COOKIE,
            description="Optional: a Try needs no account, but a player logged in during a"
            " time-out or self-exclusion is refused one.",
        ),
    ] = None,
) -> Response:
    """Start a free Try play: same rules and odds, no money. Limited per address and hour."""
    token, play = try_plays.start(
        runtime.database,
        runtime.try_outcomes,
        runtime.rng,
        client=client,
        per_hour=runtime.settings.try_plays_per_hour,
        session_token=session,
    )
    return answer(
        TryStartResponse(try_id=token, board=board(records.decode(play.record), 0)),
        status.HTTP_201_CREATED,
    )


@router.get("/{try_id}", response_model=TryViewResponse, responses=problem_responses(_NOT_FOUND))
def get(try_id: TryId, runtime: RuntimeDep) -> Response:
    """The Try play's screen at its current step."""
    play = try_plays.get(runtime.database, try_id)
    screen, last = resumed(records.decode(play.record), play.revealed)
    return answer(TryViewResponse(board=screen, last=last))


@router.post(
    "/{try_id}/steps",
    response_model=TryStepResponse,
    responses=problem_responses(
        {**BODY_PROBLEMS, **_NOT_FOUND, 409: "Not the next step (`step_out_of_order`)."}
    ),
)
def reveal(try_id: TryId, body: Annotated[StepRequest, Body()], runtime: RuntimeDep) -> Response:
    """Reveal the next step of a Try play."""
    play, index, repeated = try_plays.reveal(
        runtime.database, try_id, body.kind, body.pick, runtime.rng, step=body.step
    )
    shown, screen = step_and_board(records.decode(play.record), index)
    return answer(TryStepResponse(step=shown, board=screen, repeated=repeated))


@router.post(
    "/{try_id}/finish",
    response_model=TryFinishResponse,
    responses=problem_responses(
        {**BODY_PROBLEMS, **_NOT_FOUND, 409: "Steps remain (`play_not_over`)."}
    ),
)
def finish(try_id: TryId, body: EmptyRequest, runtime: RuntimeDep) -> Response:
    """FINISH a Try play: shows what it would have won; nothing is credited."""
    done = try_plays.finish(runtime.database, try_id)
    return answer(TryFinishResponse(prize_pence=done.play.prize_pence, tier=done.tier))
