"""A self-exclusion no longer ends by itself: once its term is over it stays in place until the
player asks to play again, and a day after (LCCP SR code 3.5.3). When they asked is kept with
their protection settings.

Revision ID: 0090
Revises: 0080
Create Date: 2026-12-07
"""

from __future__ import annotations

import datetime as dt
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


HELD = sa.text(
    "SELECT count(*) FROM exclusions e"
    " LEFT JOIN player_protection p ON p.account_id = e.account_id"
    " WHERE e.kind = 'self_exclusion' AND e.ends_at <= :now"
    " AND (p.return_asked_at IS NULL OR p.return_asked_at < e.ends_at"
    " OR p.return_asked_at > :a_day_ago)"
).bindparams(sa.bindparam("now", type_=UtcDateTime), sa.bindparam("a_day_ago", type_=UtcDateTime))
"""Self-exclusions whose term is over that still hold: their player has not asked to play
again since, or asked less than a day ago."""


def downgrade() -> None:
    # Before this revision a self-exclusion ended by itself: going back would reopen the
    # accounts it still holds, so the downgrade is refused while there are any.
    now = dt.datetime.now(dt.UTC)
    held = op.get_bind().execute(HELD, {"now": now, "a_day_ago": now - dt.timedelta(days=1)})
    count = held.scalar_one()
    if count:
        raise RuntimeError(
            f"cannot go below revision 0090: {count} self-exclusion(s) whose term is over still"
            " hold (the player has not asked to play again, or asked less than a day ago), and"
            " the code before 0090 would let those players play again"
        )
    # Both databases drop a column in place (SQLite since 3.35), as 0080 does.
    op.execute("ALTER TABLE player_protection DROP COLUMN return_asked_at")
