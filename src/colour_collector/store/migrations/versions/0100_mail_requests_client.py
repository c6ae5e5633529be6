"""The mail throttle keeps the client that asked for each mail: an address's mails are limited
per client as well as in all (decision 0009, "Later").

Revision ID: 0100
Revises: 0090
Create Date: 2026-12-08
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0100"
down_revision: str | None = "0090"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The requests counted before: from no client known (""), still counted for the address.
    op.add_column(
        "mail_requests",
        sa.Column("client", sa.String(64), nullable=False, server_default=""),
    )


def downgrade() -> None:
    # Both databases drop a column in place (SQLite since 3.35), as 0080 and 0090 do.
    op.execute("ALTER TABLE mail_requests DROP COLUMN client")
