"""The finite prize pool's remaining counts: one row, locked by each deal."""

from __future__ import annotations

import json

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.exc import IntegrityError

from colour_collector.store.tables import prize_pool

POOL_ROW = 1
"""Id of the single prize pool row."""


class SqlPrizePools:
    """Implements ``service.ports.PrizePools``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def get_for_update(self) -> tuple[int, ...] | None:
        row = self.connection.execute(
            select(prize_pool.c.remaining).where(prize_pool.c.id == POOL_ROW).with_for_update()
        ).first()
        return None if row is None else tuple(int(n) for n in json.loads(row.remaining))

    def add_if_missing(self, remaining: tuple[int, ...]) -> bool:
        try:
            with self.connection.begin_nested():  # another process may store it first
                self.connection.execute(
                    insert(prize_pool).values(
                        id=POOL_ROW, remaining=json.dumps(list(remaining)), dealt=0
                    )
                )
        except IntegrityError:
            return False
        return True

    def save(self, remaining: tuple[int, ...], dealt: int) -> None:
        self.connection.execute(
            update(prize_pool)
            .where(prize_pool.c.id == POOL_ROW)
            .values(remaining=json.dumps(list(remaining)), dealt=dealt)
        )
