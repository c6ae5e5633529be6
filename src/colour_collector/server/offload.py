"""Where a route's database work runs.

SQLite work runs on the event loop: a statement takes microseconds, writers are serialised by
the database anyway, and a hop to the thread pool (and back) costs more than the work.
PostgreSQL work waits on the network and on row locks, so it runs on a few threads of its own
(``database_threads``, default 4) while the loop serves other requests. Not on FastAPI's pool
of 40: that many threads only queued on the same row locks and fought for the GIL (measured:
27 complete plays a second and a p99 of 0.9 s with 40, 40 plays a second and 0.22 s with 4).
Slow CPU work that touches no database (Argon2 password hashing) stays in sync routes, which
FastAPI runs in its thread pool.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from colour_collector.server.settings import DEFAULT_DATABASE_THREADS
from colour_collector.store import Database

P = ParamSpec("P")
T = TypeVar("T")

_threads = DEFAULT_DATABASE_THREADS
_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def set_database_threads(threads: int) -> None:
    """Size the process's database threads (PostgreSQL); called when an app is made."""
    global _threads, _executor  # noqa: PLW0603  (one pool per process, shared by its apps)
    if threads < 1:
        raise ValueError(f"database threads must be at least 1, not {threads!r}")
    with _executor_lock:
        old = _executor if threads != _threads else None
        _threads = threads
        if old is not None:
            _executor = None
    if old is not None:
        old.shutdown(wait=False)


def _database_executor() -> ThreadPoolExecutor:
    global _executor  # noqa: PLW0603
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(_threads, "database")
        return _executor


async def database_call(
    database: Database, work: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
) -> T:
    """``work(*args, **kwargs)``: inline on SQLite, on a database thread on PostgreSQL."""
    if database.is_sqlite:
        return work(*args, **kwargs)
    call = functools.partial(work, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_database_executor(), call)
