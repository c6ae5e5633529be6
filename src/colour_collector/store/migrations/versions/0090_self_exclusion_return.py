"""A self-exclusion no longer ends by itself: once its term is over it stays in place until the
player asks to play again, and a day after (LCCP SR code 3.5.3). When they asked is kept with
their protection settings.

Revision ID: 0090
Revises: 0080
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from colour_collector.store.tables import UtcDateTime

revision: str = "0090"
down_revision: str | None = "0080"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("player_protection", sa.Column("return_asked_at", UtcDateTime, nullable=True))


def downgrade() -> None:
    # Both databases drop a column in place (SQLite since 3.35), as 0080 does.
    op.execute("ALTER TABLE player_protection DROP COLUMN return_asked_at")
