"""Prize pools fixed by a secret: the pools loaded for sale, the checkpoints of closed ones, and
each play's pool and position. The single remaining-counts row of the old finite pool goes.

Revision ID: 0050
Revises: 0040
Create Date: 2026-12-15
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from colour_collector.store.tables import UtcDateTime

revision: str = "0050"
down_revision: str | None = "0040"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "pools",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("parameters", sa.Text, nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("sealed_secret", sa.String(64), nullable=False),
        sa.Column("secret", sa.String(64), nullable=True),
        sa.Column("remaining", sa.Text, nullable=False),
        sa.Column("dealt", sa.BigInteger, nullable=False),
        sa.Column("loaded_at", UtcDateTime, nullable=False),
        sa.Column("started_at", UtcDateTime, nullable=True),
        sa.Column("sold_out_at", UtcDateTime, nullable=True),
        sa.Column("closed_at", UtcDateTime, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_pools"),
        sa.UniqueConstraint("commitment", name="uq_pools_commitment"),
    )
    op.create_table(
        "pool_checkpoints",
        sa.Column("pool_id", sa.Integer, nullable=False),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("remaining", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("pool_id", "position", name="pk_pool_checkpoints"),
        sa.ForeignKeyConstraint(
            ["pool_id"], ["pools.id"], name="fk_pool_checkpoints_pool_id_pools"
        ),
    )
    with op.batch_alter_table("plays") as batch:
        batch.add_column(sa.Column("pool_id", sa.Integer, nullable=True))
        batch.add_column(sa.Column("pool_position", sa.BigInteger, nullable=True))
        batch.create_foreign_key("fk_plays_pool_id_pools", "pools", ["pool_id"], ["id"])
        batch.create_index(
            "uq_plays_pool_id_pool_position", ["pool_id", "pool_position"], unique=True
        )
    op.drop_table("prize_pool")


def downgrade() -> None:
    op.create_table(
        "prize_pool",
        sa.Column("id", sa.Integer, autoincrement=False, nullable=False),
        sa.Column("remaining", sa.Text, nullable=False),
        sa.Column("dealt", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_prize_pool"),
    )
    with op.batch_alter_table("plays") as batch:
        batch.drop_index("uq_plays_pool_id_pool_position")
        batch.drop_constraint("fk_plays_pool_id_pools", type_="foreignkey")
        batch.drop_column("pool_position")
        batch.drop_column("pool_id")
    op.drop_table("pool_checkpoints")
    op.drop_table("pools")
