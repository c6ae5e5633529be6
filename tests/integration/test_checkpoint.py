"""SQLite's write-ahead log is checkpointed off the writers' path, and stays bounded.

Two ``Database`` handles on one file stand for two server processes (each its own thread lock,
one ``flock``); threads of each write audit entries as fast as they can. SQLite only.
"""

from __future__ import annotations

import threading
from pathlib import Path

from colour_collector.service import audit
from colour_collector.service.models import AuditKind
from colour_collector.store import Database, upgrade_to_head

PAGE = 4096
FRAME = 24 + PAGE
"""Bytes of one page in the log."""
COMMITS = 300
"""Commits of each writing thread (two threads a handle, two handles)."""


def frames_in_log(path: Path) -> int:
    wal = path.with_name(path.name + "-wal")
    return max(0, (wal.stat().st_size - 32) // FRAME) if wal.exists() else 0


def write_hard(path: Path, *, every: int, limit: int) -> tuple[int, list[Database]]:
    """Four writers on two handles; returns the largest log seen (pages) and the handles."""
    url = f"sqlite:///{path}"
    upgrade_to_head(url)
    handles = [Database(url, checkpoint_every=every, checkpoint_limit=limit) for _ in range(2)]
    largest, done = 0, threading.Event()
    errors: list[BaseException] = []

    def watch() -> None:
        nonlocal largest
        while not done.wait(0.005):
            largest = max(largest, frames_in_log(path))

    def write(database: Database, name: str) -> None:
        try:
            for n in range(COMMITS):
                with database.unit_of_work() as uow:
                    payload = {"writer": name, "n": n, "pad": "x" * 3000}
                    audit.append(uow, AuditKind.LOGIN, None, payload)
                    uow.commit()
        except BaseException as error:  # reported below
            errors.append(error)

    watcher = threading.Thread(target=watch)
    writers = [
        threading.Thread(target=write, args=(database, f"{h}.{t}"))
        for h, database in enumerate(handles)
        for t in range(2)
    ]
    watcher.start()
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    done.set()
    watcher.join()
    assert not errors, errors
    return max(largest, frames_in_log(path)), handles


def test_the_log_stays_bounded_and_nothing_is_lost(tmp_path: Path) -> None:
    # The control: the same writes with rounds that never come (SQLite's own backstop is far
    # above this much log), so the log holds every page written.
    grown, control = write_hard(tmp_path / "control.db", every=10**9, limit=200)
    for database in control:
        database.dispose()
    assert grown > 4 * COMMITS, grown  # at least a page a commit
    largest, handles = write_hard(tmp_path / "checkpointed.db", every=10, limit=200)
    try:
        runs = [h.checkpointer.runs for h in handles if h.checkpointer is not None]
        assert len(runs) == 2 and all(runs), runs
        # Writers add pages while a round copies and syncs, so the log passes the limit by
        # what they write meanwhile (here 860 to 1,524 pages in three runs, against 8,900).
        assert largest < grown / 2, (largest, grown)
        assert audit.verify_chain(handles[0]).entries == 4 * COMMITS
        with handles[0].unit_of_work(write=False) as uow:
            (check,) = uow.connection.exec_driver_sql("PRAGMA integrity_check").one()
        assert check == "ok"
    finally:
        for database in handles:
            database.dispose()
    assert all(h.checkpointer is not None and h.checkpointer.closed for h in handles)
