"""One SQLite writer at a time, queued in the kernel instead of in SQLite's busy loop.

SQLite lets one connection write at a time. A writer that finds the lock taken waits in SQLite's
busy handler, which sleeps 1, 2, 5, 10 ... up to 100 ms between tries: under load the waits, not
the writes, make the latency. The gate queues writers before ``BEGIN IMMEDIATE`` instead: a
thread lock for the writers of this process, then an exclusive ``flock`` on a file beside the
database for the writers of other processes (several server workers, the CLI). Both wake the
next writer as soon as the lock is released. Readers never pass the gate (WAL lets them read
while one connection writes).
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from types import TracebackType


class WriteGate:
    """An exclusive gate, not reentrant: ``with gate: <one write transaction>``."""

    def __init__(self, lock_file: Path | None) -> None:
        self._thread_lock = threading.Lock()
        self._lock_file = lock_file
        self._fd: int | None = None
        self._fd_lock = threading.Lock()

    def _file(self) -> int | None:
        if self._lock_file is None:
            return None
        with self._fd_lock:
            if self._fd is None:
                self._fd = os.open(self._lock_file, os.O_RDWR | os.O_CREAT, 0o600)
            return self._fd

    def __enter__(self) -> None:
        self._thread_lock.acquire()
        try:
            fd = self._file()
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            self._thread_lock.release()
            raise

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._thread_lock.release()

    def close(self) -> None:
        """Close the lock file (the gate opens it again if used)."""
        with self._fd_lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


def lock_file_for(database: str) -> Path | None:
    """The gate's file for an SQLite database path (None for in-memory databases)."""
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).with_name(Path(database).name + ".write-lock")
