"""WAL checkpoints of a busy SQLite database, run beside the writers instead of inside them.

By default SQLite checkpoints inside the commit that grows the write-ahead log past 1,000
pages: that one commit copies the log back into the database while it still holds the write
lock, and every writer queues behind it. A server turns that off on its connections and runs
this instead: a thread that asks for a ``PASSIVE`` checkpoint every ``interval`` seconds. A
passive checkpoint takes no write lock (writers go on appending to the log meanwhile) and
copies what it can; the log is rewound by the next writer once everything in it was copied.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

from sqlalchemy import Engine, event

log = logging.getLogger(__name__)

CHECKPOINT_INTERVAL = 0.5
"""Seconds between checkpoints."""


class WalCheckpointer:
    """A daemon thread checkpointing ``engine``'s SQLite database until :meth:`stop`."""

    def __init__(self, engine: Engine, interval: float = CHECKPOINT_INTERVAL) -> None:
        if interval <= 0:
            raise ValueError(f"checkpoint interval must be positive, not {interval!r}")
        self._engine = engine
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="wal-checkpoint", daemon=True)
        self.checkpoints = 0
        """Checkpoints run so far."""

    def start(self) -> None:
        """Start the thread."""
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread after a last checkpoint and wait for it."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def checkpoint(self) -> None:
        """Run one passive checkpoint now."""
        # On the driver's connection, outside any transaction: a checkpoint cannot run inside
        # one (and Connection.execute would open one, with BEGIN IMMEDIATE).
        connection = self._engine.raw_connection()
        try:
            connection.driver_connection.execute(  # type: ignore[union-attr]
                "PRAGMA wal_checkpoint(PASSIVE)"
            ).close()
        finally:
            connection.close()
        self.checkpoints += 1

    def _run(self) -> None:
        while True:
            stopping = self._stop.wait(self._interval)
            try:
                self.checkpoint()
            except Exception:  # keep checkpointing; SQLite retries a checkpoint safely
                log.exception("WAL checkpoint failed")
            if stopping:
                return


def without_autocheckpoint(engine: Engine) -> None:
    """Turn SQLite's in-commit checkpoints off on connections ``engine`` opens from now on."""

    @event.listens_for(engine, "connect")
    def _off(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA wal_autocheckpoint = 0")
        finally:
            cursor.close()
