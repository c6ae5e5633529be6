"""The function that hashes an audit entry's canonical text, for chaining it in one statement.

PostgreSQL gets ``audit_sha256(text)``: the SHA-256 of the text's UTF-8 bytes, in hex. SQLite
connections get the same function from the store when they open (``store.database``).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION audit_sha256(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
            " AS $$ SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex') $$"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION audit_sha256(text)")
