"""Password reset by e-mail: the links mailed to accounts' addresses say what they are for,
'confirm' (registration: every link stored before this revision) or 'reset' (a forgotten
password), so that a link works only for its own purpose.

Revision ID: 0070
Revises: 0060
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0070"
down_revision: str | None = "0060"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The server default fills the rows already there, and keeps a server of the previous
    # version (which does not name a purpose) writing confirmation links during an upgrade.
    with op.batch_alter_table("confirmation_tokens") as batch:
        batch.add_column(
            sa.Column("purpose", sa.String(16), server_default="confirm", nullable=False)
        )


def downgrade() -> None:
    # Without the column a reset link would read as a confirmation link: forget them first.
    op.execute("DELETE FROM confirmation_tokens WHERE purpose = 'reset'")
    with op.batch_alter_table("confirmation_tokens") as batch:
        batch.drop_column("purpose")
