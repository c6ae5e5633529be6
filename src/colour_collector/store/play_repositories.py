"""Repositories for purchased plays, Try plays and the finite prize pool."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import (
    Connection,
    Integer,
    Text,
    and_,
    bindparam,
    case,
    delete,
    exists,
    func,
    insert,
    null,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from colour_collector.service.errors import DuplicatePlayError
from colour_collector.service.models import AccountId, NewAuditEntry, Pence
from colour_collector.service.play_models import PlayStatus, PurchaseState, StoredPlay, TryPlay
from colour_collector.store import audit_chain
from colour_collector.store.prepared import Prepared
from colour_collector.store.tables import (
    UtcDateTime,
    ledger,
    plays,
    prize_pool,
    sessions,
    try_plays,
)

POOL_ROW = 1
"""Id of the single prize pool row."""

# Statements run on every step, prepared once (see ``repositories``); values bound at execution.
_SELECT_PLAY = select(plays).where(plays.c.play_number == bindparam("play_number"))
_PLAY_BY_NUMBER = Prepared(_SELECT_PLAY)
_LOCK_PLAY_BY_NUMBER = Prepared(_SELECT_PLAY.with_for_update())
# A step's look-up: the session and the play in one statement. The record (kilobytes, which a
# step otherwise reads, sends and decodes every time) is left out when the caller holds it already.
_RECORD_UNLESS_KNOWN = case(
    (
        and_(
            plays.c.revealed == bindparam("known_revealed"),
            plays.c.status == PlayStatus.IN_PROGRESS.value,
        ),
        null(),
    ),
    else_=plays.c.record,
).label("record")
_LOCK_PLAY_FOR_SESSION = Prepared(
    select(*[_RECORD_UNLESS_KNOWN if c.name == "record" else c for c in plays.c])
    .where(plays.c.play_number == bindparam("play_number"))
    .join(sessions, sessions.c.account_id == plays.c.account_id)
    .where(
        sessions.c.token_hash == bindparam("token_hash"), sessions.c.expires_at > bindparam("now")
    )
    .with_for_update(of=plays)
)
# A purchase's reads after it locked the account, in one statement (each part uses an index:
# plays by (account_id, idempotency_key) and (account_id, status, id), the ledger by
# (account_id, amount_pence)).
_BEFORE_PURCHASE = Prepared(
    select(
        select(plays.c.id)
        .where(
            plays.c.account_id == bindparam("account_id"),
            plays.c.idempotency_key == bindparam("key"),
        )
        .scalar_subquery()
        .label("earlier_id"),
        select(plays.c.id)
        .where(
            plays.c.account_id == bindparam("account_id"),
            plays.c.status == PlayStatus.IN_PROGRESS.value,
        )
        .order_by(plays.c.id.desc())
        .limit(1)
        .scalar_subquery()
        .label("unfinished_id"),
        select(func.coalesce(func.sum(ledger.c.amount_pence), 0))
        .where(ledger.c.account_id == bindparam("account_id"))
        .scalar_subquery()
        .label("balance"),
    )
)
_PLAY_BY_ID = Prepared(select(plays).where(plays.c.id == bindparam("play_id")))
_UNFINISHED_PLAY = Prepared(
    select(plays)
    .where(
        plays.c.account_id == bindparam("account_id"),
        plays.c.status == PlayStatus.IN_PROGRESS.value,
    )
    .order_by(plays.c.id.desc())
    .limit(1)
)
_ADD_PLAY = Prepared(
    insert(plays)
    .values({column.name: bindparam(column.name) for column in plays.c if column.name != "id"})
    .returning(plays.c.id)
)
_ADVANCE_PLAY = Prepared(
    update(plays).where(plays.c.id == bindparam("play_id")).values(revealed=bindparam("p_revealed"))
)
# A step from the play as the server process kept it (``advance_kept``): written only while the
# stored play is still as kept and a live session of its owner asks. SQLite: the update, then the
# audit append in the same transaction. PostgreSQL: both in one statement, the whole transaction.
_KEPT_PLAY_MOVES_ON = (
    plays.c.id == bindparam("k_play_id"),
    plays.c.account_id == bindparam("k_account_id"),
    plays.c.revealed == bindparam("k_revealed"),
    plays.c.status == PlayStatus.IN_PROGRESS.value,
    exists().where(
        sessions.c.token_hash == bindparam("k_token_hash"),
        sessions.c.account_id == plays.c.account_id,
        sessions.c.expires_at > bindparam("k_now"),
    ),
)
_ADVANCE_KEPT = Prepared(
    update(plays)
    .where(*_KEPT_PLAY_MOVES_ON)
    .values(
        revealed=plays.c.revealed + 1,
        record=func.coalesce(bindparam("k_record", type_=Text()), plays.c.record),
    )
)
_ADVANCE_KEPT_AND_AUDIT = Prepared(
    audit_chain.after(
        "moved",
        f"""UPDATE plays SET revealed = plays.revealed + 1,
        record = COALESCE(CAST(:k_record AS TEXT), plays.record)
    WHERE plays.id = CAST(:k_play_id AS INTEGER)
      AND plays.account_id = CAST(:e_account_id AS INTEGER)
      AND plays.revealed = CAST(:k_revealed AS INTEGER)
      AND plays.status = '{PlayStatus.IN_PROGRESS.value}'
      AND EXISTS (SELECT FROM sessions WHERE sessions.token_hash = CAST(:k_token_hash AS VARCHAR)
                  AND sessions.account_id = plays.account_id AND sessions.expires_at > :k_now)
    RETURNING plays.id""",
    )
    .bindparams(bindparam("k_now", type_=UtcDateTime()))
    .columns(seq=Integer)
)
_UPDATE_PLAY = Prepared(
    update(plays)
    .where(plays.c.id == bindparam("play_id"))
    .values(
        record=bindparam("p_record"),
        revealed=bindparam("p_revealed"),
        status=bindparam("p_status"),
        balance_after_pence=bindparam("p_balance_after_pence"),
        finished_at=bindparam("p_finished_at"),
    )
)


def _play(row: Any) -> StoredPlay:
    return StoredPlay(
        id=row.id,
        play_number=row.play_number,
        account_id=row.account_id,
        status=PlayStatus(row.status),
        record=row.record,
        revealed=row.revealed,
        steps=row.steps,
        tier_index=row.tier_index,
        prize_pence=row.prize_pence,
        price_pence=row.price_pence,
        idempotency_key=row.idempotency_key,
        balance_before_pence=row.balance_before_pence,
        balance_after_pence=row.balance_after_pence,
        purchased_at=row.purchased_at,
        finish_by=row.finish_by,
        finished_at=row.finished_at,
    )


class SqlPlayRepository:
    """Implements ``PlayRepository``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(self, play: StoredPlay) -> StoredPlay:
        values = {
            "play_number": play.play_number,
            "account_id": play.account_id,
            "status": play.status.value,
            "record": play.record,
            "revealed": play.revealed,
            "steps": play.steps,
            "tier_index": play.tier_index,
            "prize_pence": play.prize_pence,
            "price_pence": play.price_pence,
            "idempotency_key": play.idempotency_key,
            "balance_before_pence": play.balance_before_pence,
            "balance_after_pence": play.balance_after_pence,
            "purchased_at": play.purchased_at,
            "finish_by": play.finish_by,
            "finished_at": play.finished_at,
        }
        # No savepoint: a clash fails the whole purchase, whose transaction is rolled back.
        try:
            new_id = _ADD_PLAY.scalar(self.connection, values)
        except IntegrityError as error:
            if not _about_plays(error):  # a statement queued before this one failed
                raise
            raise DuplicatePlayError(
                f"play {play.play_number!r} clashes with a stored play"
            ) from None
        if new_id is None:
            raise RuntimeError("the play insert returned no id")
        return _replace_id(play, new_id)

    def advance(self, play_id: int, revealed: int) -> None:
        # The record is left alone: rewriting its text (several kilobytes) costs most of a step.
        _ADVANCE_PLAY.send(self.connection, {"play_id": play_id, "p_revealed": revealed})

    def advance_kept(
        self,
        play: StoredPlay,
        *,
        token_hash: str,
        now: dt.datetime,
        record: str | None,
        entry: NewAuditEntry,
    ) -> bool:
        if entry.account_id != play.account_id:
            raise ValueError("the audit entry of a step names the play's account")
        kept = {
            "k_play_id": play.id,
            "k_revealed": play.revealed,
            "k_token_hash": token_hash,
            "k_now": now,
            "k_record": record,
        }
        if self.connection.dialect.name == "postgresql":
            # the entry's account is the play's: e_account_id stands for both
            values = {**kept, **audit_chain.values(entry)}
            return _ADVANCE_KEPT_AND_AUDIT.first_alone(self.connection, values) is not None
        moved = _ADVANCE_KEPT.execute(self.connection, {**kept, "k_account_id": play.account_id})
        if moved != 1:
            return False
        audit_chain.append(self.connection, entry)
        return True

    def get(self, play_number: str, *, lock: bool = False) -> StoredPlay | None:
        query = _LOCK_PLAY_BY_NUMBER if lock else _PLAY_BY_NUMBER
        row = query.first(self.connection, {"play_number": play_number})
        return None if row is None else _play(row)

    def locked_for_session(
        self,
        token_hash: str,
        play_number: str,
        now: dt.datetime,
        known: tuple[int, str] | None = None,
    ) -> StoredPlay | None:
        row = _LOCK_PLAY_FOR_SESSION.first(
            self.connection,
            {
                "token_hash": token_hash,
                "play_number": play_number,
                "now": now,
                "known_revealed": -1 if known is None else known[0],
            },
        )
        if row is None:
            return None
        if row.record is None:  # in progress at the known step: the known record is its record
            if known is None:
                raise RuntimeError(f"play {play_number} has no record")
            row = row._replace(record=known[1])
        return _play(row)

    def before_purchase(self, account_id: AccountId, idempotency_key: str | None) -> PurchaseState:
        found = _BEFORE_PURCHASE.first(
            self.connection, {"account_id": account_id, "key": idempotency_key}
        )
        assert found is not None  # a SELECT of three values: always one row
        earlier = self._by_id(found.earlier_id)
        if earlier is not None and found.unfinished_id == earlier.id:
            unfinished: StoredPlay | None = earlier  # a retried purchase of the play in progress
        else:
            unfinished = self._by_id(found.unfinished_id)
        return PurchaseState(earlier, unfinished, int(found.balance))

    def _by_id(self, play_id: int | None) -> StoredPlay | None:
        if play_id is None:
            return None
        row = _PLAY_BY_ID.first(self.connection, {"play_id": play_id})
        return None if row is None else _play(row)

    def unfinished(self, account_id: AccountId) -> StoredPlay | None:
        row = _UNFINISHED_PLAY.first(self.connection, {"account_id": account_id})
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

    def update(
        self,
        play_id: int,
        *,
        record: str,
        revealed: int,
        status: PlayStatus,
        balance_after_pence: Pence | None,
        finished_at: dt.datetime | None,
    ) -> None:
        _UPDATE_PLAY.send(
            self.connection,
            {
                "play_id": play_id,
                "p_record": record,
                "p_revealed": revealed,
                "p_status": status.value,
                "p_balance_after_pence": balance_after_pence,
                "p_finished_at": finished_at,
            },
        )


def _about_plays(error: IntegrityError) -> bool:
    """Whether ``error`` is a constraint of the plays table (PostgreSQL names the table; SQLite
    names the column as ``plays.<column>``)."""
    table = getattr(getattr(error.orig, "diag", None), "table_name", None)
    if table is not None:
        return bool(table == "plays")
    return "plays." in str(error.orig)


def _replace_id(play: StoredPlay, new_id: int) -> StoredPlay:
    return replace(play, id=new_id)


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


class SqlTryRepository:
    """Implements ``TryRepository``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(self, token_hash: str, play: TryPlay, client: str) -> TryPlay:
        new_id = self.connection.execute(
            insert(try_plays)
            .values(
                token_hash=token_hash,
                client=client,
                record=play.record,
                revealed=play.revealed,
                steps=play.steps,
                prize_pence=play.prize_pence,
                created_at=play.created_at,
                finished_at=play.finished_at,
            )
            .returning(try_plays.c.id)
        ).scalar_one()
        return TryPlay(
            new_id, play.record, play.revealed, play.steps, play.prize_pence, play.created_at, None
        )

    def get(self, token_hash: str, *, lock: bool = False) -> TryPlay | None:
        query = select(try_plays).where(try_plays.c.token_hash == token_hash)
        if lock:
            query = query.with_for_update()
        row = self.connection.execute(query).first()
        return None if row is None else _try(row)

    def update(
        self, play_id: int, *, record: str, revealed: int, finished_at: dt.datetime | None
    ) -> None:
        self.connection.execute(
            update(try_plays)
            .where(try_plays.c.id == play_id)
            .values(record=record, revealed=revealed, finished_at=finished_at)
        )

    def started_since(self, client: str, since: dt.datetime) -> int:
        return int(
            self.connection.execute(
                select(func.count())
                .select_from(try_plays)
                .where(try_plays.c.client == client, try_plays.c.created_at >= since)
            ).scalar_one()
        )

    def delete_before(self, before: dt.datetime) -> int:
        result = self.connection.execute(delete(try_plays).where(try_plays.c.created_at < before))
        return int(getattr(result, "rowcount", 0) or 0)


class SqlPoolRepository:
    """Implements ``PoolRepository``: one row holding the remaining counts as JSON."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def lock(self) -> tuple[int, ...] | None:
        row = self.connection.execute(
            select(prize_pool.c.remaining).where(prize_pool.c.id == POOL_ROW).with_for_update()
        ).first()
        if row is None:
            return None
        return tuple(int(n) for n in json.loads(row.remaining))

    def create_if_missing(self, remaining: tuple[int, ...]) -> bool:
        try:
            with self.connection.begin_nested():
                self.connection.execute(
                    insert(prize_pool).values(
                        id=POOL_ROW, remaining=json.dumps(list(remaining)), dealt=0
                    )
                )
        except IntegrityError:  # another process stored it first
            return False
        return True

    def save(self, remaining: tuple[int, ...], dealt: int) -> None:
        text = json.dumps(list(remaining))
        changed = self.connection.execute(
            update(prize_pool)
            .where(prize_pool.c.id == POOL_ROW)
            .values(remaining=text, dealt=dealt)
        )
        if not getattr(changed, "rowcount", 0):
            self.connection.execute(
                insert(prize_pool).values(id=POOL_ROW, remaining=text, dealt=dealt)
            )
