"""On PostgreSQL the trigger that moves the audit chain's head runs with its owner's rights, so
the server's role needs no right to change the head itself (docs/operations.md, "Database
roles").

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0031"
down_revision: str | None = "0030"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "ALTER FUNCTION audit_head_follows_the_log() SECURITY DEFINER"
            " SET search_path = public, pg_temp"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER FUNCTION audit_head_follows_the_log() SECURITY INVOKER RESET search_path")
