"""SQLAlchemy table definitions. The schema itself is created by the Alembic migrations in
``store/migrations``; these mirror it for the repositories (and for autogenerate)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
)

from colour_collector.service.clients import COUNTED_CLIENT_MAX


class UtcDateTime(TypeDecorator[dt.datetime]):
    """A timestamp stored in UTC and always read back timezone-aware.

    PostgreSQL keeps ``timestamptz``; SQLite stores naive UTC text, made aware again on read.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r} given; use timezone-aware UTC")
        utc = value.astimezone(dt.UTC)
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(self, value: Any, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if not isinstance(value, dt.datetime):
            raise TypeError(f"expected a datetime from the database, got {value!r}")
        if value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC)


NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING)

accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("email", String(254), nullable=False, unique=True),
    Column("password_hash", String(255), nullable=False),
    Column("date_of_birth", Date, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("email_confirmed_at", UtcDateTime, nullable=True),
)
"""Players' accounts; one with no ``email_confirmed_at`` cannot log in yet."""

confirmation_tokens = Table(
    "confirmation_tokens",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created_at", UtcDateTime, nullable=False),
    Column("expires_at", UtcDateTime, nullable=False),
    Column("used_at", UtcDateTime, nullable=True),
    # 'confirm' (registration) or 'reset' (a forgotten password): ``TokenPurpose``. The default
    # is what rows written before resets existed are.
    Column("purpose", String(16), nullable=False, server_default="confirm"),
)
"""The links mailed to accounts' addresses, to confirm an account or reset its password: the
SHA-256 of each token, never the token."""

mail_requests = Table(
    "mail_requests",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("email", String(254), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    # The client as the throttle counts it (its address; an IPv6 client's /64 network), at most
    # ``COUNTED_CLIENT_MAX`` characters; "" for the rows before it was kept.
    Column("client", String(COUNTED_CLIENT_MAX), nullable=False, server_default=""),
    Index("ix_mail_requests_email_created_at", "email", "created_at"),
)
"""Mails asked for (registrations, resends and password resets) per address and the client
that asked, for the throttle."""

sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created_at", UtcDateTime, nullable=False),
    Column("expires_at", UtcDateTime, nullable=False, index=True),
)

login_failures = Table(
    "login_failures",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("email", String(254), nullable=False),
    Column("client", String(255), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Index("ix_login_failures_email_created_at", "email", "created_at"),
    Index("ix_login_failures_client_created_at", "client", "created_at"),
)

ledger = Table(
    "ledger",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("amount_pence", BigInteger, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("reference", String(255), nullable=True),
    Column("created_at", UtcDateTime, nullable=False),
    Column("idempotency_key", String(255), nullable=True),
    Index("ix_ledger_account_id_id", "account_id", "id"),
    Index("uq_ledger_account_id_idempotency_key", "account_id", "idempotency_key", unique=True),
    # Covers the balance (the sum of an account's amounts) without reading the rows.
    Index("ix_ledger_account_id_amount_pence", "account_id", "amount_pence"),
)

audit_log = Table(
    "audit_log",
    metadata,
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("account_id", Integer, nullable=True, index=True),
    Column("payload", Text, nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False, unique=True),
)

audit_head = Table(
    "audit_head",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("seq", BigInteger, nullable=False),
    Column("hash", String(64), nullable=False),
)
"""A single row (id=1) naming the last entry; appenders lock it to serialise, and a trigger on
``audit_log`` (migration 0004) moves it to each entry stored."""

plays = Table(
    "plays",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("play_number", String(16), nullable=False, unique=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("status", String(16), nullable=False),
    Column("record", Text, nullable=False),
    Column("revealed", Integer, nullable=False),
    Column("steps", Integer, nullable=False),
    Column("tier_index", Integer, nullable=True),
    Column("prize_pence", BigInteger, nullable=False),
    Column("price_pence", BigInteger, nullable=False),
    Column("idempotency_key", String(255), nullable=True),
    Column("balance_before_pence", BigInteger, nullable=False),
    Column("balance_after_pence", BigInteger, nullable=True),
    Column("purchased_at", UtcDateTime, nullable=False),
    Column("finish_by", UtcDateTime, nullable=False),
    Column("finished_at", UtcDateTime, nullable=True),
    Column("pool_id", Integer, ForeignKey("pools.id"), nullable=True),
    Column("pool_position", BigInteger, nullable=True),
    Index("ix_plays_account_id_id", "account_id", "id"),
    Index("ix_plays_status_finish_by", "status", "finish_by"),
    # Finds an account's unfinished play without reading each of its finished plays.
    Index("ix_plays_account_id_status_id", "account_id", "status", "id"),
    Index("uq_plays_account_id_idempotency_key", "account_id", "idempotency_key", unique=True),
    # Each position of a pool is sold at most once, whichever process deals it.
    Index("uq_plays_pool_id_pool_position", "pool_id", "pool_position", unique=True),
)
"""Purchased plays: the whole record fixed at purchase, and how far the player has revealed it."""

try_plays = Table(
    "try_plays",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("client", String(255), nullable=False),
    Column("record", Text, nullable=False),
    Column("revealed", Integer, nullable=False),
    Column("steps", Integer, nullable=False),
    Column("prize_pence", BigInteger, nullable=False),
    Column("created_at", UtcDateTime, nullable=False, index=True),
    Column("finished_at", UtcDateTime, nullable=True),
    Index("ix_try_plays_client_created_at", "client", "created_at"),
)
"""Free Try plays: same rules and odds, no account, no wallet."""

pools = Table(
    "pools",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("commitment", String(64), nullable=False, unique=True),
    Column("parameters", Text, nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("sealed_secret", String(64), nullable=False),
    Column("secret", String(64), nullable=True),
    Column("remaining", Text, nullable=False),
    Column("dealt", BigInteger, nullable=False),
    Column("loaded_at", UtcDateTime, nullable=False),
    Column("started_at", UtcDateTime, nullable=True),
    Column("sold_out_at", UtcDateTime, nullable=True),
    Column("closed_at", UtcDateTime, nullable=True),
)
"""Prize pools loaded for sale, in the order they go on sale (``id``). The pool on sale is the
first neither sold out nor closed; each purchase locks its row to deal the next position. The
secret is stored sealed with the server's key until the pool closes and publishes it."""

player_protection = Table(
    "player_protection",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("limits_answered_at", UtcDateTime, nullable=True),
    Column("reality_check_minutes", Integer, nullable=False),
    Column("return_asked_at", UtcDateTime, nullable=True),
)
"""A player's protection settings (no row: the defaults)."""

deposit_limits = Table(
    "deposit_limits",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("period", String(16), primary_key=True),
    Column("amount_pence", BigInteger, nullable=True),
    Column("requested_at", UtcDateTime, nullable=True),
    Column("requested_pence", BigInteger, nullable=True),
)
"""Deposit limits in force per period, and an increase or removal waiting for confirmation."""

exclusions = Table(
    "exclusions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("starts_at", UtcDateTime, nullable=False),
    Column("ends_at", UtcDateTime, nullable=False),
    Index("ix_exclusions_account_id_ends_at", "account_id", "ends_at"),
)
"""Time-outs and self-exclusions: never updated or deleted."""

reality_checks = Table(
    "reality_checks",
    metadata,
    Column(
        "token_hash",
        String(64),
        ForeignKey("sessions.token_hash", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("checked_at", UtcDateTime, nullable=False),
)
"""When the player of a login session last continued after a reality check."""

game_sales = Table(
    "game_sales",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("on_sale", Boolean, nullable=False),
    Column("changed_at", UtcDateTime, nullable=True),
    Column("changed_by", String(64), nullable=True),
    Column("reason", String(500), nullable=True),
)
"""The sales switch: one row (id=1, made by migration 0040)."""

payments = Table(
    "payments",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("amount_pence", BigInteger, nullable=False),
    Column("idempotency_key", String(255), nullable=False),
    Column("provider_reference", String(255), nullable=False),
    Column("movement_id", Integer, ForeignKey("ledger.id"), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Index(
        "uq_payments_account_id_kind_idempotency_key",
        "account_id",
        "kind",
        "idempotency_key",
        unique=True,
    ),
)
"""Deposits and withdrawals through the payment provider, found again by Idempotency-Key."""

operators = Table(
    "operators",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("password_hash", String(255), nullable=False),
    Column("role", String(16), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("disabled_at", UtcDateTime, nullable=True),
)
"""Operator accounts (made by ``colour-collector operator add``)."""

operator_sessions = Table(
    "operator_sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("operator_id", Integer, ForeignKey("operators.id"), nullable=False, index=True),
    Column("created_at", UtcDateTime, nullable=False),
    Column("expires_at", UtcDateTime, nullable=False),
)
"""Console logins; only the SHA-256 of each token is stored."""

audit_checks = Table(
    "audit_checks",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("checked_at", UtcDateTime, nullable=False),
    Column("operator", String(64), nullable=True),
    Column("entries", BigInteger, nullable=False),
    Column("last_hash", String(64), nullable=False),
    Column("problem", Text, nullable=True),
)
"""Results of verifying the audit chain from the console."""


pool_checkpoints = Table(
    "pool_checkpoints",
    metadata,
    Column("pool_id", Integer, ForeignKey("pools.id"), primary_key=True),
    Column("position", BigInteger, primary_key=True),
    Column("remaining", Text, nullable=False),
)
"""What remained undealt before every 4,096th position of a closed pool, worked out from its
secret when it closed: a play is regenerated from the checkpoint before it."""
