"""The static description of the game the client draws its screens from."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from colour_collector.game.config import COUNTED_KINDS, load_config
from colour_collector.server.play_schemas import (
    BonusPrizeInfo,
    ColourInfo,
    GameResponse,
    GridSize,
    PrizeTableInfo,
    ReelRange,
)
from colour_collector.server.request_bodies import JsonBodyRoute
from colour_collector.server.responses import answer

router = APIRouter(prefix="/api", tags=["game"], route_class=JsonBodyRoute)


@router.get("/game", response_model=GameResponse)
def game() -> Response:
    """Colours, shapes, grid sizes, the Prize Table at every level, the Bonus Prizes."""
    cfg = load_config()
    description = GameResponse(
        name="Colour Collector",
        price_pence=cfg.price,
        starting_spins=cfg.starting_spins,
        colours=[
            ColourInfo(name=name, letter=letter)
            for name, letter in zip(cfg.colours, cfg.colour_letters, strict=True)
        ],
        start_colour=cfg.colours[cfg.start_colour],
        grid=GridSize(columns=cfg.grid_columns, rows=cfg.grid_rows),
        prize_grid=GridSize(columns=cfg.prize_grid_columns, rows=cfg.prize_grid_rows),
        prize_table=[
            PrizeTableInfo(shape=row.shape, boxes=row.boxes, amounts_pence=list(row.amounts))
            for row in cfg.prize_table
        ],
        bonus_prizes=[
            BonusPrizeInfo(
                kind=spec.kind,
                label=spec.label,
                min=spec.minimum,
                max=spec.maximum,
                boost=spec.boost,
                counted=spec.kind in COUNTED_KINDS,
            )
            for spec in cfg.bonus_prizes.values()
        ],
        bonus_box=cfg.bonus_box,
        prize_game_box=cfg.prize_game_box,
        reel=ReelRange(min=cfg.reel_min, max=cfg.reel_max),
    )
    return answer(description)
