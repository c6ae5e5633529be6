"""Request and response bodies of the plays, Try and game endpoints."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field, StrictBool

from colour_collector.game.config import BonusKind
from colour_collector.server.presenter import Board, LastStep, StepShown
from colour_collector.server.problem_schemas import Problem
from colour_collector.server.schemas import Request, Response
from colour_collector.service.play_models import PlayStatus, StoredPlay


def _must_be_true(value: bool) -> bool:
    if value is not True:
        raise ValueError("must be true: the player confirms the purchase")
    return value


class PurchaseRequest(Request):
    """``POST /api/plays``: the explicit confirmation of the purchase screen."""

    confirm: Annotated[
        StrictBool,
        AfterValidator(_must_be_true),
        Field(
            description="Must be true: the player confirmed the price.",
            json_schema_extra={"const": True},
        ),
    ]


MAX_STEP = 10_000
"""Largest step index a request may name (a play has far fewer steps)."""

StepIndex = Annotated[
    int | None,
    Field(
        ge=0,
        le=MAX_STEP,
        description="The index of the step this request reveals: the play's `revealed` count"
        " as the client last saw it. A retry of the step just revealed answers it again; any"
        " other index than the next answers 409 `step_out_of_order` with the play's `revealed`.",
    ),
]


def _no_pick(value: object) -> None:
    if value is not None:
        raise ValueError("a spin takes no pick: leave pick out (only a bonus_pick has one)")


NoPick = Annotated[None, BeforeValidator(_no_pick), Field(description="A spin takes no pick.")]


class SpinRequest(Request):
    """Press SPIN in the Main Game."""

    kind: Literal["spin"]
    pick: NoPick = None
    step: StepIndex = None


class BonusPickRequest(Request):
    """Pick ODD or EVEN in the Bonus Game."""

    kind: Literal["bonus_pick"]
    pick: Literal["odd", "even"] = Field(description="ODD or EVEN.")
    step: StepIndex = None


class PrizeSpinRequest(Request):
    """Press SPIN in the Prize Game."""

    kind: Literal["prize_spin"]
    pick: NoPick = None
    step: StepIndex = None


StepRequest = Annotated[
    SpinRequest | BonusPickRequest | PrizeSpinRequest, Field(discriminator="kind")
]
"""``POST /api/plays/{play_number}/steps``: the step the player takes (it must be the next)."""


class EmptyRequest(Request):
    """A body with no fields (``{}``)."""


class PlayResponse(Response):
    """A purchased play. The prize is shown only once the play is finished."""

    play_number: str
    status: PlayStatus
    price_pence: int
    prize_pence: int | None = Field(description="Null until the play is finished.")
    revealed: int = Field(description="Steps revealed so far.")
    purchased_at: dt.datetime
    finished_at: dt.datetime | None
    pool_id: int | None = Field(
        description="The prize pool the play was dealt from; null for an independent draw."
    )
    pool_position: int | None = Field(description="Its position in that pool, from 0.")

    @classmethod
    def of(cls, play: StoredPlay) -> PlayResponse:
        """Shape a stored play, hiding its prize until it is finished."""
        finished = play.status.finished
        return cls(
            play_number=play.play_number,
            status=play.status,
            price_pence=play.price_pence,
            prize_pence=play.prize_pence if finished else None,
            revealed=play.revealed,
            purchased_at=play.purchased_at,
            finished_at=play.finished_at,
            pool_id=play.pool_id,
            pool_position=play.pool_position,
        )


LastShown = Annotated[
    LastStep | None,
    Field(
        description="The step revealed last and the screen before it, so a play opened again"
        " shows what that step did; null before the first step."
    ),
]
"""What every view of a play carries to mark its last step."""


class QuoteResponse(Response):
    """``GET /api/plays/quote``: the purchase screen."""

    price_pence: int
    balance_pence: int
    message: str = Field(description="'You are about to play Colour Collector for £5.00'")
    unfinished: PlayResponse | None = Field(description="A play a purchase would resume.")
    refused: Problem | None = Field(
        description="The problem a purchase would be refused with now (`sales_stopped`,"
        " `timed_out`, `self_excluded`, `reality_check_due`, `sold_out`, `pool_unavailable`), as"
        " `POST /api/plays` would answer it; null when a purchase would go ahead or resume the"
        " unfinished play."
        " A balance below the price is left to `balance_pence`."
    )


class PurchaseResponse(Response):
    """``POST /api/plays``."""

    play: PlayResponse
    board: Board
    last: LastShown
    resumed: bool = Field(description="True: an unfinished play was returned, nothing bought.")
    balance_pence: int


class PlayViewResponse(Response):
    """A play and the player's screen."""

    play: PlayResponse
    board: Board
    last: LastShown


Repeated = Annotated[
    bool,
    Field(
        description="True when this step was revealed before and is answered again: a retry of"
        " a request whose answer was lost, or the same step asked by another tab or window."
    ),
]


class StepResponse(Response):
    """The step just revealed and the screen after it."""

    step: StepShown
    board: Board
    repeated: Repeated


class FinishResponse(Response):
    """``POST /api/plays/{play_number}/finish``: the end screen."""

    play: PlayResponse
    prize_pence: int
    tier: str | None = Field(description="The prize tier as printed; null for no win.")
    balance_pence: int


class MyGamesResponse(Response):
    """``GET /api/my-games``."""

    items: list[PlayResponse]
    page: int
    per_page: int
    total: int


class RecalledStep(Response):
    """One revealed step of a recalled play."""

    step: StepShown
    board: Board


class RecallResponse(Response):
    """``GET /api/my-games/{play_number}``: what the player saw, step by step."""

    play: PlayResponse
    start: Board
    steps: list[RecalledStep]
    balance_before_pence: int
    balance_after_pence: int | None
    record_sha256: str = Field(
        description="SHA-256 of the play record as sold (before any Bonus Game pick): the play"
        " its pool's secret regenerates at its position has the same."
    )


class TryStartResponse(Response):
    """``POST /api/try``: a free Try play."""

    try_id: str = Field(description="Secret id of the Try play; keep it to resume.")
    board: Board
    mode: Literal["try"] = "try"


class TryViewResponse(Response):
    """``GET /api/try/{try_id}``."""

    board: Board
    last: LastShown
    mode: Literal["try"] = "try"


class TryStepResponse(Response):
    """``POST /api/try/{try_id}/steps``."""

    step: StepShown
    board: Board
    repeated: Repeated
    mode: Literal["try"] = "try"


class TryFinishResponse(Response):
    """``POST /api/try/{try_id}/finish``: nothing is credited."""

    prize_pence: int
    tier: str | None
    mode: Literal["try"] = "try"


class ColourInfo(Response):
    """A wheel colour and the letter shown with it for players who cannot tell colours apart."""

    name: str
    letter: str


class GridSize(Response):
    """Columns and rows of a grid."""

    columns: int
    rows: int


class PrizeTableInfo(Response):
    """A Prize Table row: its shape, boxes and amount at each boost level."""

    shape: str
    boxes: int
    amounts_pence: list[int] = Field(description="By boost level, from 0.")


class BonusPrizeInfo(Response):
    """A kind of Bonus Prize."""

    kind: BonusKind
    label: str
    min: int
    max: int
    boost: int = Field(description="Prize Table levels it adds.")
    counted: bool = Field(description="Whether it carries a number (spins or symbols).")


class ReelRange(Response):
    """The Bonus Reel's numbers."""

    min: int
    max: int


class GameResponse(Response):
    """``GET /api/game``: what the client needs to draw the game."""

    name: str
    price_pence: int
    starting_spins: int
    colours: list[ColourInfo]
    start_colour: str
    grid: GridSize
    prize_grid: GridSize
    prize_table: list[PrizeTableInfo]
    bonus_prizes: list[BonusPrizeInfo]
    bonus_box: int
    prize_game_box: int
    reel: ReelRange
