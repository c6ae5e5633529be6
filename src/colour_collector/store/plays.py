"""Purchased plays and free Try plays."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from typing import Any

from sqlalchemy import (
    Connection,
    Select,
    Table,
    Update,
    bindparam,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from colour_collector.service.errors import DuplicatePlayError, PlayChangedError
from colour_collector.service.models import AccountId
from colour_collector.service.play_models import PlayStatus, StoredPlay, TryPlay
from colour_collector.service.pool_models import PoolId, SoldPlay, SoldRecord
from colour_collector.store.tables import plays, sessions, try_plays

# Statements are built once, values bound when they run (see ``store.accounts``).
_PLAY = select(plays).where(plays.c.play_number == bindparam("play_number"))
_ADD_PLAY = insert(plays).returning(plays.c.id)
_SESSION_PLAY_FOR_UPDATE = (
    select(plays)
    .join(sessions, sessions.c.account_id == plays.c.account_id)
    .where(
        plays.c.play_number == bindparam("play_number"),
        sessions.c.token_hash == bindparam("token_hash"),
        sessions.c.expires_at > bindparam("now"),
    )
    .with_for_update(of=plays)
)
_PLAY_FOR_UPDATE = _PLAY.with_for_update()
_BY_IDEMPOTENCY_KEY = select(plays).where(
    plays.c.account_id == bindparam("account_id"),
    plays.c.idempotency_key == bindparam("idempotency_key"),
)
_UNFINISHED = (
    select(plays)
    .where(
        plays.c.account_id == bindparam("account_id"),
        plays.c.status == PlayStatus.IN_PROGRESS.value,
    )
    .order_by(plays.c.id.desc())
    .limit(1)
)
_PLAY_FIELDS = tuple(f.name for f in fields(StoredPlay))
_PROGRESS = ("record", "revealed", "status", "balance_after_pence", "finished_at")
"""What changes as a play is revealed and settled; the rest is fixed at purchase."""
_TRY_PROGRESS = ("record", "revealed", "finished_at")


def _play(row: Any) -> StoredPlay:
    values = row._mapping
    return StoredPlay(
        **{name: values[name] for name in _PLAY_FIELDS if name != "status"},
        status=PlayStatus(values["status"]),
    )


@functools.cache
def _progress_update(table: Table, columns: tuple[str, ...]) -> Update:
    """``UPDATE table SET <columns> WHERE id = :was_id AND revealed = :was_revealed``."""
    return (
        update(table)
        .where(table.c.id == bindparam("was_id"), table.c.revealed == bindparam("was_revealed"))
        .values({name: bindparam(f"new_{name}") for name in columns})
    )


def _save(
    connection: Connection, table: Table, new: Any, was: Any, columns: tuple[str, ...]
) -> None:
    """Write the ``columns`` that changed from ``was`` to ``new``, only if the row is still at
    ``was.revealed`` (``PlayChangedError`` otherwise). A record text left unchanged is not
    written again: it is kilobytes, and most steps leave it as it was."""
    changed = tuple(name for name in columns if getattr(new, name) != getattr(was, name))
    values: dict[str, Any] = {f"new_{name}": getattr(new, name) for name in changed}
    if "status" in changed:
        values["new_status"] = new.status.value
    done = connection.execute(
        _progress_update(table, changed),
        {**values, "was_id": was.id, "was_revealed": was.revealed},
    )
    if done.rowcount != 1:
        raise PlayChangedError(f"the play moved on from step {was.revealed}; reload it")


def _sold(pool_id: PoolId, after: int, limit: int, *more: Any) -> Select[Any]:
    """The plays sold from a pool after position ``after``, by position: position, Play Number,
    tier and prize, then the columns ``more``."""
    return (
        select(
            plays.c.pool_position,
            plays.c.play_number,
            plays.c.tier_index,
            plays.c.prize_pence,
            *more,
        )
        .where(plays.c.pool_id == pool_id, plays.c.pool_position > after)
        .order_by(plays.c.pool_position)
        .limit(limit)
    )


class SqlPlays:
    """Implements ``service.ports.Plays``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(self, play: StoredPlay) -> StoredPlay:
        values = {name: getattr(play, name) for name in _PLAY_FIELDS if name != "id"}
        values["status"] = play.status.value
        try:
            new_id = self.connection.execute(_ADD_PLAY, values).scalar_one()
        except IntegrityError:
            raise DuplicatePlayError(
                f"play {play.play_number!r} clashes with a stored play"
            ) from None
        return replace(play, id=new_id)

    def get(self, play_number: str) -> StoredPlay | None:
        row = self.connection.execute(_PLAY, {"play_number": play_number}).first()
        return None if row is None else _play(row)

    def get_for_update(self, play_number: str) -> StoredPlay | None:
        row = self.connection.execute(_PLAY_FOR_UPDATE, {"play_number": play_number}).first()
        return None if row is None else _play(row)

    def session_play_for_update(
        self, token_hash: str, play_number: str, now: dt.datetime
    ) -> StoredPlay | None:
        row = self.connection.execute(
            _SESSION_PLAY_FOR_UPDATE,
            {"play_number": play_number, "token_hash": token_hash, "now": now},
        ).first()
        return None if row is None else _play(row)

    def by_idempotency_key(self, account_id: AccountId, key: str) -> StoredPlay | None:
        row = self.connection.execute(
            _BY_IDEMPOTENCY_KEY, {"account_id": account_id, "idempotency_key": key}
        ).first()
        return None if row is None else _play(row)

    def unfinished(self, account_id: AccountId) -> StoredPlay | None:
        row = self.connection.execute(_UNFINISHED, {"account_id": account_id}).first()
        return None if row is None else _play(row)

    def page(self, account_id: AccountId, offset: int, limit: int) -> Sequence[StoredPlay]:
        rows = self.connection.execute(
            select(plays)
            .where(plays.c.account_id == account_id)
            .order_by(plays.c.id.desc())
            .offset(offset)
            .limit(limit)
        )
        return [_play(row) for row in rows]

    def count(self, account_id: AccountId) -> int:
        return int(
            self.connection.execute(
                select(func.count()).select_from(plays).where(plays.c.account_id == account_id)
            ).scalar_one()
        )

    def due(self, now: dt.datetime, limit: int) -> Sequence[str]:
        rows = self.connection.execute(
            select(plays.c.play_number)
            .where(plays.c.status == PlayStatus.IN_PROGRESS.value, plays.c.finish_by <= now)
            .order_by(plays.c.finish_by)
            .limit(limit)
        )
        return [row.play_number for row in rows]

    def after(self, play_id: int, limit: int) -> Sequence[StoredPlay]:
        rows = self.connection.execute(
            select(plays).where(plays.c.id > play_id).order_by(plays.c.id).limit(limit)
        )
        return [_play(row) for row in rows]

    def unfinished_plays(self) -> Mapping[tuple[PoolId, int | None], int]:
        rows = self.connection.execute(
            select(plays.c.pool_id, plays.c.tier_index, func.count().label("plays"))
            .where(plays.c.status == PlayStatus.IN_PROGRESS.value, plays.c.pool_id.is_not(None))
            .group_by(plays.c.pool_id, plays.c.tier_index)
        )
        return {(row.pool_id, row.tier_index): int(row.plays) for row in rows}

    def unfinished_in_pool(self, pool_id: PoolId) -> tuple[int, dt.datetime | None]:
        row = self.connection.execute(
            select(func.count(), func.max(plays.c.finish_by)).where(
                plays.c.pool_id == pool_id, plays.c.status == PlayStatus.IN_PROGRESS.value
            )
        ).one()
        return int(row[0]), row[1]

    def count_in_pool(self, pool_id: PoolId) -> int:
        return int(
            self.connection.execute(
                select(func.count()).select_from(plays).where(plays.c.pool_id == pool_id)
            ).scalar_one()
        )

    def sold_from(self, pool_id: PoolId, after: int, limit: int) -> Sequence[SoldPlay]:
        rows = self.connection.execute(_sold(pool_id, after, limit))
        return [SoldPlay(*row) for row in rows]

    def records_from(self, pool_id: PoolId, after: int, limit: int) -> Sequence[SoldRecord]:
        rows = self.connection.execute(_sold(pool_id, after, limit, plays.c.record))
        return [SoldRecord(*row) for row in rows]

    def save(self, play: StoredPlay, *, was: StoredPlay) -> None:
        _save(self.connection, plays, play, was, _PROGRESS)


def _try(row: Any) -> TryPlay:
    return TryPlay(
        id=row.id,
        record=row.record,
        revealed=row.revealed,
        steps=row.steps,
        prize_pence=row.prize_pence,
        created_at=row.created_at,
        finished_at=row.finished_at,
    )


_TRY = select(try_plays).where(try_plays.c.token_hash == bindparam("token_hash"))
_TRY_FOR_UPDATE = _TRY.with_for_update()


class SqlTryPlays:
    """Implements ``service.ports.TryPlays``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(self, token_hash: str, play: TryPlay, client: str) -> TryPlay:
        new_id = self.connection.execute(
            insert(try_plays)
            .values(
                token_hash=token_hash,
                client=client[:255],
                record=play.record,
                revealed=play.revealed,
                steps=play.steps,
                prize_pence=play.prize_pence,
                created_at=play.created_at,
                finished_at=play.finished_at,
            )
            .returning(try_plays.c.id)
        ).scalar_one()
        return replace(play, id=new_id)

    def get(self, token_hash: str) -> TryPlay | None:
        row = self.connection.execute(_TRY, {"token_hash": token_hash}).first()
        return None if row is None else _try(row)

    def get_for_update(self, token_hash: str) -> TryPlay | None:
        row = self.connection.execute(_TRY_FOR_UPDATE, {"token_hash": token_hash}).first()
        return None if row is None else _try(row)

    def save(self, play: TryPlay, *, was: TryPlay) -> None:
        _save(self.connection, try_plays, play, was, _TRY_PROGRESS)

    def started_after(self, client: str, after: dt.datetime) -> int:
        return int(
            self.connection.execute(
                select(func.count())
                .select_from(try_plays)
                .where(try_plays.c.client == client[:255], try_plays.c.created_at > after)
            ).scalar_one()
        )

    def start_times(self, client: str, after: dt.datetime) -> tuple[dt.datetime, ...]:
        return tuple(
            self.connection.execute(
                select(try_plays.c.created_at)
                .where(try_plays.c.client == client[:255], try_plays.c.created_at > after)
                .order_by(try_plays.c.created_at)
            ).scalars()
        )

    def remove_before(self, before: dt.datetime) -> int:
        done = self.connection.execute(delete(try_plays).where(try_plays.c.created_at < before))
        return done.rowcount
