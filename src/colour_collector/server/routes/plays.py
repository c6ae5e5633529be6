"""Purchased plays: quote, purchase, steps, FINISH, the unfinished play, My Games and recall."""

from __future__ import annotations

import time
from functools import partial
from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Body, Query, status
from starlette.responses import Response

from colour_collector.server.dependencies import (
    IdempotencyKey,
    PlayNumber,
    RuntimeDep,
    SessionToken,
)
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
from colour_collector.server.presenter import (
    Board,
    LastStep,
    board,
    resumed,
    step_and_board,
    steps_shown,
)
from colour_collector.server.problem_schemas import BAD_PARAMETERS, BODY_PROBLEMS, problem_responses
from colour_collector.server.problems import problem_of
from colour_collector.server.request_bodies import JsonBodyRoute
from colour_collector.server.responses import answer
from colour_collector.server.runtime import Runtime, purchase_threads
from colour_collector.server.schemas import InDigits
from colour_collector.service import my_games as games
from colour_collector.service import purchase as buying
from colour_collector.service import records, reveal, settle
from colour_collector.service.play_models import StoredPlay

router = APIRouter(
    prefix="/api", tags=["plays"], responses=BAD_PARAMETERS, route_class=JsonBodyRoute
)


def _purchase(
    runtime: Runtime, token: str | None, confirm: bool, idempotency_key: str | None
) -> tuple[buying.Purchase, Board, LastStep | None]:
    done = buying.purchase(
        runtime.database,
        token,
        runtime.plays,
        confirm=confirm,
        idempotency_key=idempotency_key,
        rng=runtime.rng,
    )
    return (done, *resumed(done.record, done.play.revealed))


_AUTH = {401: "Not logged in (`not_authenticated`)."}
_NOT_FOUND = {
    404: "No such play in your account (`play_not_found`); another player's Play Number "
    "answers the same.",
    422: "Invalid parameter (`invalid_request`).",
}


def _view(play: StoredPlay) -> PlayViewResponse:
    screen, last = resumed(records.decode(play.record), play.revealed)
    return PlayViewResponse(play=PlayResponse.of(play), board=screen, last=last)


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
                403: "CSRF check failed (`csrf_failed`), or a time-out (`timed_out`) or"
                " self-exclusion (`self_excluded`) is in force (`until`); nothing was debited.",
                409: "Not enough money (`insufficient_funds`, `balance_pence`), or the reality"
                " check is due (`reality_check_due`: `played_seconds`, `net_pence`, `due_at`);"
                " nothing was debited.",
                422: "A bad field (`confirm` must be true) or Idempotency-Key (`invalid_request`).",
                503: "Sales are stopped (`sales_stopped`), no prize pool is on sale"
                " (`sold_out`), or the pool on sale cannot be dealt from by this server or"
                " other purchases kept taking the position this one expected"
                " (`pool_unavailable`); nothing was debited.",
            }
        ),
    },
)
async def purchase(
    body: PurchaseRequest,
    runtime: RuntimeDep,
    idempotency_key: IdempotencyKey,
    token: SessionToken = None,
) -> Response:
    """Buy a play for the price: debit, store and audit in one transaction.

    Answers 201 with the new play; 200 with the same play when the Idempotency-Key was used
    before; 200 with ``resumed: true`` when a play is unfinished (it must be finished first).
    No answer, a refusal included, comes sooner than ``PURCHASE_ANSWER_FLOOR_MS`` after the
    purchase starts.
    """
    # The one route that is async (decision 0003): the purchase runs on a worker thread of the
    # purchases' own (a purchase waiting for a build holds none that other requests need), then
    # the answer waits on the event loop, holding no thread, until the floor. Building a play
    # takes from 0.1 ms to 650 ms by its prize: answered at once, the time of a purchase (or
    # /metrics' latency histogram) would tell the prize before the reveal.
    # A refusal waits for the floor too: a purchase may be refused after it built the play it
    # expected (a logout or a stop of sales racing it), and that play is still the next one.
    started = time.monotonic()
    try:
        done, screen, last = await anyio.to_thread.run_sync(
            partial(_purchase, runtime, token, body.confirm, idempotency_key),
            limiter=purchase_threads(runtime),
        )
    finally:
        wait = runtime.settings.purchase_answer_floor_ms / 1000 - (time.monotonic() - started)
        if wait > 0:
            await anyio.sleep(wait)
    return answer(
        PurchaseResponse(
            play=PlayResponse.of(done.play),
            board=screen,
            last=last,
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
            409: "Not the next step (`step_out_of_order`; `expected` names it, `revealed` says"
            " how far the play is), or the play moved on while the step was written"
            " (`play_changed`; nothing written).",
        }
    ),
)
def reveal_step(
    play_number: PlayNumber,
    body: Annotated[StepRequest, Body()],
    runtime: RuntimeDep,
    token: SessionToken = None,
) -> Response:
    """Reveal the next step: a spin, a bonus pick (with ``pick``) or a Prize Game spin."""
    done = reveal.reveal(
        runtime.database, token, play_number, body.kind, body.pick, rng=runtime.rng, step=body.step
    )
    shown, screen = step_and_board(done.record, done.index)
    return answer(StepResponse(step=shown, board=screen, repeated=done.repeated))


@router.post(
    "/plays/{play_number}/finish",
    response_model=FinishResponse,
    responses=problem_responses(
        {**BODY_PROBLEMS, **_AUTH, **_NOT_FOUND, 409: "Steps remain (`play_not_over`)."}
    ),
)
def finish(
    play_number: PlayNumber, body: EmptyRequest, runtime: RuntimeDep, token: SessionToken = None
) -> Response:
    """Press FINISH: the prize is credited exactly once; repeats answer the same."""
    done = settle.finish(runtime.database, token, play_number)
    return answer(
        FinishResponse(
            play=PlayResponse.of(done.play),
            prize_pence=done.play.prize_pence,
            tier=done.tier,
            balance_pence=done.balance_pence,
        )
    )


@router.get("/plays/quote", response_model=QuoteResponse, responses=problem_responses(_AUTH))
def quote(runtime: RuntimeDep, token: SessionToken = None) -> Response:
    """The purchase screen: price, balance, any unfinished play a purchase would resume, and
    the problem a purchase would be refused with now (``refused``)."""
    found = buying.quote(runtime.database, token, runtime.plays)
    pounds = found.price_pence / 100
    return answer(
        QuoteResponse(
            price_pence=found.price_pence,
            balance_pence=found.balance_pence,
            message=f"You are about to play Colour Collector for £{pounds:,.2f}",
            unfinished=None if found.unfinished is None else PlayResponse.of(found.unfinished),
            refused=None if found.refusal is None else problem_of(found.refusal),
        )
    )


@router.get(
    "/plays/current",
    response_model=PlayViewResponse,
    responses=problem_responses({**_AUTH, 404: "No unfinished play (`play_not_found`)."}),
)
def current(runtime: RuntimeDep, token: SessionToken = None) -> Response:
    """The unfinished play, to resume it at exactly its step."""
    return answer(_view(games.current(runtime.database, token)))


@router.get(
    "/plays/{play_number}",
    response_model=PlayViewResponse,
    responses=problem_responses({**_AUTH, **_NOT_FOUND}),
)
def get_play(play_number: PlayNumber, runtime: RuntimeDep, token: SessionToken = None) -> Response:
    """One of your plays and the screen at its current step."""
    return answer(_view(games.get_play(runtime.database, token, play_number)))


@router.get(
    "/my-games",
    response_model=MyGamesResponse,
    responses=problem_responses({**_AUTH, 422: "Bad page or per_page (`invalid_request`)."}),
)
def my_games(
    runtime: RuntimeDep,
    token: SessionToken = None,
    page: Annotated[int, Query(ge=1, le=1_000_000, description="Page, from 1."), InDigits] = 1,
    per_page: Annotated[
        int, Query(ge=1, le=games.MAX_PAGE, description="Plays a page."), InDigits
    ] = 20,
) -> Response:
    """Your plays, newest first."""
    found = games.my_games(runtime.database, token, page, per_page)
    return answer(
        MyGamesResponse(
            items=[PlayResponse.of(p) for p in found.items],
            page=found.page,
            per_page=found.per_page,
            total=found.total,
        )
    )


@router.get(
    "/my-games/{play_number}",
    response_model=RecallResponse,
    responses=problem_responses({**_AUTH, **_NOT_FOUND}),
)
def recall(play_number: PlayNumber, runtime: RuntimeDep, token: SessionToken = None) -> Response:
    """Recall a play: every revealed step with the screen after it, picks, balances."""
    play = games.get_play(runtime.database, token, play_number)
    record = records.decode(play.record)
    return answer(
        RecallResponse(
            play=PlayResponse.of(play),
            start=board(record, 0),
            steps=[
                RecalledStep(step=shown, board=screen)
                for shown, screen in steps_shown(record, play.revealed)
            ],
            balance_before_pence=play.balance_before_pence,
            balance_after_pence=play.balance_after_pence,
            record_sha256=records.sold_sha256(play.record),
        )
    )
