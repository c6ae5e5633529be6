"""Where a pool's certification work runs: this process, local worker processes, or a Dask
cluster; and where a closed pool's audit runs (this process or local workers).

The work is a stream of ``certification.Chunk`` values, each turned into a ``Tally`` by
``certification.verify_chunk``; the tallies come back in any order. Local workers are
``multiprocessing`` processes, spawned, so nothing but a chunk reaches them, fed a few chunks
ahead of them (``results``, which the audit uses too). A Dask cluster
(``dask[distributed]``, the optional extra ``distributed``) runs the same function on its workers,
which need the same version of ``colour-collector`` installed: each tally carries its worker's
versions, and the certificate refuses plays made by another generator.
"""

from __future__ import annotations

import importlib
import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, TypeVar

from colour_collector.game.certification import Chunk, Tally, verify_chunk
from colour_collector.generator_cache import warm

IN_FLIGHT_PER_WORKER = 4
"""Chunks a Dask worker (or, for ``results``, a local one) is given ahead of the ones it is
doing."""

Work = TypeVar("Work")
Result = TypeVar("Result")


class WorkersError(Exception):
    """The workers asked for cannot be used; the message says why."""


def tallies(
    chunks: Iterable[Chunk], workers: int = 1, scheduler: str | None = None
) -> Iterator[Tally]:
    """The tally of every chunk: here (``workers`` 1), on ``workers`` local processes, or on the
    Dask cluster whose scheduler is at ``scheduler``."""
    if scheduler is not None:
        warm()  # first here, so that workers on this machine find the generator's tables on disk
        yield from _on_dask(chunks, scheduler)
    else:
        yield from results(verify_chunk, chunks, workers)


def results(
    function: Callable[[Work], Result], work: Iterable[Work], workers: int = 1
) -> Iterator[Result]:
    """``function`` of each piece of ``work``, in any order: here (``workers`` 1) or on
    ``workers`` local processes (spawned; ``function`` must be importable). ``work`` is read only
    as the workers need it, a few pieces ahead of them, so a stream of millions of plays is
    never held whole."""
    warm()  # first here, so that the workers find the generator's tables on disk
    if workers <= 1:
        yield from map(function, work)
        return
    slots = IN_FLIGHT_PER_WORKER * workers
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=warm) as executor:
        running: set[Future[Result]] = set()
        for piece in work:
            running.add(executor.submit(function, piece))
            while len(running) >= slots:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()


def _on_dask(chunks: Iterable[Chunk], scheduler: str) -> Iterator[Tally]:
    try:  # an optional extra, and untyped: used through ``Any``
        distributed: Any = importlib.import_module("dask.distributed")
    except ImportError:
        raise WorkersError(
            "--scheduler needs Dask: pip install 'colour-collector[distributed]'"
        ) from None
    try:
        client = distributed.Client(scheduler, timeout=10)
    except (OSError, TimeoutError, ValueError) as error:
        raise WorkersError(f"cannot reach the Dask scheduler at {scheduler!r}: {error}") from None
    with client:
        client.run(warm)  # each worker's tables from its own cache (worked out once a machine)
        slots = IN_FLIGHT_PER_WORKER * max(1, len(client.scheduler_info().get("workers", {})))
        pending = iter(chunks)
        running = distributed.as_completed()
        for chunk in pending:
            running.add(client.submit(verify_chunk, chunk, pure=False))
            if running.count() >= slots:
                break
        for done in running:
            tally: Tally = done.result()
            yield tally
            following = next(pending, None)
            if following is not None:
                running.add(client.submit(verify_chunk, following, pure=False))
