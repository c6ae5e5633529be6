"""Accounts, sessions, login failures, wallet ledger, hash-chained audit log.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from colour_collector.store.tables import UtcDateTime

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GENESIS_HASH = "0" * 64

_PG_APPEND_ONLY = """
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only';
END;
$$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
"""

_SQLITE_APPEND_ONLY = [
    """CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
    BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END""",
    """CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
    BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END""",
]


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("date_of_birth", sa.Date, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_accounts"),
        sa.UniqueConstraint("email", name="uq_accounts_email"),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("expires_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name="pk_sessions"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_sessions_account_id_accounts"
        ),
    )
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])
    op.create_index("ix_sessions_expires_at", "sessions", ["expires_at"])
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("client", sa.String(255), nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_login_failures"),
    )
    op.create_index("ix_login_failures_email_created_at", "login_failures", ["email", "created_at"])
    op.create_index(
        "ix_login_failures_client_created_at", "login_failures", ["client", "created_at"]
    )
    op.create_table(
        "ledger",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("amount_pence", sa.BigInteger, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("reference", sa.String(255), nullable=True),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_ledger"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_ledger_account_id_accounts"
        ),
    )
    op.create_index("ix_ledger_account_id_id", "ledger", ["account_id", "id"])
    op.create_table(
        "audit_log",
        sa.Column("seq", sa.BigInteger, autoincrement=False, nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("account_id", sa.Integer, nullable=True),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("seq", name="pk_audit_log"),
        sa.UniqueConstraint("hash", name="uq_audit_log_hash"),
    )
    op.create_index("ix_audit_log_account_id", "audit_log", ["account_id"])
    head = op.create_table(
        "audit_head",
        sa.Column("id", sa.Integer, autoincrement=False, nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_audit_head"),
    )
    op.bulk_insert(head, [{"id": 1, "seq": 0, "hash": GENESIS_HASH}])
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_APPEND_ONLY)
    elif op.get_bind().dialect.name == "sqlite":
        for statement in _SQLITE_APPEND_ONLY:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER audit_log_no_update ON audit_log")
        op.execute("DROP FUNCTION audit_log_append_only()")
    for table in ("audit_head", "audit_log", "ledger", "login_failures", "sessions", "accounts"):
        op.drop_table(table)
