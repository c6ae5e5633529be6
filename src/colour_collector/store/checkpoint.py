"""Copying SQLite's write-ahead log into the database file, off the writers' path.

In WAL mode every commit appends pages to the log, and a checkpoint copies them into the
database file and syncs it. SQLite's automatic checkpoint runs inside the ``COMMIT`` that fills
the log past 1,000 pages, while that writer still holds the
:class:`~colour_collector.store.write_gate.WriteGate`, so every other writer of every process
waits for the copy and the sync (measured: with no checkpoints at all the server did about 30%
more plays a second, docs/load.md).
SQLite itself lets writers go on during a checkpoint; only the gate stopped them.

A :class:`Checkpointer` does the work on a thread of its own, on a connection of its own: after
``every`` commits of its process it runs a ``PASSIVE`` checkpoint without the gate, while other
writers go on. A checkpoint that runs beside writers may never reach the end of the log, and
SQLite starts the log again from its beginning only once a checkpoint has reached the end; so
when the log holds more than ``limit`` pages the thread runs one more ``PASSIVE`` checkpoint
holding the gate (no writer can add pages then), which has little left to copy. SQLite's own
automatic checkpoint stays on with a larger threshold (:data:`BACKSTOP_PAGES`) as a backstop.
Nothing about durability changes: the log is SQLite's, and so is every checkpoint.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from contextlib import AbstractContextManager

log = logging.getLogger(__name__)

EVERY_COMMITS = 100
"""Commits of one process between two of its checkpoints."""
LIMIT_PAGES = 4_000
"""Pages in the log (4 KiB each) above which a checkpoint is run holding the write gate."""
BACKSTOP_PAGES = 20_000
"""SQLite's automatic checkpoint threshold on connections that have a checkpointer."""


class Checkpointer:
    """Checkpoints one SQLite database file from a daemon thread (see the module docstring)."""

    def __init__(
        self,
        path: str,
        gate: AbstractContextManager[None],
        *,
        every: int = EVERY_COMMITS,
        limit: int = LIMIT_PAGES,
        timeout: float = 30.0,
    ) -> None:
        if every < 1 or limit < 1:
            raise ValueError(f"every and limit must be at least 1, not {every!r} and {limit!r}")
        self._path = path
        self._gate = gate
        self._every = every
        self._limit = limit
        self._timeout = timeout
        self._commits = 0
        self._wake = threading.Event()
        self._stop = False
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self.runs = 0
        """Checkpoints run so far (with and without the gate)."""
        self.gated_runs = 0
        """Of those, the ones run holding the write gate."""

    def committed(self) -> None:
        """Count one commit of this process; wake the thread every ``every`` commits."""
        self._commits += 1  # a lost count under a race only delays a checkpoint a little
        if self._commits >= self._every:
            self._commits = 0
            self._ensure_thread()
            self._wake.set()

    def _ensure_thread(self) -> None:
        with self._start_lock:
            if self._thread is None and not self._stop:
                self._thread = threading.Thread(
                    target=self._run, name="sqlite-checkpoint", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        connection = sqlite3.connect(
            self._path, timeout=self._timeout, isolation_level=None, check_same_thread=False
        )
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stop:
                    return
                try:
                    self.checkpoint(connection)
                except Exception:  # e.g. the file went away; the next round tries again
                    log.exception("SQLite checkpoint failed")
        finally:
            connection.close()

    def checkpoint(self, connection: sqlite3.Connection) -> int:
        """One round: a checkpoint beside the writers, then one behind the gate if the log is
        still longer than ``limit`` pages; returns the pages left in the log."""
        _, pages, _ = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.runs += 1
        if pages > self._limit:
            with self._gate:
                _, pages, _ = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self.runs += 1
            self.gated_runs += 1
        return int(pages)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (the thread is then gone)."""
        return self._stop

    def close(self) -> None:
        """Stop the thread (after the round it is in, if any)."""
        with self._start_lock:
            self._stop = True
            thread, self._thread = self._thread, None
        self._wake.set()
        if thread is not None:
            thread.join()
