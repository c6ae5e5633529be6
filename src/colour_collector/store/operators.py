"""Operator accounts and their console sessions."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from colour_collector.service.errors import OperatorNameTakenError
from colour_collector.service.protection_models import (
    Operator,
    OperatorRole,
    OperatorSession,
    StoredOperator,
)
from colour_collector.store.tables import operator_sessions, operators


def _operator(row: Any) -> Operator:
    return Operator(row.id, row.name, OperatorRole(row.role), row.created_at, row.disabled_at)


def _session(row: Any) -> OperatorSession:
    return OperatorSession(row.token_hash, row.operator_id, row.created_at, row.expires_at)


class SqlOperators:
    """Implements ``service.ports.Operators``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(
        self, *, name: str, password_hash: str, role: OperatorRole, created_at: dt.datetime
    ) -> Operator:
        try:
            with self.connection.begin_nested():
                new_id = self.connection.execute(
                    insert(operators)
                    .values(
                        name=name,
                        password_hash=password_hash,
                        role=role.value,
                        created_at=created_at,
                    )
                    .returning(operators.c.id)
                ).scalar_one()
        except IntegrityError:
            raise OperatorNameTakenError(f"an operator named {name!r} already exists") from None
        return Operator(new_id, name, role, created_at)

    def by_name(self, name: str) -> StoredOperator | None:
        row = self.connection.execute(select(operators).where(operators.c.name == name)).first()
        return None if row is None else StoredOperator(_operator(row), row.password_hash)

    def get(self, operator_id: int) -> Operator | None:
        row = self.connection.execute(
            select(operators).where(operators.c.id == operator_id)
        ).first()
        return None if row is None else _operator(row)

    def all(self) -> Sequence[Operator]:
        rows = self.connection.execute(select(operators).order_by(operators.c.name))
        return [_operator(row) for row in rows]

    def add_session(self, session: OperatorSession) -> None:
        self.connection.execute(
            insert(operator_sessions).values(
                token_hash=session.token_hash,
                operator_id=session.operator_id,
                created_at=session.created_at,
                expires_at=session.expires_at,
            )
        )

    def session(self, token_hash: str, now: dt.datetime) -> OperatorSession | None:
        row = self.connection.execute(
            select(operator_sessions).where(
                operator_sessions.c.token_hash == token_hash,
                operator_sessions.c.expires_at > now,
            )
        ).first()
        return None if row is None else _session(row)

    def remove_session(self, token_hash: str) -> OperatorSession | None:
        row = self.connection.execute(
            delete(operator_sessions)
            .where(operator_sessions.c.token_hash == token_hash)
            .returning(*operator_sessions.c)
        ).first()
        return None if row is None else _session(row)

    def disable(self, operator_id: int, at: dt.datetime) -> int:
        self.connection.execute(
            update(operators).where(operators.c.id == operator_id).values(disabled_at=at)
        )
        ended = self.connection.execute(
            delete(operator_sessions).where(operator_sessions.c.operator_id == operator_id)
        )
        return int(ended.rowcount)
