"""The server's background work: completing plays left unfinished past their time."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool

from colour_collector.game.draw import secure_rng
from colour_collector.server.settings import Settings
from colour_collector.service import plays
from colour_collector.store import Database

log = logging.getLogger(__name__)


def lifespan_for(
    database: Database, settings: Settings
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """A lifespan that runs the auto-finisher every ``auto_finish_interval``."""

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        task = asyncio.create_task(_auto_finisher(database, settings))
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    return lifespan


async def _auto_finisher(database: Database, settings: Settings) -> None:
    rng = secure_rng()
    while True:
        try:
            done = await run_in_threadpool(plays.auto_finish_due, database, rng)
            if done:
                log.info("auto-finished %d play(s): %s", len(done), ", ".join(done))
        except Exception:  # keep the loop alive; the next round tries again
            log.exception("auto-finish round failed")
        await asyncio.sleep(settings.auto_finish_interval.total_seconds())
