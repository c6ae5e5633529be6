"""Which server process holds each of the load benchmark's connections (Linux ``/proc``).

With ``serve --workers N`` every worker accepts from the same listening socket, and which one
wins a new connection is a race the kernel decides. The players' 50 connections were seen
shared 24/26 in one run and 40/10 in another. That moves the figure the benchmark reports:
a play's cost is mostly PostgreSQL's, shared by every worker, while ``/healthz`` is the
workers' own CPU, so one worker holding most of the connections serves fewer ``/healthz`` a
second and the ratio of plays to ``/healthz`` rises (25.5 and 55.0 were measured minutes
apart on the same code). In production a load balancer spreads connections evenly, so the benchmark
evens them out before it measures (``balance``), and reports the split it measured with.

This is measuring equipment, not a test.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from lean_client import LeanClient

ESTABLISHED = "01"
"""The state column of ``/proc/net/tcp`` for an established connection."""


def descendants(pid: int) -> set[int]:
    """``pid`` and every process below it."""
    children: dict[int, set[int]] = defaultdict(set)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended while we looked
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children[parent].add(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        found.add(current)
        todo.extend(children[current] - found)
    return found


def _socket_owners(pids: set[int]) -> dict[int, int]:
    """Socket inode -> the process (of ``pids``) that has it open. A socket open in several
    processes (inherited across a ``fork``) goes to whichever was read last; uvicorn's workers
    are started afresh (``spawn``), so each accepted connection is open in one process only."""
    owners = {}
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                owners[int(target[8:-1])] = pid
    return owners


def client_ports_by_process(server_pid: int, port: int) -> dict[int, set[int]]:
    """For each process of the server started as ``server_pid``: the client-side ports of the
    established connections it holds on its listening ``port``."""
    owners = _socket_owners(descendants(server_pid))
    held: dict[int, set[int]] = defaultdict(set)
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, remote, state, inode = fields[1], fields[2], fields[3], int(fields[9])
            if state != ESTABLISHED or int(local.rsplit(":", 1)[1], 16) != port:
                continue
            if inode in owners:
                held[owners[inode]].add(int(remote.rsplit(":", 1)[1], 16))
    return held


def split(
    clients: Sequence[LeanClient], server_pid: int, port: int
) -> tuple[dict[int, list[LeanClient]], int]:
    """The ``clients`` grouped by the server process holding their connection (processes
    holding none of them left out), and how many of them no process was found for (not
    connected, or closed)."""
    held = client_ports_by_process(server_pid, port)
    by_port = {client.local_port: client for client in clients}
    groups = {pid: [by_port[p] for p in ports if p in by_port] for pid, ports in held.items()}
    groups = {pid: group for pid, group in groups.items() if group}
    placed = sum(len(group) for group in groups.values())
    return groups, len(clients) - placed


async def balance(
    clients: Sequence[LeanClient],
    server_pid: int,
    port: int,
    processes: int,
    touch: Callable[[LeanClient], Awaitable[object]],
    *,
    attempts: int = 400,
) -> list[int]:
    """Reconnect clients held by the busiest server process until ``processes`` processes hold
    them within one of each other (or ``attempts`` reconnections were made); return the
    number each process holds, largest first. ``touch`` sends one request, so that a client
    reconnects and the server accepts the new connection. Every client is touched first: a
    connection the server has closed (the code before the redesign closed some during sign-up)
    is reopened only by the client's next request, and would otherwise land anywhere later."""
    for client in clients:
        await touch(client)
    for _ in range(attempts):
        counts, busiest = _held(clients, server_pid, port, processes)
        if max(counts) - min(counts) <= 1:
            break
        await busiest.close()
        await touch(busiest)
    return _held(clients, server_pid, port, processes)[0]


def _held(
    clients: Sequence[LeanClient], server_pid: int, port: int, processes: int
) -> tuple[list[int], LeanClient]:
    """How many ``clients`` each of the ``processes`` holds (largest first, 0 for a process
    holding none), and a client of the busiest."""
    groups = list(split(clients, server_pid, port)[0].values())
    counts = sorted((len(group) for group in groups), reverse=True)
    busiest = max(groups, key=len)[0] if groups else clients[0]
    return counts + [0] * (processes - len(counts)), busiest
