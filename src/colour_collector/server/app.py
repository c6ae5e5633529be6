"""The application factory: ``create_app(settings)``."""

from __future__ import annotations

import gc
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from fastapi.telemetry import TelemetryConfig

import colour_collector
from colour_collector.server import problem_handlers
from colour_collector.server.background import lifespan_for
from colour_collector.server.console import mount_tables
from colour_collector.server.metrics import RequestMetrics
from colour_collector.server.middleware import (
    BodyLimitMiddleware,
    CsrfMiddleware,
    HeadAsGet,
    SecurityHeadersMiddleware,
)
from colour_collector.server.request_log import RequestIds
from colour_collector.server.routes import (
    auth,
    game,
    health,
    information,
    metrics,
    operator,
    payments,
    plays,
    pools,
    protection,
    try_play,
    wallet,
)
from colour_collector.server.runtime import build_runtime
from colour_collector.server.settings import Settings
from colour_collector.service import clock
from colour_collector.service.clock import ShiftedClock
from colour_collector.store import Database, upgrade_to_head

WEB_DIR = Path(colour_collector.__file__).parent / "web"
"""The browser client shipped with the package."""

DESCRIPTION = """\
Colour Collector, an instant win game (£5 a play).

* Authentication: log in with `POST /api/login`; the session is an HttpOnly `cc_session`
  cookie.
* CSRF: every state-changing request must carry the value of the `cc_csrf` cookie in the
  `X-CSRF-Token` header (`GET /api/csrf` sets it and returns it).
* Errors are RFC 9457 `application/problem+json` with a stable `code`.
* Money is integer pence. `POST /api/wallet/test-deposit` exists for test environments only.
"""

NO_TELEMETRY: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}
"""FastAPI's native OpenTelemetry, off: nothing here exports traces, metrics or logs to it."""


def migrate(settings: Settings) -> str:
    """Create the data directory if needed and migrate the database to head; its URL."""
    if not settings.database_url:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade_to_head(settings.resolved_database_url)
    return settings.resolved_database_url


def create_app(settings: Settings, *, database: Database | None = None) -> FastAPI:
    """Build the app: migrate the database, wire routes, error mapping, CSRF, body limit.

    ``database`` may be given to share an engine (tests); otherwise one is made from
    ``settings.resolved_database_url`` after the migrations are run to head.
    """
    owns_database = database is None
    if database is None:
        database = Database(migrate(settings), pool_size=settings.database_pool_size)

    app = FastAPI(
        title="Colour Collector",
        version="0.1.0",
        description=DESCRIPTION,
        openapi_url="/openapi.json" if settings.serves_api_docs else None,
        docs_url="/api/docs" if settings.serves_api_docs else None,
        redoc_url=None,
        lifespan=lifespan_for(database, settings, owns_database=owns_database),
        # The server's metrics are Prometheus's (server/metrics.py); FastAPI's native
        # OpenTelemetry would otherwise look up the global providers on every request.
        telemetry=NO_TELEMETRY,
    )
    clock.use(ShiftedClock(settings.clock_file) if settings.clock_file else clock.system_time)
    app.state.runtime = build_runtime(settings, database)
    app.state.database = database
    problem_handlers.install(app)
    for module in (
        plays,
        pools,
        try_play,
        wallet,
        payments,
        auth,
        protection,
        information,
        game,
        health,
        operator,
        metrics,
    ):
        app.include_router(module.router)
    # Added last = outermost: the request id, the metrics, the body limit, CSRF, then HEAD as GET.
    app.add_middleware(HeadAsGet)
    app.add_middleware(
        CsrfMiddleware,
        secret=settings.secret_key.get_secret_value().encode("utf-8"),
        secure=settings.cookies_secure,
        router=app.router,
    )
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityHeadersMiddleware, hsts=settings.cookies_secure)
    app.add_middleware(RequestMetrics)
    app.add_middleware(RequestIds)
    mount_tables(app, database)

    web_dir = settings.web_dir or WEB_DIR
    if (web_dir / "index.html").is_file():
        serve_client(app, web_dir)
    return app


def serve_client(app: FastAPI, web_dir: Path) -> None:
    """Serve the browser client: its page at ``/`` (and ``/index.html``), each folder of
    ``web_dir`` mounted at its own name (a folder's ``index.html`` at the folder: the operator's
    console at ``/operator/``). Not one mount at ``/``: that would also answer every
    path of the API the router does not know, so a wrong method on an API path would get a 404
    from the static files instead of a 405 naming the methods allowed."""
    index = web_dir / "index.html"

    async def page(request: Request) -> FileResponse:
        return FileResponse(index)

    for path in ("/", "/index.html"):
        app.add_route(path, page, methods=["GET"], include_in_schema=False)
    for folder in sorted(p for p in web_dir.iterdir() if p.is_dir()):
        app.mount(
            f"/{folder.name}", StaticFiles(directory=folder, html=True), name=f"web-{folder.name}"
        )


def frozen(app: FastAPI) -> FastAPI:
    """``app``, after moving every object made so far out of the garbage collector's way.

    The prize pool, the generator's tables and the app live as long as the process. Frozen
    (``gc.freeze``), the collector stops walking them on each full collection, which otherwise
    takes tens of milliseconds and stalls every request in flight.
    """
    gc.collect()
    gc.freeze()
    return app


def app_from_environment() -> FastAPI:
    """The app for these ``COLOUR_COLLECTOR_*`` settings (``serve --workers``' factory)."""
    return frozen(create_app(Settings()))
