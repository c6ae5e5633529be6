"""Indexes for the two look-ups every purchase makes: the balance and the unfinished play.

Without them both read every earlier row of the account (its ledger movements, its plays with
their records), so a purchase slowed down as an account aged.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_ledger_account_id_amount_pence", "ledger", ["account_id", "amount_pence"])
    op.create_index("ix_plays_account_id_status_id", "plays", ["account_id", "status", "id"])


def downgrade() -> None:
    op.drop_index("ix_plays_account_id_status_id", table_name="plays")
    op.drop_index("ix_ledger_account_id_amount_pence", table_name="ledger")
