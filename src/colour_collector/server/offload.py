"""Where a route's database work runs.

SQLite work runs on the event loop: a statement takes microseconds, writers are serialised by
the database anyway, and a hop to the thread pool (and back) costs more than the work. PostgreSQL
work waits on the network and on row locks, so it runs in the thread pool and the loop keeps
serving other requests meanwhile. Slow CPU work that touches no database (Argon2 password
hashing) stays in sync routes, which FastAPI runs in the thread pool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from starlette.concurrency import run_in_threadpool

from colour_collector.store import Database

P = ParamSpec("P")
T = TypeVar("T")


async def database_call(
    database: Database, work: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
) -> T:
    """``work(*args, **kwargs)``: inline on SQLite, in the thread pool on PostgreSQL."""
    if database.is_sqlite:
        return work(*args, **kwargs)
    return await run_in_threadpool(work, *args, **kwargs)
