"""The links mailed to accounts' addresses (to confirm an account or reset its password), and
the mails asked for per address."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update

from colour_collector.service.models import (
    AccountId,
    ConfirmationToken,
    MailRequest,
    TokenPurpose,
)
from colour_collector.store.tables import confirmation_tokens, mail_requests

_TOKEN = select(confirmation_tokens).where(
    confirmation_tokens.c.token_hash == bindparam("token_hash"),
    confirmation_tokens.c.purpose == bindparam("purpose"),
)
_USE_ALL = (
    update(confirmation_tokens)
    .where(
        confirmation_tokens.c.account_id == bindparam("of_account"),
        confirmation_tokens.c.purpose == bindparam("for_purpose"),
        confirmation_tokens.c.used_at.is_(None),
    )
    .values(used_at=bindparam("at"))
)
_ADD_TOKEN = insert(confirmation_tokens)
_ADD_REQUEST = insert(mail_requests)
_REQUESTS = (
    select(mail_requests.c.created_at, mail_requests.c.client)
    .where(
        mail_requests.c.email == bindparam("email"), mail_requests.c.created_at > bindparam("after")
    )
    .order_by(mail_requests.c.created_at)
)


def _token(row: Any) -> ConfirmationToken:
    return ConfirmationToken(
        token_hash=row.token_hash,
        account_id=row.account_id,
        created_at=row.created_at,
        expires_at=row.expires_at,
        used_at=row.used_at,
        purpose=TokenPurpose(row.purpose),
    )


class SqlConfirmationTokens:
    """Implements ``service.ports.ConfirmationTokens``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(self, token: ConfirmationToken) -> None:
        self.connection.execute(
            _ADD_TOKEN,
            {
                "token_hash": token.token_hash,
                "account_id": token.account_id,
                "created_at": token.created_at,
                "expires_at": token.expires_at,
                "used_at": token.used_at,
                "purpose": token.purpose.value,
            },
        )

    def get(self, token_hash: str, purpose: TokenPurpose) -> ConfirmationToken | None:
        row = self.connection.execute(
            _TOKEN, {"token_hash": token_hash, "purpose": purpose.value}
        ).first()
        return None if row is None else _token(row)

    def use_all(self, account_id: AccountId, at: dt.datetime, purpose: TokenPurpose) -> int:
        done = self.connection.execute(
            _USE_ALL, {"of_account": account_id, "for_purpose": purpose.value, "at": at}
        )
        return done.rowcount


class SqlMailThrottle:
    """Implements ``service.ports.MailThrottle``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def add(self, *, email: str, client: str, at: dt.datetime) -> None:
        self.connection.execute(_ADD_REQUEST, {"email": email, "client": client, "created_at": at})

    def requests(self, *, email: str, after: dt.datetime) -> tuple[MailRequest, ...]:
        rows = self.connection.execute(_REQUESTS, {"email": email, "after": after})
        return tuple(MailRequest(at=row.created_at, client=row.client) for row in rows)

    def forget_before(self, before: dt.datetime) -> int:
        done = self.connection.execute(
            delete(mail_requests).where(mail_requests.c.created_at < before)
        )
        return done.rowcount
