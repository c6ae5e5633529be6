"""Response bodies of the prize pool endpoints (they take no request body)."""

from __future__ import annotations

import datetime as dt

from pydantic import Field

from colour_collector.server.presenter import Board
from colour_collector.server.schemas import Response
from colour_collector.service.pool_models import PoolStatus
from colour_collector.service.pool_views import (
    FIGURES_MIN_OPEN,
    Current,
    PoolView,
    RegeneratedPlay,
)


class TopPrizeInfo(Response):
    """A top prize of a pool (£1,000 and more) and how many are left, as scratchcards show."""

    tier: str = Field(description="The prize tier as printed.")
    prize_pence: int
    total: int = Field(description="Plays of this tier in the pool.")
    left: int | None = Field(
        description="Those not won yet: not sold, or sold to a play not finished yet (a prize"
        " counts as won when its play is finished, so a purchase does not move this figure)."
        f" Null while fewer than {FIGURES_MIN_OPEN:,} of the pool's plays are open (not sold,"
        " or not finished), but some are, and its secret is not published: over so few the"
        " figure would tell something of those plays' prizes before they are revealed."
    )


class PoolInfo(Response):
    """A prize pool as anyone may see it. Its secret only once it is closed and every play of it
    is finished."""

    id: int = Field(description="Pools go on sale in the order of their ids.")
    status: PoolStatus
    commitment: str = Field(
        description="SHA-256 (hex) of `parameters`, a newline and the 32-byte secret:"
        " published before the sale, it fixes every play of the pool."
    )
    parameters: str = Field(
        description="The canonical JSON text the commitment binds: procedure, size, the count"
        " of every tier, the game and play generator versions."
    )
    size: int = Field(description="Plays in the pool.")
    dealt: int = Field(description="Plays sold; the next purchase gets this position.")
    left: int = Field(description="Plays not sold yet.")
    published_structure: bool = Field(
        description="Whether the pool has the published prize structure (6,500,000 plays)."
    )
    top_prizes: list[TopPrizeInfo] = Field(description="Most valuable first.")
    loaded_at: dt.datetime
    started_at: dt.datetime | None
    sold_out_at: dt.datetime | None
    closed_at: dt.datetime | None
    secret: str | None = Field(
        description="The pool's secret (64 hex digits), published once the pool is closed and"
        " every play of it is finished; null until then (a pool closed while plays of it are in"
        " progress is `closed` with no secret yet)."
    )

    @classmethod
    def of(cls, shown: PoolView) -> PoolInfo:
        """Shape a pool."""
        pool = shown.pool
        return cls(
            id=pool.id,
            status=shown.status,
            commitment=pool.commitment,
            parameters=pool.parameters,
            size=pool.size,
            dealt=pool.dealt,
            left=pool.left,
            published_structure=shown.parameters.is_published,
            top_prizes=[
                TopPrizeInfo(
                    tier=top.tier.name,
                    prize_pence=top.tier.prize_pence,
                    total=top.total,
                    left=top.left,
                )
                for top in shown.top_prizes
            ],
            loaded_at=pool.loaded_at,
            started_at=pool.started_at,
            sold_out_at=pool.sold_out_at,
            closed_at=pool.closed_at,
            secret=pool.secret,
        )


class CurrentPoolResponse(Response):
    """``GET /api/pools/current``: the pool on sale."""

    pool: PoolInfo | None = Field(description="Null when no pool is on sale.")
    queued: int = Field(description="Pools loaded to go on sale after it.")

    @classmethod
    def of(cls, found: Current) -> CurrentPoolResponse:
        """Shape the pools on sale."""
        return cls(
            pool=None if found.on_sale is None else PoolInfo.of(found.on_sale),
            queued=found.queued,
        )


class PoolListResponse(Response):
    """``GET /api/pools``: the pools, newest first."""

    items: list[PoolInfo]


class RegeneratedPlayResponse(Response):
    """``GET /api/pools/{pool_id}/plays/{position}``: a play of a closed pool regenerated from
    its published secret."""

    pool_id: int
    position: int
    commitment: str = Field(description="The commitment published before the sale.")
    secret: str = Field(description="The secret published when the pool closed.")
    tier: str | None = Field(description="The prize tier as printed; null for no win.")
    prize_pence: int
    steps: int = Field(description="Steps of the play.")
    record_sha256: str = Field(
        description="SHA-256 of the play record as generated; the same as the `record_sha256`"
        " recall shows for the play sold at this position."
    )
    record: str = Field(description="The play record's JSON text (docs/play-record.md).")
    start: Board = Field(description="The screen before the first spin.")

    @classmethod
    def of(cls, play: RegeneratedPlay, start: Board) -> RegeneratedPlayResponse:
        """Shape a regenerated play."""
        pool = play.pool.pool
        return cls(
            pool_id=pool.id,
            position=play.position,
            commitment=pool.commitment,
            secret=pool.secret or "",
            tier=None if play.tier is None else play.tier.name,
            prize_pence=0 if play.tier is None else play.tier.prize_pence,
            steps=len(play.record.steps),
            record_sha256=play.sha256,
            record=play.text,
            start=start,
        )
