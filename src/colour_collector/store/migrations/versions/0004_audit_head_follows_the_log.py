"""The audit chain's head follows the log: a trigger moves it to each entry as it is stored.

Appending then takes two statements (lock the head, insert the entry) instead of three, and
the head can no longer disagree with the last stored entry.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PG = """
CREATE FUNCTION audit_head_follows_the_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE audit_head SET seq = NEW.seq, hash = NEW.hash WHERE id = 1;
    RETURN NULL;
END;
$$;
CREATE TRIGGER audit_log_moves_head AFTER INSERT ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_head_follows_the_log();
"""

_SQLITE = """
CREATE TRIGGER audit_log_moves_head AFTER INSERT ON audit_log
BEGIN
    UPDATE audit_head SET seq = NEW.seq, hash = NEW.hash WHERE id = 1;
END
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG)
    else:
        op.execute(_SQLITE)


def downgrade() -> None:
    op.execute(
        "DROP TRIGGER audit_log_moves_head ON audit_log"
        if op.get_bind().dialect.name == "postgresql"
        else "DROP TRIGGER audit_log_moves_head"
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION audit_head_follows_the_log()")
