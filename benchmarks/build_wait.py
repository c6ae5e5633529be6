"""How long anyone's request waits while other players' purchases build their plays.

Run: ``.venv/bin/python benchmarks/build_wait.py [--buyers 4] [--rounds 20] [--delay-ms 30]``.

A testing lab's way of asking what the purchases' building tells (decision 0151): in each round
``--buyers`` players buy at once and, ``--delay-ms`` after, another player asks for its wallet
(``GET /api/wallet``); the wallet's answer time is recorded. The rounds run twice on a fresh app
each, in test mode with an outcome script: every purchase a £1,000,000 play (the slowest to
build, 0.2 to 0.65 s), then every purchase a loss (under a millisecond). The app runs in this
process on one event loop with its lifespan, as the server does, called through ASGI (no
sockets). The figure is the wallet's wait behind rare builds next to its wait behind losses;
this is a measurement, not a test (``tests/integration/test_purchase_threads.py`` checks that a
purchase waiting for a build holds no request thread).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from colour_collector.server.app import create_app
from request_cost import Costs, Player, bench_settings, expect, play_out, sign_up

TOP = "£1,000,000"


async def measure(
    outcome: str | None, data_dir: Path, buyers: int, rounds: int, delay: float
) -> list[float]:
    """The wallet's answer times (seconds), one a round, while ``buyers`` buy ``outcome``."""
    script = data_dir / "outcomes.json"
    script.write_text(json.dumps([outcome] * buyers * rounds), encoding="utf-8")
    settings = bench_settings(data_dir).model_copy(update={"outcome_script": script})
    app = create_app(settings)
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
                await play_out(
                    player, bought[1]["play"]["play_number"], bought[1]["board"], Costs()
                )
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
