"""Prize pools loaded for sale and the checkpoints of closed ones."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from colour_collector.service.errors import DamagedRowError, DuplicatePoolError
from colour_collector.service.pool_models import Checkpoint, PoolId, StoredPool
from colour_collector.store.tables import pool_checkpoints, pools

_FIELDS = tuple(f.name for f in fields(StoredPool))
CHANGING = (
    "remaining",
    "dealt",
    "started_at",
    "sold_out_at",
    "sealed_secret",
    "secret",
    "closed_at",
)
"""What changes as a pool sells and closes; the rest is fixed when it is loaded."""

# Statements are built once, values bound when they run (see ``store.accounts``).
_POOL = select(pools).where(pools.c.id == bindparam("pool_id"))
_POOL_FOR_UPDATE = _POOL.with_for_update()
_WAITING = pools.c.closed_at.is_(None) & (pools.c.dealt < pools.c.size)
_ON_SALE = select(pools).where(_WAITING).order_by(pools.c.id).limit(1)
# PostgreSQL locks the first waiting pool; a dealer that waited for the lock sees the row as the
# dealer before it left it, and if that one sold it out, the row no longer matches and the next
# waiting pool is taken (the lock is taken before the LIMIT counts the row).
_ON_SALE_FOR_UPDATE = _ON_SALE.with_for_update()
_SAVE = (
    update(pools)
    .where(pools.c.id == bindparam("pool_id"))
    .values({name: bindparam(f"new_{name}") for name in CHANGING})
)
_CHECKPOINT = (
    select(pool_checkpoints.c.position, pool_checkpoints.c.remaining)
    .where(
        pool_checkpoints.c.pool_id == bindparam("pool_id"),
        pool_checkpoints.c.position <= bindparam("position"),
    )
    .order_by(pool_checkpoints.c.position.desc())
    .limit(1)
)


SHOWN_CHARACTERS = 40
"""How much of a damaged value its error shows."""


def _damaged(where: str, name: str, value: object, wanted: str) -> DamagedRowError:
    shown = repr(value)
    if len(shown) > SHOWN_CHARACTERS:
        shown = shown[:SHOWN_CHARACTERS] + "..."
    return DamagedRowError(
        f"the database's row of {where} is damaged: its {name} is {shown}, not {wanted} (restore"
        " the row from a backup)"
    )


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _counts(text: object, where: str) -> tuple[int, ...]:
    """The counts stored as a JSON list of integers; ``DamagedRowError`` naming ``where`` if the
    text is not one (whether they add up is the close's check)."""
    try:
        found = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        found = None
    if not isinstance(found, list) or not all(_integer(n) for n in found):
        raise _damaged(where, "remaining", text, "a JSON list of counts")
    return tuple(found)


def _pool(row: Any) -> StoredPool:
    values = row._mapping
    where = f"pool {values['id']}"
    for name in ("size", "dealt"):
        if not _integer(values[name]):
            raise _damaged(where, name, values[name], "an integer")
    return StoredPool(
        **{name: values[name] for name in _FIELDS if name != "remaining"},
        remaining=_counts(values["remaining"], where),
    )


class SqlPools:
    """Implements ``service.ports.Pools``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def _one(self, statement: Any, **values: Any) -> StoredPool | None:
        row = self.connection.execute(statement, values).first()
        return None if row is None else _pool(row)

    def add(self, pool: StoredPool) -> StoredPool:
        values = {name: getattr(pool, name) for name in _FIELDS if name != "id"}
        values["remaining"] = json.dumps(list(pool.remaining))
        try:
            with self.connection.begin_nested():
                new_id = self.connection.execute(
                    insert(pools).returning(pools.c.id), values
                ).scalar_one()
        except IntegrityError:
            raise DuplicatePoolError(
                f"a pool with commitment {pool.commitment!r} is loaded"
            ) from None
        return replace(pool, id=new_id)

    def get(self, pool_id: PoolId) -> StoredPool | None:
        return self._one(_POOL, pool_id=pool_id)

    def get_for_update(self, pool_id: PoolId) -> StoredPool | None:
        return self._one(_POOL_FOR_UPDATE, pool_id=pool_id)

    def by_commitment(self, commitment: str) -> StoredPool | None:
        return self._one(select(pools).where(pools.c.commitment == commitment))

    def on_sale(self) -> StoredPool | None:
        return self._one(_ON_SALE)

    def on_sale_for_update(self) -> StoredPool | None:
        return self._one(_ON_SALE_FOR_UPDATE)

    def unsold(self) -> Sequence[StoredPool]:
        rows = self.connection.execute(select(pools).where(_WAITING).order_by(pools.c.id))
        return [_pool(row) for row in rows]

    def newest(self, limit: int) -> Sequence[StoredPool]:
        rows = self.connection.execute(select(pools).order_by(pools.c.id.desc()).limit(limit))
        return [_pool(row) for row in rows]

    def save(self, pool: StoredPool) -> None:
        values = {f"new_{name}": getattr(pool, name) for name in CHANGING}
        values["new_remaining"] = json.dumps(list(pool.remaining))
        self.connection.execute(_SAVE, {**values, "pool_id": pool.id})

    def add_checkpoints(self, pool_id: PoolId, checkpoints: Sequence[Checkpoint]) -> None:
        if checkpoints:
            self.connection.execute(
                insert(pool_checkpoints),
                [
                    {"pool_id": pool_id, "position": position, "remaining": json.dumps(list(left))}
                    for position, left in checkpoints
                ],
            )

    def checkpoint(self, pool_id: PoolId, position: int) -> Checkpoint | None:
        row = self.connection.execute(
            _CHECKPOINT, {"pool_id": pool_id, "position": position}
        ).first()
        if row is None:
            return None
        return int(row.position), _counts(
            row.remaining, f"pool {pool_id}'s checkpoint at position {row.position}"
        )
