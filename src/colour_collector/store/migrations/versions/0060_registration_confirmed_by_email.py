"""Registration confirmed by e-mail: when each account's address was confirmed (existing
accounts count as confirmed when they were created), the links mailed to confirm accounts (their
tokens' SHA-256), and the mails asked for per address (the throttle).

Revision ID: 0060
Revises: 0050
Create Date: 2026-12-20
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from colour_collector.store.tables import UtcDateTime

revision: str = "0060"
down_revision: str | None = "0050"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("email_confirmed_at", UtcDateTime, nullable=True))
    # Accounts made before confirmation existed could already log in: they stay able to.
    op.execute("UPDATE accounts SET email_confirmed_at = created_at")
    op.create_table(
        "confirmation_tokens",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("expires_at", UtcDateTime, nullable=False),
        sa.Column("used_at", UtcDateTime, nullable=True),
        sa.PrimaryKeyConstraint("token_hash", name="pk_confirmation_tokens"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_confirmation_tokens_account_id_accounts"
        ),
    )
    op.create_index(
        "ix_confirmation_tokens_account_id", "confirmation_tokens", ["account_id"], unique=False
    )
    op.create_table(
        "mail_requests",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_mail_requests"),
    )
    op.create_index(
        "ix_mail_requests_email_created_at", "mail_requests", ["email", "created_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_mail_requests_email_created_at", table_name="mail_requests")
    op.drop_table("mail_requests")
    op.drop_index("ix_confirmation_tokens_account_id", table_name="confirmation_tokens")
    op.drop_table("confirmation_tokens")
    # Not a batch: SQLite would copy the table and drop the old one, which the rows pointing at
    # accounts forbid. Both databases drop a column in place (SQLite since 3.35; 0080 too).
    op.execute("ALTER TABLE accounts DROP COLUMN email_confirmed_at")
