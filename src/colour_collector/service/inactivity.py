"""A login session that sees no activity for the idle timeout (30 minutes on the server) ends.

A session's ``expires_at`` is the earlier of its hard end (login plus the session lifetime) and
its last activity plus the idle timeout, so every query that finds live sessions enforces both.
The browser client reports activity (a click, a key) with :func:`keep_alive`, at most once a
minute; that moves ``expires_at`` on. A session already ended stays ended.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from colour_collector.service.accounts import AccountPolicy, live_session
from colour_collector.service.clock import utcnow
from colour_collector.service.models import Session
from colour_collector.service.ports import UnitOfWorkFactory


def keep_alive(
    factory: UnitOfWorkFactory,
    token: str | None,
    policy: AccountPolicy,
    *,
    now: dt.datetime | None = None,
) -> Session:
    """The player is active: the live session of ``token`` now ends an idle timeout from now
    (never later than its hard end). ``NotAuthenticatedError`` if it has already ended."""
    at = now or utcnow()
    with factory() as uow:
        session = live_session(uow, token, at)
        end = policy.session_end(session.created_at, at)
        if end <= session.expires_at:
            return session
        uow.accounts.renew_session(session.token_hash, end)
        uow.commit()
    return replace(session, expires_at=end)
