"""A least-privilege role for the server on PostgreSQL: what it may do to each table, and no
more.

The tables belong to an owner role that runs the migrations; the server connects as another
role that is granted only what the use cases do: it cannot ``TRUNCATE``, ``DELETE`` or
``UPDATE`` the audit log or the ledger (both are only ever appended to), cannot change the audit
chain's head except through the trigger that moves it with each entry (it may only lock the head
row), and, not owning any table, cannot disable a trigger or alter a table.
"""

from __future__ import annotations

import re

from colour_collector.store.pools import CHANGING
from colour_collector.store.tables import metadata

PRIVILEGES: dict[str, str] = {
    "accounts": "SELECT, INSERT, UPDATE",
    "confirmation_tokens": "SELECT, INSERT, UPDATE",
    "mail_requests": "SELECT, INSERT, DELETE",
    "sessions": "SELECT, INSERT, UPDATE (expires_at), DELETE",
    "login_failures": "SELECT, INSERT, DELETE",
    "ledger": "SELECT, INSERT",
    "audit_log": "SELECT, INSERT",
    "audit_head": "SELECT, UPDATE (id)",
    "plays": "SELECT, INSERT, UPDATE",
    "try_plays": "SELECT, INSERT, UPDATE, DELETE",
    "pools": f"SELECT, INSERT, UPDATE ({', '.join(CHANGING)})",
    "pool_checkpoints": "SELECT, INSERT",
    "player_protection": "SELECT, INSERT, UPDATE",
    "deposit_limits": "SELECT, INSERT, UPDATE, DELETE",
    "exclusions": "SELECT, INSERT",
    "reality_checks": "SELECT, INSERT, UPDATE",
    "game_sales": "SELECT, UPDATE",
    "payments": "SELECT, INSERT",
    "operators": "SELECT",
    "operator_sessions": "SELECT, INSERT, DELETE",
    "audit_checks": "SELECT, INSERT",
}
"""What the server's role may do to each table. ``UPDATE (id)`` on the head only lets it lock the
row (``SELECT ... FOR UPDATE`` needs an UPDATE privilege on one column); its ``seq`` and
``hash`` are moved by the trigger, which runs with its owner's rights. A pool's commitment,
parameters and size cannot be updated, only what changes as it sells and closes
(``store.pools.CHANGING``). A session's ``expires_at`` is moved on by activity, and that column's
UPDATE also lets a purchase or payment lock the session's row with its account's. Operators are
only read: the tables' owner adds them (``colour-collector operator add``)."""

_ROLE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def least_privilege_sql(app_role: str) -> str:
    """The SQL an owner of the tables runs (after the migrations) so that ``app_role`` may do
    what the server does and nothing more."""
    if not _ROLE.match(app_role):
        raise ValueError(f"not a plain role name: {app_role!r} (lower case letters, digits, _)")
    missing = sorted(set(metadata.tables) - set(PRIVILEGES))
    if missing:  # a new table must say what the server may do to it
        raise RuntimeError(f"no privileges listed for the tables {missing}")
    lines = [
        f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC, {app_role};",
        f"GRANT USAGE ON SCHEMA public TO {app_role};",
        *(f"GRANT {what} ON {table} TO {app_role};" for table, what in PRIVILEGES.items()),
        f"GRANT SELECT ON alembic_version TO {app_role};",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {app_role};",
    ]
    return "\n".join(lines) + "\n"
