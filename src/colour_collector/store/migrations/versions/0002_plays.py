"""Plays, Try plays and the finite prize pool.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from colour_collector.store.tables import UtcDateTime

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "plays",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("play_number", sa.String(16), nullable=False),
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("revealed", sa.Integer, nullable=False),
        sa.Column("steps", sa.Integer, nullable=False),
        sa.Column("tier_index", sa.Integer, nullable=True),
        sa.Column("prize_pence", sa.BigInteger, nullable=False),
        sa.Column("price_pence", sa.BigInteger, nullable=False),
        sa.Column("idempotency_key", sa.String(255), nullable=True),
        sa.Column("balance_before_pence", sa.BigInteger, nullable=False),
        sa.Column("balance_after_pence", sa.BigInteger, nullable=True),
        sa.Column("purchased_at", UtcDateTime, nullable=False),
        sa.Column("finish_by", UtcDateTime, nullable=False),
        sa.Column("finished_at", UtcDateTime, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_plays"),
        sa.UniqueConstraint("play_number", name="uq_plays_play_number"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_plays_account_id_accounts"
        ),
    )
    op.create_index("ix_plays_account_id_id", "plays", ["account_id", "id"])
    op.create_index("ix_plays_status_finish_by", "plays", ["status", "finish_by"])
    op.create_index(
        "uq_plays_account_id_idempotency_key",
        "plays",
        ["account_id", "idempotency_key"],
        unique=True,
    )
    op.create_table(
        "try_plays",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("client", sa.String(255), nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("revealed", sa.Integer, nullable=False),
        sa.Column("steps", sa.Integer, nullable=False),
        sa.Column("prize_pence", sa.BigInteger, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("finished_at", UtcDateTime, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_try_plays"),
        sa.UniqueConstraint("token_hash", name="uq_try_plays_token_hash"),
    )
    op.create_index("ix_try_plays_created_at", "try_plays", ["created_at"])
    op.create_index("ix_try_plays_client_created_at", "try_plays", ["client", "created_at"])
    op.create_table(
        "prize_pool",
        sa.Column("id", sa.Integer, autoincrement=False, nullable=False),
        sa.Column("remaining", sa.Text, nullable=False),
        sa.Column("dealt", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_prize_pool"),
    )


def downgrade() -> None:
    for table in ("prize_pool", "try_plays", "plays"):
        op.drop_table(table)
