"""Money movements asked for with an Idempotency-Key: the key is stored with the movement, at
most once an account, so a retried deposit or withdrawal moves the money once.

Revision ID: 0030
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0030"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("ledger") as batch:
        batch.add_column(sa.Column("idempotency_key", sa.String(255), nullable=True))
        batch.create_index(
            "uq_ledger_account_id_idempotency_key",
            ["account_id", "idempotency_key"],
            unique=True,
        )


def downgrade() -> None:
    with op.batch_alter_table("ledger") as batch:
        batch.drop_index("uq_ledger_account_id_idempotency_key")
        batch.drop_column("idempotency_key")
