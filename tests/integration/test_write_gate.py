"""The SQLite write gate: one holder at a time across threads and across processes, and many
writers in two processes never fail with "database is locked"."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from colour_collector.store import Database, upgrade_to_head
from colour_collector.store.write_gate import WriteGate, lock_file_for

HOLDER = """
import sys, time
from pathlib import Path
from colour_collector.store.write_gate import WriteGate
gate, log, rounds = WriteGate(Path(sys.argv[1])), Path(sys.argv[2]), int(sys.argv[3])
for _ in range(rounds):
    with gate:
        with log.open("a") as out:
            out.write("in\\n")
        time.sleep(0.002)
        with log.open("a") as out:
            out.write("out\\n")
"""

WRITER = """
import sys
from colour_collector.service import audit
from colour_collector.service.models import AuditKind
from colour_collector.store import Database
database = Database(sys.argv[1])
for n in range(int(sys.argv[2])):
    with database.unit_of_work() as uow:
        audit.append(uow, AuditKind.DEPOSIT, None, {"n": n})
        uow.commit()
database.dispose()
"""


def test_one_thread_at_a_time(tmp_path: Path) -> None:
    gate = WriteGate(tmp_path / "gate")
    inside, most = 0, 0
    counter = threading.Lock()

    def work() -> None:
        nonlocal inside, most
        for _ in range(50):
            with gate:
                with counter:
                    inside += 1
                    most = max(most, inside)
                time.sleep(0.0001)
                with counter:
                    inside -= 1

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    gate.close()
    assert most == 1


def test_one_process_at_a_time(tmp_path: Path) -> None:
    log = tmp_path / "log"
    holders = [
        subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "gate"), str(log), "40"])
        for _ in range(3)
    ]
    assert [holder.wait(timeout=120) for holder in holders] == [0, 0, 0]
    lines = log.read_text().split()
    assert len(lines) == 3 * 40 * 2
    assert lines == ["in", "out"] * (3 * 40)  # never two holders inside at once


def test_gate_file_sits_beside_the_database(tmp_path: Path) -> None:
    assert lock_file_for(str(tmp_path / "x.sqlite3")) == tmp_path / "x.sqlite3.write-lock"
    assert lock_file_for(":memory:") is None
    assert lock_file_for("") is None


def test_writers_in_two_processes_all_commit(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    upgrade_to_head(url)
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, url, "150"], stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    results = [writer.communicate(timeout=300) for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0], [err for _, err in results]
    database = Database(url)
    try:
        with database.unit_of_work(write=False) as uow:
            assert uow.audit.head().seq == 300
    finally:
        database.dispose()
