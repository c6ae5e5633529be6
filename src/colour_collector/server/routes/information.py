"""What anyone may read before buying: prize table, odds, payout, Game Procedures."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from colour_collector.server.dependencies import RuntimeDep
from colour_collector.server.protection_schemas import GameInformationResponse, PrizeInformation
from colour_collector.server.request_bodies import JsonBodyRoute
from colour_collector.server.responses import answer
from colour_collector.service.information import information

router = APIRouter(prefix="/api", tags=["game"], route_class=JsonBodyRoute)


@router.get("/game/information", response_model=GameInformationResponse)
def game_information(runtime: RuntimeDep) -> Response:
    """The prize table with each prize's odds, the overall odds (1 in 2.77), the payout
    percentage (73.50%) and the Game Procedures. No account needed."""
    found = information(runtime.pool, runtime.plays.price_pence)
    return answer(
        GameInformationResponse(
            price_pence=found.price_pence,
            overall_odds=found.overall_odds,
            payout_percent=found.payout_percent,
            prizes=[
                PrizeInformation(name=t.name, prize_pence=t.prize_pence, odds=t.printed_odds)
                for t in found.prizes
            ],
            procedures=found.procedures,
        )
    )
