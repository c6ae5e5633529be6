"""The load benchmark's count of which server process holds each connection
(``benchmarks/server_connections.py``), against real processes holding real sockets."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from lean_client import LeanClient
from server_connections import balance, client_ports_by_process, split

# Two processes below one parent, each accepting from the same listening socket and answering
# every request with a 200 whose body is its own pid (enough HTTP for LeanClient). The parent
# prints the port; the second worker starts accepting only when the parent reads "go" on its
# stdin, so a test can make every connection land on the first one.
_SERVER = textwrap.dedent(
    """
    import os, socket, sys, threading
    host = sys.argv[1]
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listener.bind((host, 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)

    def answer(conn):
        me = str(os.getpid()).encode()
        head = b"HTTP/1.1 200 OK\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(me)
        while True:
            if not conn.recv(65536):
                conn.close()
                return
            conn.sendall(head + me)

    def serve():
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    children = []
    gate_read, gate_write = os.pipe()
    for n in range(2):
        pid = os.fork()
        if pid == 0:
            if n == 1:
                os.read(gate_read, 1)
            serve()
        children.append(pid)
    for line in sys.stdin:  # until the test closes our stdin
        if line.strip() == "go":
            os.write(gate_write, b"g")
    for pid in children:
        os.kill(pid, 9)
    """
)


STARTING_S = 60
"""How long a test waits for the second worker to accept its first connection."""


class Workers:
    """The test server: its parent's pid, its port, its host, and the switch that lets its
    second worker start accepting."""

    def __init__(self, process: subprocess.Popen[str], host: str) -> None:
        assert process.stdout is not None and process.stdin is not None
        self.process = process
        self.pid = process.pid
        self.host = host
        self.port = int(process.stdout.readline())

    def start_second(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.fixture(params=["127.0.0.1", "::1"])  # /proc/net/tcp and /proc/net/tcp6
def workers(request: pytest.FixtureRequest) -> Iterator[Workers]:
    if request.param == "::1" and not _ipv6_loopback():  # a container may have IPv6 turned off
        pytest.skip("this machine has no IPv6 loopback (::1), so /proc/net/tcp6 is not tried")
    with subprocess.Popen(
        [sys.executable, "-c", _SERVER, request.param],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:  # on leaving: closes both pipes and waits for the parent
        yield Workers(process, request.param)


def test_each_connection_is_found_in_the_worker_that_accepted_it(workers: Workers) -> None:
    clients: list[socket.socket] = []
    answered_by: dict[int, set[int]] = {}

    def connect() -> None:  # the answer names the worker that accepted the connection
        client = socket.create_connection((workers.host, workers.port))
        clients.append(client)
        client.sendall(b"x")
        head, _, body = client.recv(200).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200")
        answered_by.setdefault(int(body), set()).add(client.getsockname()[1])

    try:
        for _ in range(4):  # all to the first worker
            connect()
        workers.start_second()
        deadline = time.monotonic() + STARTING_S  # a busy machine may start it late
        while len(answered_by) < 2 and time.monotonic() < deadline:
            connect()
        assert len(answered_by) == 2
        held = client_ports_by_process(workers.pid, workers.port)
        assert workers.pid not in held  # the parent accepts nothing
        assert held == answered_by
    finally:
        for client in clients:
            client.close()


async def second_worker_started(workers: Workers, first: str) -> None:
    """Return once a new connection is answered by another worker than ``first``."""
    deadline = time.monotonic() + STARTING_S
    while time.monotonic() < deadline:
        probe = LeanClient(workers.host, workers.port)
        try:
            if (await probe.get("/")).text != first:
                return
        finally:
            await probe.close()
    raise AssertionError(f"the second worker accepted nothing in {STARTING_S} s")


def test_balance_spreads_the_clients_evenly(workers: Workers) -> None:
    async def run() -> tuple[list[int], list[int], int]:
        clients = [LeanClient(workers.host, workers.port) for _ in range(10)]
        try:
            for client in clients:  # only the first worker accepts yet
                first = (await client.get("/")).text
            groups, _ = split(clients, workers.pid, workers.port)
            before = sorted((len(g) for g in groups.values()), reverse=True)
            workers.start_second()
            await second_worker_started(workers, first)
            await clients[0].close()  # as after a "Connection: close": reopened by its next request
            # Attempts to spare: on a busy machine the second worker may win few races.
            counts = await balance(
                clients, workers.pid, workers.port, 2, lambda c: c.get("/"), attempts=5000
            )
            groups, missing = split(clients, workers.pid, workers.port)
            assert sorted((len(g) for g in groups.values()), reverse=True) == counts
            for pid, group in groups.items():  # each client's next answer comes from its group
                for client in group:
                    assert (await client.get("/")).text == str(pid)
            return before, counts, missing
        finally:
            for client in clients:
                await client.close()

    # A thread of its own: the browser tests keep Playwright's event loop running in this one
    # for the rest of the pytest worker's session, and asyncio.run refuses to run beside it.
    with ThreadPoolExecutor(1) as thread:
        before, counts, missing = thread.submit(asyncio.run, run()).result()
    assert before == [10]
    assert counts == [5, 5]
    assert missing == 0
