"""Purchased plays: quote, purchase, reveal, finish, current play, My Games and recall."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Path, Query, Request, Response, status

from colour_collector.game.view import board, step_and_board, step_detail
from colour_collector.server.dependencies import CurrentAccount, DatabaseDep
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

router = APIRouter(prefix="/api", tags=["plays"])

_AUTH = {401: "Not logged in (`not_authenticated`)."}
_NOT_FOUND = {
    404: "No such play in your account (`play_not_found`); another player's Play Number "
    "answers the same.",
    422: "Invalid parameter (`invalid_request`).",
}
PlayNumber = Annotated[
    str,
    Path(min_length=1, max_length=40, description="Play Number, e.g. CC-7K3D-9QXM-4."),
]


def _view(play: StoredPlay) -> PlayViewResponse:
    return PlayViewResponse(
        play=PlayResponse.of(play), board=board(plays.record_of(play), play.revealed)
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
)
async def purchase(
    body: PurchaseRequest,
    request: Request,
    response: Response,
    *,
    account: CurrentAccount,
    database: DatabaseDep,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            description="Repeat a purchase safely: the same key returns the same play.",
        ),
    ] = None,
) -> PurchaseResponse:
    """Buy a play for the price (debit, draw, generate, store: one transaction).

    Answers 201 with the new play; 200 with the same play when the Idempotency-Key was used
    before; 200 with ``resumed: true`` when a play is unfinished (it must be finished first).
    """
    done = await database_call(
        database,
        plays.purchase,
        database,
        account.id,
        play_policy(request),
        confirm=body.confirm,
        idempotency_key=idempotency_key,
        rng=play_rng(request),
    )
    if not done.created:
        response.status_code = status.HTTP_200_OK
    return PurchaseResponse(
        play=PlayResponse.of(done.play),
        board=board(done.play_record(), done.play.revealed),
        resumed=done.resumed,
        balance_pence=done.balance_pence,
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
)
async def reveal(
    play_number: PlayNumber,
    body: StepRequest,
    request: Request,
    account: CurrentAccount,
    database: DatabaseDep,
) -> StepResponse:
    """Reveal the next step: a spin, a bonus pick (with ``pick``) or a Prize Game spin."""
    done = await database_call(
        database,
        plays.reveal,
        database,
        account.id,
        play_number,
        body.kind,
        body.pick,
        rng=play_rng(request),
    )
    step, screen = step_and_board(done.record, done.index)
    return StepResponse(step=step, board=screen)


@router.post(
    "/plays/{play_number}/finish",
    response_model=FinishResponse,
    responses=problem_responses(
        {**BODY_PROBLEMS, **_AUTH, **_NOT_FOUND, 409: "Steps remain (`play_not_over`)."}
    ),
)
async def finish(
    play_number: PlayNumber, body: EmptyRequest, account: CurrentAccount, database: DatabaseDep
) -> FinishResponse:
    """Press FINISH: the prize is credited exactly once; repeats answer the same."""
    done = await database_call(database, plays.finish, database, account.id, play_number)
    return FinishResponse(
        play=PlayResponse.of(done.play),
        prize_pence=done.play.prize_pence,
        tier=done.tier,
        balance_pence=done.balance_pence,
    )


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
