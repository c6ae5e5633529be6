"""Requests run on ``REQUEST_THREADS`` of AnyIO's worker threads (decision 0003): the app's
lifespan sets AnyIO's default thread limiter, which FastAPI's plain ``def`` routes go through."""

from __future__ import annotations

from pathlib import Path

import anyio.to_thread
import pytest
from fastapi.testclient import TestClient

from colour_collector.server.app import create_app
from colour_collector.server.settings import Settings
from support import make_settings


def _worker_threads(settings: Settings) -> int:
    app = create_app(settings)
    try:
        with TestClient(app) as client:  # runs the lifespan
            assert client.get("/healthz").status_code == 200
            tokens = client.portal.call(
                lambda: anyio.to_thread.current_default_thread_limiter().total_tokens
            )
    finally:
        app.state.database.dispose()
    return int(tokens)


@pytest.mark.parametrize("threads", [None, 3])
def test_the_server_runs_requests_on_its_worker_threads(
    database_url: str, tmp_path: Path, threads: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLOUR_COLLECTOR_REQUEST_THREADS", raising=False)
    settings = make_settings(database_url, tmp_path)
    if threads is not None:
        settings = settings.model_copy(update={"request_threads": threads})
    # The default is four (docs/operations.md): AnyIO's own default would be forty.
    assert _worker_threads(settings) == (threads or 4)
