"""Prometheus metrics at ``/metrics``.

Two kinds, scraped differently:

- **Per process**, kept by prometheus-client as requests pass (``RequestMetrics``): request
  latency by route (``colour_collector_request_seconds``) and answers of 400 or more by status
  (``colour_collector_request_errors_total``). Each process has its own; with several processes
  (``serve --workers N``) either scrape each, or set ``PROMETHEUS_MULTIPROC_DIR`` (an empty
  directory, before the server starts) so that any process answers for all of them
  (prometheus-client's multiprocess mode).
- **The game's**, read from the database at each scrape (``GameCollector``), the same whichever
  process answers: plays sold, plays in progress, prizes paid (count and pence), stakes of the
  plays sold, the payout of the finished plays, and the plays left in the prize pool on sale.
  Each scrape runs one aggregate query over the plays.

  No figure moves with the prize of a play not finished yet: a scrape between a purchase and its
  FINISH would otherwise tell the play's prize before the player has seen it (the prize is fixed
  at purchase). So the payout is that of the finished plays, as in the console.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from colour_collector.game.pool import PrizePool
from colour_collector.service import monitoring
from colour_collector.service.ports import UnitOfWorkFactory

log = logging.getLogger(__name__)

PROCESS_METRICS = CollectorRegistry(auto_describe=True)
"""Where this process's request metrics live."""
REQUEST_SECONDS = Histogram(
    "colour_collector_request_seconds",
    "Time from a request's arrival to the end of its answer, by route.",
    ["method", "route"],
    registry=PROCESS_METRICS,
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
REQUEST_ERRORS = Counter(
    "colour_collector_request_errors",
    "Answers with a status of 400 or more, by status.",
    ["status"],
    registry=PROCESS_METRICS,
)
MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus-client's own variable: set, every process's request metrics are shared."""


class RequestMetrics:
    """ASGI middleware timing every HTTP request and counting its errors (a few microseconds a
    request)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            route = scope.get("route")
            path = getattr(route, "path", None)
            REQUEST_SECONDS.labels(scope["method"], path or "static").observe(
                time.perf_counter() - started
            )
            if status >= 400:
                REQUEST_ERRORS.labels(str(status)).inc()


class GameCollector(Collector):
    """The game's figures, read from the database when scraped."""

    def __init__(
        self, database: UnitOfWorkFactory, pool: PrizePool, price_pence: int, *, pools: bool
    ) -> None:
        self.database = database
        self.pool = pool
        self.price_pence = price_pence
        self.pools = pools
        """Whether plays are dealt from prize pools (``DRAW_MODE=pool``)."""

    def collect(self) -> Iterator[Metric]:
        figures = monitoring.figures_now(self.database, self.pool, self.price_pence)
        left = monitoring.pool_left_now(self.database, self.pool)
        yield _gauge("colour_collector_plays_sold", "Plays sold.", figures.plays)
        yield _gauge(
            "colour_collector_plays_in_progress", "Plays not finished.", figures.in_progress
        )
        yield _gauge(
            "colour_collector_prizes_paid", "Finished plays with a prize.", figures.paid_plays
        )
        yield _gauge(
            "colour_collector_prizes_paid_pence", "Prizes credited, pence.", figures.paid_pence
        )
        yield _gauge(
            "colour_collector_stakes_pence",
            "Stakes of the plays sold, pence.",
            figures.stakes_pence,
        )
        if figures.finished:
            yield _gauge(
                "colour_collector_payout_ratio",
                "Payout of the finished plays: prizes credited over their stakes"
                " (published: 0.735).",
                figures.payout.observed,
            )
        if self.pools:  # 0 once the last pool is sold out or withdrawn: an alert on it holds
            yield _gauge(
                "colour_collector_pool_remaining",
                "Plays left in the prize pool on sale (0: none on sale).",
                0 if left is None else left.remaining,
            )


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


class _ProcessMetrics(Collector):
    def collect(self) -> Iterable[Metric]:
        return PROCESS_METRICS.collect()


def registry_for(
    database: UnitOfWorkFactory, pool: PrizePool, price_pence: int, *, pools: bool
) -> CollectorRegistry:
    """What ``/metrics`` shows for an app: the request metrics (this process's, or every
    process's in multiprocess mode) and the game's figures."""
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get(MULTIPROCESS_DIR):
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # untyped upstream
    else:
        registry.register(_ProcessMetrics())
    registry.register(GameCollector(database, pool, price_pence, pools=pools))
    return registry


def exposition(registry: CollectorRegistry) -> tuple[bytes, str]:
    """The text a scrape gets, and its content type."""
    return generate_latest(registry), CONTENT_TYPE_LATEST
