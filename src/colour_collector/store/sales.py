"""The sales switch (one row) and the figures of what the game has sold and paid."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, func, select, update

from colour_collector.service.play_models import PlayStatus
from colour_collector.service.protection_models import OutcomeFigures, SalesState
from colour_collector.store.tables import game_sales, plays

SWITCH_ROW = 1
"""Id of the single ``game_sales`` row (made by migration 0040)."""
_STATE = select(game_sales).where(game_sales.c.id == SWITCH_ROW)
_STATE_FOR_UPDATE = _STATE.with_for_update()

# On PostgreSQL a purchase reads the switch under a shared advisory lock, and a change takes it
# exclusively: the change waits for the purchases that found sales on, and purchases that come
# after it wait for it (PostgreSQL queues lock requests in order, so a stream of purchases does
# not hold a change off). The lock lives in memory, in the statement that reads the row: no
# round trip of its own, nothing written. On SQLite one writer at a time orders them already.
SWITCH_LOCK = 0x53414C45  # "SALE"
"""Key of the advisory lock that orders purchases and changes of the switch (PostgreSQL)."""
_STATE_FOR_SALE_PG = select(game_sales, func.pg_advisory_xact_lock_shared(SWITCH_LOCK)).where(
    game_sales.c.id == SWITCH_ROW
)
_STATE_FOR_UPDATE_PG = (
    select(game_sales, func.pg_advisory_xact_lock(SWITCH_LOCK))
    .where(game_sales.c.id == SWITCH_ROW)
    .with_for_update()
)


def _state(row: object) -> SalesState:
    if row is None:
        return SalesState(on_sale=True)
    return SalesState(
        on_sale=bool(row.on_sale),  # type: ignore[attr-defined]
        changed_at=row.changed_at,  # type: ignore[attr-defined]
        changed_by=row.changed_by,  # type: ignore[attr-defined]
        reason=row.reason,  # type: ignore[attr-defined]
    )


class SqlSalesSwitch:
    """Implements ``service.ports.SalesSwitch``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._postgresql = connection.dialect.name == "postgresql"

    def state(self) -> SalesState:
        return _state(self.connection.execute(_STATE).first())

    def state_for_sale(self) -> SalesState:
        query = _STATE_FOR_SALE_PG if self._postgresql else _STATE
        return _state(self.connection.execute(query).first())

    def state_for_update(self) -> SalesState:
        query = _STATE_FOR_UPDATE_PG if self._postgresql else _STATE_FOR_UPDATE
        return _state(self.connection.execute(query).first())

    def save(self, state: SalesState) -> None:
        self.connection.execute(
            update(game_sales)
            .where(game_sales.c.id == SWITCH_ROW)
            .values(
                on_sale=state.on_sale,
                changed_at=state.changed_at,
                changed_by=state.changed_by,
                reason=state.reason,
            )
        )


class SqlSalesFigures:
    """Implements ``service.ports.SalesFigures`` (aggregates over every play)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def finished_by_outcome(self) -> Sequence[OutcomeFigures]:
        rows = self.connection.execute(
            select(
                plays.c.tier_index,
                func.count().label("plays"),
                func.coalesce(func.sum(plays.c.prize_pence), 0).label("prize"),
            )
            .where(plays.c.status != PlayStatus.IN_PROGRESS.value)
            .group_by(plays.c.tier_index)
        )
        return [OutcomeFigures(row.tier_index, int(row.plays), int(row.prize)) for row in rows]

    def in_progress(self) -> int:
        return int(
            self.connection.execute(
                select(func.count()).where(plays.c.status == PlayStatus.IN_PROGRESS.value)
            ).scalar_one()
        )
