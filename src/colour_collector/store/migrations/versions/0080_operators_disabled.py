"""Operators can be disabled (``colour-collector operator disable``): a departing operator's
account stays, for the audit log's sake, but can no longer log in to the console.

Revision ID: 0080
Revises: 0070
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from colour_collector.store.tables import UtcDateTime

revision: str = "0080"
down_revision: str | None = "0070"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("operators", sa.Column("disabled_at", UtcDateTime, nullable=True))


def downgrade() -> None:
    # Without the column a disabled operator could log in again: its sessions are already
    # gone, but the account must not come back by a downgrade; remove what it can reach.
    op.execute(
        "DELETE FROM operator_sessions WHERE operator_id IN"
        " (SELECT id FROM operators WHERE disabled_at IS NOT NULL)"
    )
    # Not a batch (SQLite would copy the table, which operator_sessions' foreign key forbids):
    # both databases drop a column in place (SQLite since 3.35).
    op.execute("ALTER TABLE operators DROP COLUMN disabled_at")
