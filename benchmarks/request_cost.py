"""The server's own cost of each request: CPU time and wall time, in-process, one request at a time.

Run: ``.venv/bin/python benchmarks/request_cost.py [--backend sqlite|postgresql] [--plays 300]``.

The load benchmark (``load_server.py``) measures the whole stack on two shared cores, where the
machine's speed from hour to hour moves the result as much as most changes do. This one calls
the real application (``create_app``, every middleware and route, a real database: an SQLite
file or a throwaway PostgreSQL 15 cluster) straight through ASGI, without sockets or uvicorn,
and times each request with the process's CPU clock (``time.process_time``: every thread of the
process, so PostgreSQL's database threads are counted; the database server's own processes are
not). One player plays ``--plays`` whole games (purchase, every step, FINISH) after a warm-up;
the CPU time of a request is what one request costs the server's Python, so a change can be
compared A/B by it with much less noise than by plays per second. It also counts the SQL
statements each request runs (on PostgreSQL each is a round trip, as are BEGIN and COMMIT).

This is a measurement, not a test: figures go into docs/load.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable, MutableMapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from sqlalchemy import event

from colour_collector.server.app import create_app, frozen
from colour_collector.server.settings import Settings
from lean_client import confirmation_token
from load_server import postgres_cluster

PASSWORD = "request cost password"
Message = MutableMapping[str, Any]


class Player:
    """Calls an ASGI app the way a browser would: cookies kept, CSRF header echoed."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app
        self.cookies: dict[str, str] = {}

    async def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        raw = b"" if body is None else json.dumps(body).encode()
        sent: list[tuple[bytes, bytes]] = [
            (b"host", b"bench"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(raw)).encode()),
        ]
        if self.cookies:
            jar = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
            sent.append((b"cookie", jar.encode()))
        if "cc_csrf" in self.cookies:
            sent.append((b"x-csrf-token", self.cookies["cc_csrf"].encode()))
        sent += [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": sent,
            "client": ("127.0.0.1", 50000),
            "server": ("bench", 80),
            "state": {},
        }
        delivered = False
        answer: dict[str, Any] = {"status": 0, "body": b""}

        async def receive() -> Message:
            nonlocal delivered
            if delivered:  # the app asks again only to wait for a disconnect
                await asyncio.Event().wait()
            delivered = True
            return {"type": "http.request", "body": raw, "more_body": False}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                for name, value in message.get("headers", []):
                    if name == b"set-cookie":
                        key, _, rest = value.decode().partition("=")
                        self.cookies[key] = rest.split(";", 1)[0]
            elif message["type"] == "http.response.body":
                answer["body"] += message.get("body", b"")

        await self.app(scope, receive, send)
        body_out = answer["body"]
        return answer["status"], json.loads(body_out) if body_out else None


class Statements:
    """Counts the SQL statements the app's engine runs."""

    sent = 0

    @classmethod
    def count(cls, *_: Any) -> None:
        cls.sent += 1


class Costs:
    """CPU and wall time of each request, by endpoint, and the statements it ran."""

    def __init__(self) -> None:
        self.cpu: dict[str, list[float]] = defaultdict(list)
        self.wall: dict[str, list[float]] = defaultdict(list)
        self.queries: dict[str, list[int]] = defaultdict(list)
        self.recording = False

    async def timed(self, name: str, call: Awaitable[tuple[int, Any]]) -> tuple[int, Any]:
        cpu, wall, sent = time.process_time(), time.perf_counter(), Statements.sent
        result = await call
        if self.recording:
            self.cpu[name].append(time.process_time() - cpu)
            self.wall[name].append(time.perf_counter() - wall)
            self.queries[name].append(Statements.sent - sent)
        return result


def expect(status: int, body: Any, wanted: int, what: str) -> None:
    if status != wanted:
        raise SystemExit(f"{what}: expected {wanted}, got {status}: {body}")


async def sign_up(player: Player, outbox: Path) -> None:
    """Register a fresh player and confirm the address through the mail in ``outbox``."""
    expect(*await player.call("GET", "/api/csrf"), 200, "csrf")
    email = f"cost-{uuid.uuid4().hex[:8]}@example.com"
    account = {"email": email, "password": PASSWORD, "date_of_birth": "1980-01-01"}
    expect(*await player.call("POST", "/api/register", account), 202, "register")
    confirm = {"token": confirmation_token(outbox, email), "password": PASSWORD}
    expect(*await player.call("POST", "/api/register/confirm", confirm), 200, "confirm")


async def play(player: Player, costs: Costs) -> None:
    """One whole game, with a deposit first when the wallet is empty."""
    key = {"Idempotency-Key": uuid.uuid4().hex}
    status, body = await costs.timed(
        "POST /api/plays", player.call("POST", "/api/plays", {"confirm": True}, key)
    )
    if status == 409 and body.get("code") == "insufficient_funds":
        deposit = {"amount_pence": 100_000}
        expect(*await player.call("POST", "/api/wallet/test-deposit", deposit), 201, "deposit")
        return await play(player, costs)
    expect(status, body, 201, "purchase")
    await play_out(player, body["play"]["play_number"], body["board"], costs)
    return None


async def play_out(player: Player, number: str, board: dict[str, Any], costs: Costs) -> None:
    """Every step of play ``number`` (``board`` as bought), then FINISH."""
    while board["next"] is not None:
        step: dict[str, Any] = {"kind": board["next"], "step": board["revealed"]}
        if board["next"] == "bonus_pick":
            step["pick"] = "odd"
        path = f"/api/plays/{number}/steps"
        status, body = await costs.timed(
            "POST /api/plays/{n}/steps", player.call("POST", path, step)
        )
        expect(status, body, 200, "step")
        board = body["board"]
    status, body = await costs.timed(
        "POST /api/plays/{n}/finish", player.call("POST", f"/api/plays/{number}/finish", {})
    )
    expect(status, body, 200, "finish")


def bench_settings(data_dir: Path, url: str | None = None) -> Settings:
    """A test server's settings on ``url`` (None: an SQLite file in ``data_dir``)."""
    return Settings(
        environment="test",
        data_dir=data_dir,
        database_url=url,
        secret_key="request-cost-benchmark-secret-key-0123456789",
        web_dir=data_dir / "no-web",
        password_hash_time_cost=1,
        password_hash_memory_kib=8,
        password_hash_parallelism=1,
        # CPU is measured: the purchase's floor is a sleep (1 s by default, decision 0103), and
        # would only make each purchase's wall time that long.
        purchase_answer_floor_ms=0,
    )


async def measure(url: str | None, data_dir: Path, plays: int, warmup: int) -> Costs:
    settings = bench_settings(data_dir, url)
    app = frozen(create_app(settings))
    event.listen(app.state.database.engine, "before_cursor_execute", Statements.count)
    player, costs = Player(app), Costs()
    async with app.router.lifespan_context(app):
        await sign_up(player, settings.mail_outbox)
        for _ in range(warmup):
            await play(player, costs)
        costs.recording = True
        for _ in range(plays):
            await play(player, costs)
        for _ in range(plays * 8):
            await costs.timed("GET /healthz", player.call("GET", "/healthz"))
    return costs


def report(backend: str, costs: Costs, plays: int) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    print(f"== {backend}: {plays} whole plays, one request at a time, in-process ==")
    games = [name for name in costs.cpu if name != "GET /healthz"]
    total_cpu = sum(sum(costs.cpu[name]) for name in games)
    requests = sum(len(costs.cpu[name]) for name in games)
    for name in [*games, "GET /healthz"]:
        cpu, wall = costs.cpu[name], costs.wall[name]
        rows[name] = {
            "n": len(cpu),
            "cpu_mean_us": 1e6 * statistics.fmean(cpu),
            "cpu_median_us": 1e6 * statistics.median(cpu),
            "wall_median_us": 1e6 * statistics.median(wall),
            "queries_mean": statistics.fmean(costs.queries[name]),
        }
        queries = f"  statements {rows[name]['queries_mean']:5.2f}"
        print(
            f"  {name:28s} n={len(cpu):5d}  CPU mean {rows[name]['cpu_mean_us']:6.0f} us"
            f"  median {rows[name]['cpu_median_us']:6.0f} us"
            f"  wall median {rows[name]['wall_median_us']:6.0f} us{queries}"
        )
    per_play = 1e3 * total_cpu / plays
    print(
        f"  CPU a whole play: {per_play:.2f} ms ({requests / plays:.2f} requests), "
        f"{1e6 * total_cpu / requests:.0f} us a request"
    )
    print(f"  one core at this cost: {1000 / per_play:.0f} plays/s")
    return {"backend": backend, "plays": plays, "cpu_ms_a_play": per_play, "endpoints": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--plays", type=int, default=300, help="plays measured")
    parser.add_argument("--warmup", type=int, default=50, help="plays before measuring")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    if args.plays < 1 or args.warmup < 0:
        parser.error("--plays must be at least 1 and --warmup at least 0")
    print(f"CPython {sys.version.split()[0]}")
    cluster: AbstractContextManager[str | None] = (
        postgres_cluster() if args.backend == "postgresql" else nullcontext(None)
    )
    with tempfile.TemporaryDirectory(prefix="cc-cost-") as workdir, cluster as url:
        costs = asyncio.run(measure(url, Path(workdir), args.plays, args.warmup))
    result = report(args.backend, costs, args.plays)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
