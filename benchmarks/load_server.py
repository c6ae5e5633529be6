"""Load benchmark of the game server: whole plays by many concurrent players, on loopback.

Run: ``.venv/bin/python benchmarks/load_server.py [--backend sqlite|postgresql|both]
[--players 50] [--duration 20] [--healthz-seconds 8] [--rounds 4] [--workers 2]
[--no-access-log]``.

For each backend it starts the real server (``colour-collector serve --workers N``) on a fresh
database (an SQLite file, or a throwaway PostgreSQL 15 cluster started like the test suite's),
registers and funds the players, then runs ``--players`` asyncio players, each on its own
keep-alive connection (``lean_client``), playing whole games (purchase, every step, FINISH).

After ``--warmup`` seconds the run alternates ``--rounds`` times between a play window and a
``/healthz`` window: in a ``/healthz`` window every player pauses its play and sends ``GET
/healthz`` on its own connection until the window ends, then goes on with its play. So plays and
``/healthz`` are measured on the same connections (with several server processes, the kernel
shares the connections out among them unevenly, differently for each set of connections) and at
the same moments of the machine's speed, interleaved: their ratio, complete plays per 1,000
``/healthz`` requests, is the figure that compares runs. ``--duration`` and
``--healthz-seconds`` are the totals of the two kinds of window.

It reports complete plays per second, p50/p99 latency per endpoint as the client saw it, errors
(any answer that is not the expected 2xx, or a connection error), and checks that nothing was
lost (each player's balance and play count against what its answers said; the audit chain).

This is a measurement, not a test: figures go into docs/load.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import uvloop

from colour_collector.service import audit
from colour_collector.store import Database
from lean_client import Answer, ConnectionLostError, LeanClient, confirmation_token
from server_connections import balance, split

SECRET = "load-benchmark-secret-key-not-for-production-0123456789"
PASSWORD = "load benchmark password"
DEPOSIT = 100_000
"""One test deposit: the largest allowed (£1,000, 200 plays)."""
PRICE = 500
PG_BIN = max(
    Path("/usr/lib/postgresql").glob("*/bin"),
    key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0,
    default=Path("/usr/lib/postgresql/15/bin"),
)
"""Debian's newest PostgreSQL server (the figures in docs/ were measured with 15)."""


# -- servers ---------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def postgres_cluster() -> Iterator[str]:
    """A throwaway PostgreSQL 15 cluster on loopback; yields a database URL."""
    base = Path(tempfile.mkdtemp(prefix="cc-load-pg-"))
    as_postgres: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root
        user = pwd.getpwnam("postgres")
        os.chown(base, user.pw_uid, user.pw_gid)
        as_postgres = ["runuser", "-u", "postgres", "--"]
    base.chmod(0o700)
    data, log, port = base / "data", base / "server.log", free_port()
    initdb = [str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"]
    subprocess.run(
        [*as_postgres, *initdb, "-E", "UTF8", "--locale=C"], check=True, capture_output=True
    )
    # PostgreSQL's defaults otherwise: fsync and synchronous_commit on (durable commits).
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {base} -c max_connections=200"
    pg_ctl = str(PG_BIN / "pg_ctl")
    subprocess.run(
        [*as_postgres, pg_ctl, "-D", str(data), "-l", str(log), "-o", options, "-w", "start"],
        check=True,
        capture_output=True,
    )
    try:
        with psycopg.connect(
            f"host=127.0.0.1 port={port} user=postgres dbname=postgres", autocommit=True
        ) as connection:
            connection.execute('CREATE DATABASE "colour_load"')
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/colour_load"
    finally:
        subprocess.run(
            [*as_postgres, pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(base, ignore_errors=True)


@dataclass(frozen=True)
class Server:
    """A server the benchmark started: its base URL, its first process and its port."""

    base: str
    pid: int
    port: int
    workers: int


@contextmanager
def server(
    url: str, workdir: Path, workers: int, access_log: bool, settings: dict[str, str]
) -> Iterator[Server]:
    """The real server on a free loopback port."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLOUR_COLLECTOR_")}
    env.update(
        COLOUR_COLLECTOR_ENVIRONMENT="test",
        COLOUR_COLLECTOR_SECRET_KEY=SECRET,
        COLOUR_COLLECTOR_DATABASE_URL=url,
        COLOUR_COLLECTOR_DATA_DIR=str(workdir),
        COLOUR_COLLECTOR_WEB_DIR=str(workdir / "no-web"),
        COLOUR_COLLECTOR_TRY_PLAYS_PER_HOUR="1000000",
        # Players register before the measured window: the cheapest password hashing.
        COLOUR_COLLECTOR_PASSWORD_HASH_TIME_COST="1",
        COLOUR_COLLECTOR_PASSWORD_HASH_MEMORY_KIB="8",
        COLOUR_COLLECTOR_PASSWORD_HASH_PARALLELISM="1",
        **settings,
    )
    command = [
        sys.executable,
        "-c",
        "from colour_collector.cli.app import main; main()",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--access-log" if access_log else "--no-access-log",
    ]
    with (workdir / f"server-{port}.log").open("w") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((workdir / f"server-{port}.log").read_text())
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        yield Server(base, process.pid, port, workers)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


# -- players ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Schedule:
    """After ``warmup`` seconds, ``rounds`` times: ``play`` seconds of plays, then ``health``
    seconds of ``/healthz``; then plays until every player has finished the one it is in."""

    start: float
    warmup: float
    play: float
    health: float
    rounds: int

    @property
    def end(self) -> float:
        return self.start + self.warmup + self.rounds * (self.play + self.health)

    def window(self, at: float) -> tuple[str, int] | None:
        """The window ``at`` falls in: ``("play", k)`` or ``("healthz", k)``; None in the
        warm-up and after the last round."""
        into = at - self.start - self.warmup
        if into < 0:
            return None
        k = int(into // (self.play + self.health))
        if k >= self.rounds:
            return None
        return ("play", k) if into - k * (self.play + self.health) < self.play else ("healthz", k)

    def bounds(self, kind: str, k: int) -> tuple[float, float]:
        """When window ``(kind, k)`` begins and ends."""
        begin = self.start + self.warmup + k * (self.play + self.health)
        if kind == "healthz":
            begin += self.play
        return begin, begin + (self.play if kind == "play" else self.health)


@dataclass
class Stats:
    """What the players saw (times are monotonic seconds)."""

    latencies: dict[str, list[tuple[float, float]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    """Per endpoint: (when the request was sent; how long it took)."""
    errors: list[str] = field(default_factory=list)
    finished: list[float] = field(default_factory=list)
    """When each complete play's FINISH was answered."""
    healthz: list[float] = field(default_factory=list)
    """When each ``/healthz`` was answered 200 in a ``/healthz`` window."""
    entered: dict[tuple[str, int], list[float]] = field(default_factory=lambda: defaultdict(list))
    """Per window (but the first play window): when each player was in its mode, its previous
    kind of request answered."""
    stopped: list[float] = field(default_factory=list)
    """When a player stopped on an error."""
    steps: int = 0


@dataclass
class Player:
    """One player's client and what its answers said."""

    client: LeanClient
    deposited: int = 0
    bought: int = 0
    prizes: int = 0


async def timed(stats: Stats, name: str, call: Any) -> Answer | None:
    sent, start = time.monotonic(), time.perf_counter()
    try:
        answer: Answer = await call
    except (OSError, asyncio.IncompleteReadError, ConnectionLostError) as error:
        stats.errors.append(f"{name}: {type(error).__name__}: {error}")
        return None
    stats.latencies[name].append((sent, time.perf_counter() - start))
    return answer


def expect(answer: Answer, status: int, what: str) -> None:
    if answer.status != status:
        raise RuntimeError(f"{what}: {answer.status} {answer.text[:200]}")


async def sign_up(base: str, n: int, outbox: Path) -> Player:
    host, port = base.removeprefix("http://").split(":")
    client = LeanClient(host, int(port))
    token = (await client.get("/api/csrf")).json()["csrf_token"]
    client.headers["X-CSRF-Token"] = token
    email = f"load-{uuid.uuid4().hex[:8]}-{n}@example.com"
    body = {"email": email, "password": PASSWORD, "date_of_birth": "1980-01-01"}
    expect(await client.post("/api/register", body), 202, "register")
    token = confirmation_token(outbox, email)  # the mailed link: confirming logs in
    expect(
        await client.post("/api/register/confirm", {"token": token, "password": PASSWORD}),
        200,
        "confirm",
    )
    client.headers["X-CSRF-Token"] = client.cookies["cc_csrf"]  # issued for the new session
    player = Player(client)
    await deposit(player)
    return player


async def deposit(player: Player) -> None:
    answer = await player.client.post("/api/wallet/test-deposit", {"amount_pence": DEPOSIT})
    expect(answer, 201, "deposit")
    player.deposited += DEPOSIT


async def healthz_break(client: LeanClient, stats: Stats, schedule: Schedule) -> bool:
    """In a ``/healthz`` window, send ``GET /healthz`` until it ends, then note when the player
    was back at its plays. False when a request failed (noted in ``stats.errors``)."""
    now = time.monotonic()
    where = schedule.window(now)
    if where is None or where[0] != "healthz":
        return True
    k = where[1]
    stats.entered["healthz", k].append(now)
    until = schedule.bounds("healthz", k)[1]
    while time.monotonic() < until:
        answer = await timed(stats, "GET /healthz", client.get("/healthz"))
        if answer is None:
            return False
        if answer.status != 200:
            stats.errors.append(f"healthz: {answer.status} {answer.text[:200]}")
            return False
        stats.healthz.append(time.monotonic())
    stats.entered["play", k + 1].append(time.monotonic())
    return True


async def play_games(player: Player, stats: Stats, schedule: Schedule) -> None:
    """Whole plays, pausing for the ``/healthz`` windows, until the schedule ends (the play in
    progress then is finished); on an error the player stops."""
    if not await _play_games(player, stats, schedule):
        stats.stopped.append(time.monotonic())


async def _play_games(player: Player, stats: Stats, schedule: Schedule) -> bool:
    client = player.client
    while time.monotonic() < schedule.end:
        if not await healthz_break(client, stats, schedule):
            return False
        key = uuid.uuid4().hex
        bought = await timed(
            stats,
            "POST /api/plays",
            client.post("/api/plays", {"confirm": True}, {"Idempotency-Key": key}),
        )
        if bought is None:
            return False
        if bought.status == 409 and bought.json().get("code") == "insufficient_funds":
            await deposit(player)
            continue
        if bought.status != 201:
            stats.errors.append(f"purchase: {bought.status} {bought.text[:200]}")
            return False
        player.bought += 1
        body = bought.json()
        number, board = body["play"]["play_number"], body["board"]
        while board["next"] is not None:
            if not await healthz_break(client, stats, schedule):
                return False
            step = {"kind": board["next"]}
            if board["next"] == "bonus_pick":
                step["pick"] = "odd"
            answer = await timed(
                stats,
                "POST /api/plays/{n}/steps",
                client.post(f"/api/plays/{number}/steps", step),
            )
            if answer is None or answer.status != 200:
                stats.errors.append(
                    f"step: {answer and answer.status} {answer and answer.text[:200]}"
                )
                return False
            stats.steps += 1
            board = answer.json()["board"]
        if not await healthz_break(client, stats, schedule):
            return False
        done = await timed(
            stats, "POST /api/plays/{n}/finish", client.post(f"/api/plays/{number}/finish", {})
        )
        if done is None or done.status != 200:
            stats.errors.append(f"finish: {done and done.status} {done and done.text[:200]}")
            return False
        player.prizes += done.json()["prize_pence"]
        stats.finished.append(time.monotonic())
    return True


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def spans(stats: Stats, schedule: Schedule, players: int, kind: str) -> list[tuple[float, float]]:
    """The measured part of each ``kind`` window: from the moment every player still playing at
    its beginning was in the window's mode (its requests of the other kind all answered) to the
    window's end. A window that some player never reached that way (still in a request of the
    other kind at its end, or stopped by an error during it) is left out."""
    measured = []
    for k in range(schedule.rounds):
        begin, end = schedule.bounds(kind, k)
        if kind == "play" and k == 0:
            measured.append((begin, end))  # the warm-up was plays too
            continue
        present = players - sum(1 for at in stats.stopped if at < begin)
        entered = stats.entered.get((kind, k), [])
        if entered and len(entered) >= present and max(entered) < end:
            measured.append((max(entered), end))
    return measured


def rate(events: list[float], measured: list[tuple[float, float]]) -> float | None:
    """Events a second within ``measured``; None when nothing was measured."""
    seconds = sum(end - begin for begin, end in measured)
    if seconds <= 0:
        return None
    return sum(1 for at in events if any(b <= at < e for b, e in measured)) / seconds


async def run_load(
    served: Server, players: int, args: argparse.Namespace, *, outbox: Path
) -> dict[str, Any]:
    """Sign the players up, then play on the schedule (see the module's docstring).

    Plays and ``/healthz`` requests count by when they were answered, within the measured part
    of their windows (``spans``): both rates leave out the moments when some player's request of
    the other kind was still being served. Latencies count by when the request was sent, in the
    play windows. The warm-up leaves out the start, when every player buys at the same moment,
    and the end, when players finish their last play one by one; the p99 over the whole run is
    reported too."""
    signed = []
    for batch in range(0, players, 10):  # Argon2 hashing: a few at a time
        signed += await asyncio.gather(
            *(sign_up(served.base, n, outbox) for n in range(batch, min(players, batch + 10)))
        )
    clients = [player.client for player in signed]
    if args.balance and served.workers > 1:
        counts = await balance(clients, served.pid, served.port, served.workers, touch_healthz)
        if max(counts) - min(counts) > 1:
            print(f"warning: the connections could not be spread evenly: {counts}", file=sys.stderr)
    split_before = connection_split(clients, served)
    stats = Stats()
    cpu_before = time.process_time()
    start = time.monotonic()
    schedule = Schedule(
        start,
        args.warmup,
        args.duration / args.rounds,
        args.healthz_seconds / args.rounds,
        args.rounds,
    )
    await asyncio.gather(*(play_games(p, stats, schedule) for p in signed))
    players_cpu = time.process_time() - cpu_before
    players_wall = time.monotonic() - start
    measured = {
        name: [took for sent, took in values if (schedule.window(sent) or ("",))[0] == "play"]
        for name, values in stats.latencies.items()
        if name != "GET /healthz"
    }
    play_spans = spans(stats, schedule, players, "play")
    health_spans = spans(stats, schedule, players, "healthz")
    plays_rate = rate(stats.finished, play_spans)
    health_rate = rate(stats.healthz, health_spans)
    answered = [sent + took for values in stats.latencies.values() for sent, took in values]

    split_after = connection_split(clients, served)
    lost = []
    for player in signed:  # nothing lost: the server's books agree with what the answers said
        wallet = (await player.client.get("/api/wallet")).json()["balance_pence"]
        games = (await player.client.get("/api/my-games?per_page=1")).json()["total"]
        expected = player.deposited - PRICE * player.bought + player.prizes
        if wallet != expected or games != player.bought:
            lost.append(f"balance {wallet} != {expected} or plays {games} != {player.bought}")
        await player.client.close()

    health = [took for _, took in stats.latencies["GET /healthz"]]
    result: dict[str, Any] = {
        "players": players,
        "seconds": args.duration,
        "healthz_seconds": args.healthz_seconds,
        "rounds": args.rounds,
        "warmup_seconds": args.warmup,
        "measured_seconds": round(sum(e - b for b, e in play_spans), 2),
        "healthz_measured_seconds": round(sum(e - b for b, e in health_spans), 2),
        "plays": sum(1 for at in stats.finished if any(b <= at < e for b, e in play_spans)),
        "plays_per_second": None if plays_rate is None else round(plays_rate, 1),
        "plays_per_second_by_round": [round(rate(stats.finished, [s]) or 0, 1) for s in play_spans],
        "requests_per_second": round(rate(answered, play_spans) or 0, 1),
        "steps_per_play": round(stats.steps / max(1, len(stats.finished)), 2),
        "players_cpu_share": round(players_cpu / players_wall, 2),
        "connections_by_process": {"before": split_before, "after": split_after},
        "errors": len(stats.errors),
        "error_samples": stats.errors[:5],
        "lost": lost[:5],
        "endpoints": {
            name: {
                "requests": len(values),
                "p50_ms": round(1000 * percentile(values, 0.50), 1),
                "p99_ms": round(1000 * percentile(values, 0.99), 1),
                "p99_whole_run_ms": round(
                    1000 * percentile([took for _, took in stats.latencies[name]], 0.99), 1
                ),
            }
            for name, values in measured.items()
        },
        "healthz": {
            "requests_per_second": None if health_rate is None else round(health_rate, 1),
            "requests_per_second_by_round": [
                round(rate(stats.healthz, [s]) or 0, 1) for s in health_spans
            ],
            "p50_ms": round(1000 * percentile(health, 0.50), 1),
            "p99_ms": round(1000 * percentile(health, 0.99), 1),
        },
    }
    # The machine's speed drifts by up to two times within hours; plays per 1,000 /healthz
    # requests on the same server and connections, interleaved, moves much less.
    result["plays_per_1000_healthz"] = (
        None if plays_rate is None or not health_rate else round(1000 * plays_rate / health_rate, 1)
    )
    return result


async def touch_healthz(client: LeanClient) -> None:
    """One ``GET /healthz``, before the measured run (to reconnect a client)."""
    await client.get("/healthz")


def connection_split(clients: list[LeanClient], served: Server) -> list[int]:
    """How many of the players' connections each server process holds, largest first (and,
    last, how many it could not place, when there are any)."""
    groups, missing = split(clients, served.pid, served.port)
    counts = sorted((len(group) for group in groups.values()), reverse=True)
    return [*counts, missing] if missing else counts


def audit_ok(url: str) -> str:
    database = Database(url)
    try:
        report = audit.verify_chain(database)
    finally:
        database.dispose()
    return f"OK, {report.entries} entries"


def bench(backend: str, args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix=f"cc-load-{backend}-"))
    try:
        settings = {}
        if args.request_threads is not None:
            settings["COLOUR_COLLECTOR_REQUEST_THREADS"] = str(args.request_threads)
        if args.pool_size is not None:
            settings["COLOUR_COLLECTOR_DATABASE_POOL_SIZE"] = str(args.pool_size)
        # Pinned (the server's own floor is a sleep that holds no thread; with 50 players in a
        # closed loop a longer one would measure the sleep, not the server's cost).
        settings["COLOUR_COLLECTOR_PURCHASE_ANSWER_FLOOR_MS"] = str(args.purchase_floor_ms)
        workers = args.workers if backend == "postgresql" else 1  # SQLite: one process
        with (
            postgres_cluster()
            if backend == "postgresql"
            else nullcontext(f"sqlite:///{workdir / 'colour-collector.sqlite3'}")
        ) as url:
            with server(url, workdir, workers, not args.no_access_log, settings) as served:
                # uvloop (installed with the server) keeps the players' own CPU use down: they
                # share the two cores with the server.
                result = uvloop.run(run_load(served, args.players, args, outbox=workdir / "outbox"))
            result["audit"] = audit_ok(url)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    result["backend"] = backend
    result["workers"] = workers
    return result


@contextmanager
def nullcontext(value: str) -> Iterator[str]:
    yield value


def show(result: dict[str, Any]) -> None:
    print(
        f"\n== {result['backend']} ({result['workers']} server processes): {result['players']}"
        f" players, {result['seconds']} s of plays and {result['healthz_seconds']} s of /healthz"
        f" in {result['rounds']} rounds after {result['warmup_seconds']} s of warm-up =="
    )
    print(
        f"complete plays/s: {result['plays_per_second']}  ({result['plays']} plays,"
        f" {result['steps_per_play']} steps a play, {result['requests_per_second']} requests/s)"
    )
    print(
        f"measured: {result['measured_seconds']} s of plays, {result['healthz_measured_seconds']}"
        " s of /healthz (each window from the moment every player was in it)"
    )
    print(f"plays/s in each round: {result['plays_per_second_by_round']}")
    print(f"load generator CPU: {result['players_cpu_share']:.0%} of one core")
    split_seen = result["connections_by_process"]
    print(
        f"players' connections by server process: {split_seen['before']} at the start,"
        f" {split_seen['after']} at the end"
    )
    print(
        f"errors: {result['errors']} {result['error_samples']}  lost: {result['lost'] or 'none'}"
        f"  audit: {result['audit']}"
    )
    for name, figures in result["endpoints"].items():
        print(
            f"  {name:30} n={figures['requests']:6}  p50 {figures['p50_ms']:6.1f} ms"
            f"  p99 {figures['p99_ms']:6.1f} ms  (whole run p99 {figures['p99_whole_run_ms']:.1f})"
        )
    health = result["healthz"]
    print(f"/healthz req/s in each round: {health['requests_per_second_by_round']}")
    print(
        f"  {'GET /healthz':30} {health['requests_per_second']} req/s  p50"
        f" {health['p50_ms']:.1f} ms  p99 {health['p99_ms']:.1f} ms"
    )
    print(
        f"complete plays per 1,000 /healthz requests: {result['plays_per_1000_healthz']}"
        " (compares runs across the machine's changes of speed)"
    )


def positive(kind: type[int] | type[float]) -> Any:
    """An argparse type: a number of ``kind`` above zero."""

    def parse(text: str) -> int | float:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be above 0, not {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--players", type=positive(int), default=50)
    parser.add_argument(
        "--duration", type=positive(float), default=20.0, help="seconds of plays, in all"
    )
    parser.add_argument(
        "--warmup", type=float, default=2.0, help="seconds played before the measured window"
    )
    parser.add_argument(
        "--healthz-seconds", type=positive(float), default=8.0, help="seconds of /healthz, in all"
    )
    parser.add_argument(
        "--rounds", type=positive(int), default=4, help="play and /healthz windows, alternating"
    )
    parser.add_argument(
        "--request-threads", type=int, help="COLOUR_COLLECTOR_REQUEST_THREADS (default: its own)"
    )
    parser.add_argument(
        "--purchase-floor-ms",
        type=int,
        default=150,
        help="COLOUR_COLLECTOR_PURCHASE_ANSWER_FLOOR_MS (default: 150, as every figure in"
        " docs/load.md; the server's own is 1000, decision 0103)",
    )
    parser.add_argument(
        "--pool-size",
        type=int,
        help="COLOUR_COLLECTOR_DATABASE_POOL_SIZE, PostgreSQL (default: its own)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="server processes on PostgreSQL (serve --workers); SQLite is served by one",
    )
    parser.add_argument(
        "--no-access-log",
        action="store_true",
        help="serve --no-access-log (by default the server logs every request)",
    )
    parser.add_argument(
        "--no-balance",
        dest="balance",
        action="store_false",
        help="leave the players' connections where the kernel put them (by default they are"
        " spread evenly over the server processes, as a load balancer would)",
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    print(
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs,"
        f" workers={args.workers}, access log={'off' if args.no_access_log else 'on'}"
    )
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    results = [bench(backend, args) for backend in backends]
    for result in results:
        show(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
