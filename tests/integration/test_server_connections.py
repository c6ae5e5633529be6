"""The load benchmark's count of which server process holds each connection
(``benchmarks/server_connections.py``), against real processes holding real sockets."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from lean_client import LeanClient
from server_connections import balance, client_ports_by_process, split

# Two processes below one parent, each accepting from the same listening socket and answering
# every request with an empty 200 (enough HTTP for LeanClient). The parent prints the port.
_SERVER = textwrap.dedent(
    """
    import os, socket, sys, threading
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)

    def answer(conn):
        while True:
            data = conn.recv(65536)
            if not data:
                conn.close()
                return
            conn.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 0\\r\\n\\r\\n")

    children = []
    for _ in range(2):
        pid = os.fork()
        if pid == 0:
            while True:
                conn, _ = listener.accept()
                threading.Thread(target=answer, args=(conn,), daemon=True).start()
        children.append(pid)
    sys.stdin.read()  # until the test closes our stdin
    for pid in children:
        os.kill(pid, 9)
    """
)


@pytest.fixture
def two_workers() -> Iterator[tuple[int, int]]:
    """A parent process and two forked workers sharing one listening socket: (pid, port)."""
    with subprocess.Popen(
        [sys.executable, "-c", _SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as process:  # on leaving: closes both pipes and waits for the parent
        assert process.stdout is not None and process.stdin is not None
        port = int(process.stdout.readline())
        yield process.pid, port


def test_each_connection_is_found_in_the_worker_that_accepted_it(
    two_workers: tuple[int, int],
) -> None:
    pid, port = two_workers
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(6)]
    try:
        for client in clients:  # answered: each connection has been accepted by a worker
            client.sendall(b"x")
            assert client.recv(100).startswith(b"HTTP/1.1 200")
        held = client_ports_by_process(pid, port)
        assert pid not in held  # the parent accepts nothing
        assert 1 <= len(held) <= 2
        found = sorted(p for ports in held.values() for p in ports)
        assert found == sorted(c.getsockname()[1] for c in clients)
    finally:
        for client in clients:
            client.close()


def test_balance_spreads_the_clients_evenly(two_workers: tuple[int, int]) -> None:
    pid, port = two_workers

    async def run() -> tuple[list[int], int]:
        clients = [LeanClient("127.0.0.1", port) for _ in range(10)]
        for client in clients:
            assert (await client.get("/")).status == 200
        await clients[0].close()  # as after a "Connection: close": reopened by its next request
        counts = await balance(clients, pid, port, 2, lambda c: c.get("/"))
        groups, missing = split(clients, pid, port)
        assert sorted((len(g) for g in groups.values()), reverse=True) == counts
        for client in clients:
            await client.close()
        return counts, missing

    counts, missing = asyncio.run(run())
    assert counts == [5, 5]
    assert missing == 0
