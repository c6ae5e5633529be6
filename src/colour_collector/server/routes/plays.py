"""Purchased plays: quote, purchase, reveal, finish, current play, My Games and recall."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, status
from starlette.responses import Response

from colour_collector.game.view import board, step_and_board, step_detail
from colour_collector.server import direct
from colour_collector.server.dependencies import (
    CurrentAccount,
    DatabaseDep,
    get_database,
    session_token,
)
from colour_collector.server.offload import database_call
from colour_collector.server.play_schemas import (
    EmptyRequest,
    FinishResponse,
    MyGamesResponse,
    PlayResponse,
    PlayViewResponse,
    PurchaseRequest,
    PurchaseResponse,
    QuoteResponse,
    RecalledStep,
    RecallResponse,
    StepRequest,
    StepResponse,
)
from colour_collector.server.runtime import play_policy, play_rng
from colour_collector.server.schemas import BODY_PROBLEMS, problem_responses
from colour_collector.service import plays
from colour_collector.service.play_models import StoredPlay
from colour_collector.service.record_cache import CONTINUATIONS

router = APIRouter(prefix="/api", tags=["plays"])

IDEMPOTENCY_KEY = "Idempotency-Key"
"""Header that makes a retried purchase return the same play."""

_AUTH = {401: "Not logged in (`not_authenticated`)."}
_NOT_FOUND = {
    404: "No such play in your account (`play_not_found`); another player's Play Number "
    "answers the same.",
    422: "Invalid parameter (`invalid_request`).",
}
PlayNumber = Annotated[
    str,
    Path(
        min_length=1,
        max_length=direct.PLAY_NUMBER_MAX,
        description=direct.PLAY_NUMBER_DESCRIPTION,
    ),
]


def _view(play: StoredPlay) -> PlayViewResponse:
    return PlayViewResponse(
        play=PlayResponse.of(play), board=board(plays.record_of(play), play.revealed)
    )


# The routes every play calls come first: FastAPI tries routes in order.


@router.post(
    "/plays",
    status_code=status.HTTP_201_CREATED,
    response_model=PurchaseResponse,
    responses={
        200: {
            "model": PurchaseResponse,
            "description": "Nothing bought: the same play for a repeated Idempotency-Key, or"
            " the unfinished play (`resumed: true`).",
        },
        **problem_responses(
            {
                **BODY_PROBLEMS,
                **_AUTH,
                409: "Not enough money (`insufficient_funds`); nothing was debited.",
                422: "Not confirmed (`confirmation_required`) or a bad field or"
                " Idempotency-Key (`invalid_request`).",
                503: "The prize pool is sold out (`sold_out`).",
            }
        ),
    },
    openapi_extra=direct.documented(
        PurchaseRequest,
        with_play_number=False,
        headers={IDEMPOTENCY_KEY: "Repeat a purchase safely: the same key returns the same play."},
    ),
)
async def purchase(request: Request) -> Response:
    """Buy a play for the price: debit, store and audit in one transaction.

    Answers 201 with the new play; 200 with the same play when the Idempotency-Key was used
    before; 200 with ``resumed: true`` when a play is unfinished (it must be finished first).
    """
    caller = session_token(request)  # looked up in the purchase's own transaction
    order = await direct.body(request, PurchaseRequest)
    database = await get_database(request)
    done = await database_call(
        database,
        plays.purchase,
        database,
        caller,
        play_policy(request),
        confirm=order.confirm,
        idempotency_key=request.headers.get(IDEMPOTENCY_KEY),
        rng=play_rng(request),
    )
    return direct.answer(
        PurchaseResponse(
            play=PlayResponse.of(done.play),
            board=board(done.play_record(), done.play.revealed),
            resumed=done.resumed,
            balance_pence=done.balance_pence,
        ),
        status.HTTP_201_CREATED if done.created else status.HTTP_200_OK,
    )


@router.post(
    "/plays/{play_number}/steps",
    response_model=StepResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            **_AUTH,
            **_NOT_FOUND,
            409: "Not the next step (`step_out_of_order`; `expected` names it).",
        }
    ),
    openapi_extra=direct.documented(StepRequest),
)
async def reveal(request: Request) -> Response:
    """Reveal the next step: a spin, a bonus pick (with ``pick``) or a Prize Game spin."""
    caller = session_token(request)  # looked up in the step's own transaction
    number = direct.play_number(request)
    step_request = await direct.body(request, StepRequest)
    database = await get_database(request)
    done = await database_call(
        database,
        plays.reveal,
        database,
        caller,
        number,
        step_request.kind,
        step_request.pick,
        rng=play_rng(request),
        step=step_request.step,
    )
    step, screen = step_and_board(done.record, done.index, continuations=CONTINUATIONS)
    return direct.answer(StepResponse(step=step, board=screen))


@router.post(
    "/plays/{play_number}/finish",
    response_model=FinishResponse,
    responses=problem_responses(
        {**BODY_PROBLEMS, **_AUTH, **_NOT_FOUND, 409: "Steps remain (`play_not_over`)."}
    ),
    openapi_extra=direct.documented(EmptyRequest),
)
async def finish(request: Request) -> Response:
    """Press FINISH: the prize is credited exactly once; repeats answer the same."""
    caller = session_token(request)  # looked up in FINISH's own transaction
    number = direct.play_number(request)
    await direct.body(request, EmptyRequest)
    database = await get_database(request)
    done = await database_call(database, plays.finish, database, caller, number)
    return direct.answer(
        FinishResponse(
            play=PlayResponse.of(done.play),
            prize_pence=done.play.prize_pence,
            tier=done.tier,
            balance_pence=done.balance_pence,
        )
    )


@router.get("/plays/quote", response_model=QuoteResponse, responses=problem_responses(_AUTH))
async def quote(request: Request, account: CurrentAccount, database: DatabaseDep) -> QuoteResponse:
    """The purchase screen: price, balance, and any unfinished play a purchase would resume."""
    found = await database_call(database, plays.quote, database, account.id, play_policy(request))
    pounds = found.price_pence / 100
    return QuoteResponse(
        price_pence=found.price_pence,
        balance_pence=found.balance_pence,
        message=f"You are about to play Colour Collector for £{pounds:,.2f}",
        unfinished=None if found.unfinished is None else PlayResponse.of(found.unfinished),
    )


@router.get(
    "/plays/current",
    response_model=PlayViewResponse,
    responses=problem_responses({**_AUTH, 404: "No unfinished play (`play_not_found`)."}),
)
async def current(account: CurrentAccount, database: DatabaseDep) -> PlayViewResponse:
    """The unfinished play, to resume it at exactly its step."""
    return _view(await database_call(database, plays.current, database, account.id))


@router.get(
    "/plays/{play_number}",
    response_model=PlayViewResponse,
    responses=problem_responses({**_AUTH, **_NOT_FOUND}),
)
async def get_play(
    play_number: PlayNumber, account: CurrentAccount, database: DatabaseDep
) -> PlayViewResponse:
    """One of your plays and the screen at its current step."""
    return _view(await database_call(database, plays.get_play, database, account.id, play_number))


@router.get(
    "/my-games",
    response_model=MyGamesResponse,
    responses=problem_responses({**_AUTH, 422: "Bad page or per_page (`invalid_request`)."}),
)
async def my_games(
    account: CurrentAccount,
    database: DatabaseDep,
    page: Annotated[int, Query(ge=1, le=1_000_000, description="Page, from 1.")] = 1,
    per_page: Annotated[int, Query(ge=1, le=plays.MAX_PAGE, description="Plays a page.")] = 20,
) -> MyGamesResponse:
    """Your plays, newest first."""
    found = await database_call(database, plays.my_games, database, account.id, page, per_page)
    return MyGamesResponse(
        items=[PlayResponse.of(p) for p in found.items],
        page=found.page,
        per_page=found.per_page,
        total=found.total,
    )


@router.get(
    "/my-games/{play_number}",
    response_model=RecallResponse,
    responses=problem_responses({**_AUTH, **_NOT_FOUND}),
)
async def recall(
    play_number: PlayNumber, account: CurrentAccount, database: DatabaseDep
) -> RecallResponse:
    """Recall a play: every revealed step with the screen after it, picks, balances."""
    play = await database_call(database, plays.get_play, database, account.id, play_number)
    record = plays.record_of(play)
    return RecallResponse(
        play=PlayResponse.of(play),
        start=board(record, 0),
        steps=[
            RecalledStep(step=step_detail(record, i), board=board(record, i + 1))
            for i in range(play.revealed)
        ],
        balance_before_pence=play.balance_before_pence,
        balance_after_pence=play.balance_after_pence,
    )
