"""Player protection and the operator's side: protection settings, deposit limits, exclusions,
reality checks, the sales switch (one row, on sale), payments, operators and their console
sessions, audit chain checks.

Revision ID: 0040
Revises: 0031
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from colour_collector.store.tables import UtcDateTime

revision: str = "0040"
down_revision: str | None = "0031"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_protection",
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("limits_answered_at", UtcDateTime, nullable=True),
        sa.Column("reality_check_minutes", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("account_id", name="pk_player_protection"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_player_protection_account_id_accounts"
        ),
    )
    op.create_table(
        "deposit_limits",
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("period", sa.String(16), nullable=False),
        sa.Column("amount_pence", sa.BigInteger, nullable=True),
        sa.Column("requested_at", UtcDateTime, nullable=True),
        sa.Column("requested_pence", sa.BigInteger, nullable=True),
        sa.PrimaryKeyConstraint("account_id", "period", name="pk_deposit_limits"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_deposit_limits_account_id_accounts"
        ),
    )
    op.create_table(
        "exclusions",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("starts_at", UtcDateTime, nullable=False),
        sa.Column("ends_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_exclusions"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_exclusions_account_id_accounts"
        ),
    )
    op.create_index("ix_exclusions_account_id_ends_at", "exclusions", ["account_id", "ends_at"])
    op.create_table(
        "reality_checks",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("checked_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name="pk_reality_checks"),
        sa.ForeignKeyConstraint(
            ["token_hash"],
            ["sessions.token_hash"],
            name="fk_reality_checks_token_hash_sessions",
            ondelete="CASCADE",
        ),
    )
    sales = op.create_table(
        "game_sales",
        sa.Column("id", sa.Integer, autoincrement=False, nullable=False),
        sa.Column("on_sale", sa.Boolean, nullable=False),
        sa.Column("changed_at", UtcDateTime, nullable=True),
        sa.Column("changed_by", sa.String(64), nullable=True),
        sa.Column("reason", sa.String(500), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_game_sales"),
    )
    op.bulk_insert(sales, [{"id": 1, "on_sale": True}])
    op.create_table(
        "payments",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("amount_pence", sa.BigInteger, nullable=False),
        sa.Column("idempotency_key", sa.String(255), nullable=False),
        sa.Column("provider_reference", sa.String(255), nullable=False),
        sa.Column("movement_id", sa.Integer, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_payments"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_payments_account_id_accounts"
        ),
        sa.ForeignKeyConstraint(
            ["movement_id"], ["ledger.id"], name="fk_payments_movement_id_ledger"
        ),
    )
    op.create_index(
        "uq_payments_account_id_kind_idempotency_key",
        "payments",
        ["account_id", "kind", "idempotency_key"],
        unique=True,
    )
    op.create_table(
        "operators",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_operators"),
        sa.UniqueConstraint("name", name="uq_operators_name"),
    )
    op.create_table(
        "operator_sessions",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("operator_id", sa.Integer, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("expires_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name="pk_operator_sessions"),
        sa.ForeignKeyConstraint(
            ["operator_id"], ["operators.id"], name="fk_operator_sessions_operator_id_operators"
        ),
    )
    op.create_index("ix_operator_sessions_operator_id", "operator_sessions", ["operator_id"])
    op.create_table(
        "audit_checks",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("checked_at", UtcDateTime, nullable=False),
        sa.Column("operator", sa.String(64), nullable=True),
        sa.Column("entries", sa.BigInteger, nullable=False),
        sa.Column("last_hash", sa.String(64), nullable=False),
        sa.Column("problem", sa.Text, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_audit_checks"),
    )


def downgrade() -> None:
    for table in (
        "audit_checks",
        "operator_sessions",
        "operators",
        "payments",
        "game_sales",
        "reality_checks",
        "exclusions",
        "deposit_limits",
        "player_protection",
    ):
        op.drop_table(table)
