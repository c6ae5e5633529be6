"""The app's lifespan: the request thread limit, the background auto-finisher that completes
plays left unfinished past their time, and the signed checkpoints of the audit chain."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager

import anyio.to_thread
from fastapi import FastAPI

from colour_collector.game.draw import secure_rng
from colour_collector.server.settings import Settings
from colour_collector.service import audit_checkpoints, settle
from colour_collector.store import Database
from colour_collector.store.checkpoint_files import CheckpointDirectory

log = logging.getLogger(__name__)


def lifespan_for(
    database: Database, settings: Settings, *, owns_database: bool = False
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """A lifespan that sets AnyIO's worker threads to ``settings.request_threads``, runs the
    auto-finisher every ``auto_finish_interval``, and at shutdown disposes of the database if the
    app made it (``owns_database``)."""

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        anyio.to_thread.current_default_thread_limiter().total_tokens = settings.request_threads
        stop = asyncio.Event()
        tasks = [asyncio.create_task(_auto_finisher(database, settings, stop))]
        if settings.audit_checkpoint_dir is not None and settings.audit_checkpoint_key_file:
            key = audit_checkpoints.read_key(settings.audit_checkpoint_key_file)
            store = CheckpointDirectory(settings.audit_checkpoint_dir)
            tasks.append(asyncio.create_task(_checkpoints(database, store, key, settings, stop)))
        try:
            yield
        finally:
            # Not task.cancel(): a round runs in a worker thread that a cancel would abandon,
            # still using the database after shutdown. Let the round end, then stop.
            stop.set()
            for task in tasks:
                await task
            if owns_database:
                database.dispose()

    return lifespan


async def _auto_finisher(database: Database, settings: Settings, stop: asyncio.Event) -> None:
    rng = secure_rng()
    while not stop.is_set():
        try:
            done = await anyio.to_thread.run_sync(settle.auto_finish_due, database, rng)
            if done:
                log.info("auto-finished %d play(s): %s", len(done), ", ".join(done))
        except Exception:  # keep the loop alive; the next round tries again
            log.exception("auto-finish round failed")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), settings.auto_finish_interval.total_seconds())


async def _checkpoints(
    database: Database,
    store: CheckpointDirectory,
    key: bytes,
    settings: Settings,
    stop: asyncio.Event,
) -> None:
    while not stop.is_set():
        try:
            taken = await anyio.to_thread.run_sync(audit_checkpoints.take, database, store, key)
            log.info("audit checkpoint: seq=%d hash=%s", taken.seq, taken.hash)
        except Exception:  # keep the loop alive; the next round tries again
            log.exception("audit checkpoint failed")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), settings.audit_checkpoint_interval.total_seconds())
