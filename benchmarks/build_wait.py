"""How long anyone's request waits while other players' purchases build their plays.

Run: ``cd benchmarks && ../.venv/bin/python build_wait.py [--buyers 4] [--rounds 20]
[--delay-ms 30]``.

A testing lab's way of asking what the purchases' building tells (decision 0151): in each round
``--buyers`` players buy at once from the prize pool on sale and, ``--delay-ms`` after, another
player asks for its wallet (``GET /api/wallet``); the wallet's answer time is recorded. The
buyers all expect the next position: one of them builds its play and the others wait for that
build (``service/play_builds.py``), then those that lose the position to the first expect the
next one, and so on, so a round builds one play for each buyer, one after another. The rounds
run twice, on a fresh app each, in test mode with a small pool loaded: every position a
£1,000,000 play (the slowest to build, 0.2 to 0.65 s), then every position a loss (under a
millisecond). The app runs in this process on one event loop with its lifespan, as the server
does, called through ASGI (no sockets). The figure is the wallet's wait behind rare builds next
to its wait behind losses; this is a measurement, not a test
(``tests/integration/test_purchase_threads.py`` checks that a purchase waiting for a build holds
no request thread).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import statistics
import sys
import tempfile
import time
from pathlib import Path

from colour_collector.game.pool_file import PoolFile
from colour_collector.game.pool_parameters import PoolParameters
from colour_collector.game.prize_table import load_tiers, tier_by_name
from colour_collector.game.versions import current_versions
from colour_collector.server.app import create_app
from colour_collector.server.settings import DrawMode
from colour_collector.service import pools
from request_cost import Costs, Player, bench_settings, expect, play_out, sign_up

TOP = "£1,000,000"


def pool_of(outcome: str | None, size: int) -> PoolFile:
    """A test pool of ``size`` plays, every one of them ``outcome`` (None: a loss)."""
    counts = [0] * len(load_tiers())
    if outcome is not None:
        counts[tier_by_name(outcome).index] = size
    parameters = PoolParameters(size, tuple(counts), current_versions())
    return PoolFile.build(parameters, dt.datetime.now(dt.UTC))


async def measure(
    outcome: str | None, data_dir: Path, buyers: int, rounds: int, delay: float
) -> list[float]:
    """The wallet's answer times (seconds), one a round, while ``buyers`` buy ``outcome``."""
    settings = bench_settings(data_dir).model_copy(update={"draw_mode": DrawMode.POOL})
    app = create_app(settings)
    pools.load(
        app.state.database,
        pool_of(outcome, buyers * rounds),
        settings.pool_key,
        published_only=False,
    )
    players = [Player(app) for _ in range(buyers + 1)]
    *buying, other = players
    waits: list[float] = []
    async with app.router.lifespan_context(app):
        for player in players:
            await sign_up(player, settings.mail_outbox)
        for player in buying:
            deposit = {"amount_pence": 5 * rounds * 100}
            expect(*await player.call("POST", "/api/wallet/test-deposit", deposit), 201, "deposit")
        for _ in range(rounds):
            purchases = [
                asyncio.create_task(player.call("POST", "/api/plays", {"confirm": True}))
                for player in buying
            ]
            await asyncio.sleep(delay)
            started = time.perf_counter()
            expect(*await other.call("GET", "/api/wallet"), 200, "wallet")
            waits.append(time.perf_counter() - started)
            for player, bought in zip(buying, await asyncio.gather(*purchases), strict=True):
                expect(*bought, 201, "purchase")
                body = bought[1]
                await play_out(player, body["play"]["play_number"], body["board"], Costs())
    app.state.database.dispose()
    return waits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--buyers", type=int, default=4, help="players buying at once")
    parser.add_argument("--rounds", type=int, default=20, help="rounds for each outcome")
    parser.add_argument(
        "--delay-ms", type=float, default=30, help="from the purchases to the wallet"
    )
    args = parser.parse_args()
    if args.buyers < 1 or args.rounds < 1 or args.delay_ms < 0:
        parser.error("--buyers and --rounds must be at least 1, --delay-ms at least 0")
    print(f"CPython {sys.version.split()[0]}; {args.buyers} buyers, {args.rounds} rounds")
    current_versions()  # the generator's sample, worked out once before any timing
    for outcome in (TOP, None):
        with tempfile.TemporaryDirectory(prefix="cc-build-wait-") as workdir:
            waits = asyncio.run(
                measure(outcome, Path(workdir), args.buyers, args.rounds, args.delay_ms / 1000)
            )
        ms = sorted(1000 * w for w in waits)
        print(
            f"  buyers of {outcome or 'a loss'}: GET /api/wallet answered in median"
            f" {statistics.median(ms):.1f} ms, worst {ms[-1]:.1f} ms"
        )


if __name__ == "__main__":
    main()
