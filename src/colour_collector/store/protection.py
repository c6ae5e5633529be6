"""Players' protection: settings, deposit limits, exclusions and reality checks.

Writers hold the account's lock (``Accounts.get_for_update`` or a session read locking it), so
an update-then-insert cannot race another writer of the same player.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, union_all, update

from colour_collector.service.models import AccountId
from colour_collector.service.protection_models import (
    DEFAULT_REALITY_CHECK_MINUTES,
    DepositLimit,
    Exclusion,
    ExclusionKind,
    LimitPeriod,
    ProtectionSettings,
)
from colour_collector.store.tables import (
    deposit_limits,
    exclusions,
    player_protection,
    reality_checks,
)

_SETTINGS = select(player_protection).where(
    player_protection.c.account_id == bindparam("account_id")
)
_RUNNING_LAST = (
    select(exclusions)
    .where(
        exclusions.c.account_id == bindparam("account_id"), exclusions.c.ends_at > bindparam("now")
    )
    .order_by(exclusions.c.ends_at.desc())
    .limit(1)
    .subquery()
)
_LAST_SELF_EXCLUSION = (
    select(exclusions)
    .where(
        exclusions.c.account_id == bindparam("account_id"),
        exclusions.c.kind == ExclusionKind.SELF_EXCLUSION.value,
    )
    .order_by(exclusions.c.ends_at.desc())
    .limit(1)
    .subquery()
)
_CANDIDATES = union_all(select(_RUNNING_LAST), select(_LAST_SELF_EXCLUSION)).subquery()
_TO_CHECK = select(_CANDIDATES, player_protection.c.return_asked_at).outerjoin(
    player_protection, player_protection.c.account_id == _CANDIDATES.c.account_id
)
"""In one read, at most two rows: the running break that ends last and the last
self-exclusion (with when the player asked to play again)."""
_LAST_CHECK = select(reality_checks.c.checked_at).where(
    reality_checks.c.token_hash == bindparam("token_hash")
)


def _exclusion(row: Any, return_asked_at: dt.datetime | None = None) -> Exclusion:
    return Exclusion(
        id=row.id,
        account_id=row.account_id,
        kind=ExclusionKind(row.kind),
        starts_at=row.starts_at,
        ends_at=row.ends_at,
        return_asked_at=return_asked_at,
    )


class SqlPlayerProtections:
    """Implements ``service.ports.PlayerProtections``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def settings(self, account_id: AccountId) -> ProtectionSettings:
        row = self.connection.execute(_SETTINGS, {"account_id": account_id}).first()
        if row is None:
            return ProtectionSettings(account_id, None, DEFAULT_REALITY_CHECK_MINUTES)
        return ProtectionSettings(
            account_id, row.limits_answered_at, row.reality_check_minutes, row.return_asked_at
        )

    def save_settings(self, settings: ProtectionSettings) -> None:
        values = {
            "limits_answered_at": settings.limits_answered_at,
            "reality_check_minutes": settings.reality_check_minutes,
            "return_asked_at": settings.return_asked_at,
        }
        done = self.connection.execute(
            update(player_protection)
            .where(player_protection.c.account_id == settings.account_id)
            .values(**values)
        )
        if done.rowcount == 0:
            self.connection.execute(
                insert(player_protection).values(account_id=settings.account_id, **values)
            )

    def limits(self, account_id: AccountId) -> Sequence[DepositLimit]:
        rows = self.connection.execute(
            select(deposit_limits).where(deposit_limits.c.account_id == account_id)
        )
        return sorted(
            (
                DepositLimit(
                    account_id=row.account_id,
                    period=LimitPeriod(row.period),
                    amount_pence=None if row.amount_pence is None else int(row.amount_pence),
                    requested_at=row.requested_at,
                    requested_pence=(
                        None if row.requested_pence is None else int(row.requested_pence)
                    ),
                )
                for row in rows
            ),
            key=lambda limit: list(LimitPeriod).index(limit.period),
        )

    def save_limit(self, limit: DepositLimit) -> None:
        where = (deposit_limits.c.account_id == limit.account_id) & (
            deposit_limits.c.period == limit.period.value
        )
        if limit.amount_pence is None and limit.requested_at is None:
            self.connection.execute(delete(deposit_limits).where(where))
            return
        values = {
            "amount_pence": limit.amount_pence,
            "requested_at": limit.requested_at,
            "requested_pence": limit.requested_pence,
        }
        done = self.connection.execute(update(deposit_limits).where(where).values(**values))
        if done.rowcount == 0:
            self.connection.execute(
                insert(deposit_limits).values(
                    account_id=limit.account_id, period=limit.period.value, **values
                )
            )

    def add_exclusion(
        self,
        *,
        account_id: AccountId,
        kind: ExclusionKind,
        starts_at: dt.datetime,
        ends_at: dt.datetime,
    ) -> Exclusion:
        new_id = self.connection.execute(
            insert(exclusions)
            .values(account_id=account_id, kind=kind.value, starts_at=starts_at, ends_at=ends_at)
            .returning(exclusions.c.id)
        ).scalar_one()
        return Exclusion(new_id, account_id, kind, starts_at, ends_at)

    def exclusions(self, account_id: AccountId) -> Sequence[Exclusion]:
        rows = self.connection.execute(
            select(exclusions)
            .where(exclusions.c.account_id == account_id)
            .order_by(exclusions.c.starts_at.desc(), exclusions.c.id.desc())
        )
        return [_exclusion(row) for row in rows]

    def exclusions_to_check(self, account_id: AccountId, now: dt.datetime) -> Sequence[Exclusion]:
        rows = self.connection.execute(_TO_CHECK, {"account_id": account_id, "now": now})
        return [
            _exclusion(
                row, row.return_asked_at if row.kind == ExclusionKind.SELF_EXCLUSION.value else None
            )
            for row in rows
        ]

    def last_reality_check(self, token_hash: str) -> dt.datetime | None:
        found: dt.datetime | None = self.connection.execute(
            _LAST_CHECK, {"token_hash": token_hash}
        ).scalar()
        return found

    def record_reality_check(self, token_hash: str, at: dt.datetime) -> None:
        done = self.connection.execute(
            update(reality_checks)
            .where(reality_checks.c.token_hash == token_hash)
            .values(checked_at=at)
        )
        if done.rowcount == 0:
            self.connection.execute(
                insert(reality_checks).values(token_hash=token_hash, checked_at=at)
            )
