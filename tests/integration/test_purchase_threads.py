"""Purchases run on worker threads of their own (``PURCHASE_THREADS``, decision 0003): a purchase
waiting for its play's build holds no thread that other requests need (decision 0151).

For a pool position every purchase of a process expects the same play and waits for its one
build (``service/play_builds.py``), up to 650 ms for a rare prize's. On the requests' threads,
four buyers of a £1,000,000 position held all four, and anyone's request waited for the build:
its time told the prize. Here the builds are held open (the service's ``_build`` waits for the
test) until the test has seen another request answered, on one event loop with the app's
lifespan, as the server runs it.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from pydantic import ValidationError

from colour_collector.cli.base import settings_error
from colour_collector.server.app import create_app
from colour_collector.server.settings import Settings
from colour_collector.service import purchase as buying
from support import make_settings


def _signed_up(application: Any, new_client: Any, email: str) -> dict[str, Any]:
    """A player with £20 (through the API on its own client): cookies and CSRF header."""
    client = new_client(application)
    client.sign_up(email)
    assert client.post("/api/wallet/test-deposit", json={"amount_pence": 2000}).status_code == 201
    return {
        "cookies": {name: client.cookies[name] for name in ("cc_session", "cc_csrf")},
        "headers": {"X-CSRF-Token": client.cookies["cc_csrf"]},
    }


def test_a_request_is_answered_while_every_purchase_thread_waits_for_a_build(
    database_url: str, tmp_path: Path, new_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(database_url, tmp_path).model_copy(
        update={"request_threads": 1, "purchase_threads": 2}
    )
    application = create_app(settings)
    try:
        # Three buyers for two purchase threads: the third waits for a thread, holding none.
        buyers = [_signed_up(application, new_client, f"buyer{i}@example.com") for i in range(3)]
        other = _signed_up(application, new_client, "other@example.com")

        building = threading.Semaphore(0)
        release = threading.Event()
        build = buying._build

        def held_build(deal: Any) -> Any:
            building.release()
            assert release.wait(30), "the test never let the build finish"
            return build(deal)

        monkeypatch.setattr(buying, "_build", held_build)
        answers: dict[str, Any] = {}

        def client(who: dict[str, Any]) -> httpx.AsyncClient:
            return httpx.AsyncClient(
                transport=httpx.ASGITransport(app=application),
                base_url="http://testserver",
                cookies=who["cookies"],
                headers=who["headers"],
            )

        async def buy(name: str, who: dict[str, Any]) -> None:
            async with client(who) as http:
                answers[name] = await http.post("/api/plays", json={"confirm": True})

        async def builds_started(count: int) -> None:
            while count:
                if building.acquire(blocking=False):
                    count -= 1
                else:
                    await anyio.sleep(0.01)

        async def main() -> None:
            async with (
                application.router.lifespan_context(application),
                anyio.create_task_group() as group,
            ):
                for i, who in enumerate(buyers):
                    group.start_soon(buy, f"buyer{i}", who)
                try:
                    with anyio.move_on_after(10) as waited:
                        await builds_started(settings.purchase_threads)
                    if waited.cancelled_caught:
                        pytest.fail("two purchases never built at once: no threads of their own")
                    # Both purchase threads are held by builds; the one request thread is free.
                    async with client(other) as http:
                        with anyio.move_on_after(10) as waited:
                            answers["other"] = await http.get("/api/wallet")
                    if waited.cancelled_caught:
                        pytest.fail("another player's request waited for the purchases' builds")
                    answers["built while answered"] = not release.is_set()
                finally:
                    release.set()

        anyio.run(main)
    finally:
        application.state.database.dispose()

    assert answers["other"].status_code == 200, answers["other"].text
    assert answers["other"].json()["balance_pence"] == 2000
    assert answers["built while answered"]
    for i in range(3):
        assert answers[f"buyer{i}"].status_code == 201, answers[f"buyer{i}"].text
        assert answers[f"buyer{i}"].json()["balance_pence"] == 1500


def test_each_event_loop_has_purchase_threads_of_its_own(
    database_url: str, tmp_path: Path, new_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One app called from several event loops at once (a ``TestClient`` makes one a request):
    each loop's purchases get their own threads, as AnyIO's default ones do. One limiter shared
    by the loops left the purchases of all but one waiting for ever."""
    settings = make_settings(database_url, tmp_path).model_copy(update={"purchase_threads": 1})
    application = create_app(settings)
    try:
        clients = [new_client(application) for _ in range(3)]
        for i, client in enumerate(clients):
            client.sign_up(f"buyer{i}@example.com")
            client.post("/api/wallet/test-deposit", json={"amount_pence": 500})
        together = threading.Barrier(len(clients), timeout=5)
        build = buying._build

        def build_together(deal: Any) -> Any:
            together.wait()  # every purchase builds at once, or the barrier breaks
            return build(deal)

        monkeypatch.setattr(buying, "_build", build_together)
        answers: dict[int, int] = {}

        def buy(i: int) -> None:
            answers[i] = clients[i].post("/api/plays", json={"confirm": True}).status_code

        # Daemon threads: a purchase left waiting for a thread must fail the test, not hang it.
        buying_threads = [threading.Thread(target=buy, args=(i,), daemon=True) for i in range(3)]
        for thread in buying_threads:
            thread.start()
        deadline = time.monotonic() + 30
        for thread in buying_threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
    finally:
        application.state.database.dispose()
    assert answers == dict.fromkeys(range(len(clients)), 201)


@pytest.mark.parametrize("pool_size", [8, 7])
def test_a_postgresql_pool_smaller_than_the_threads_is_warned_of(
    database_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture, pool_size: int
) -> None:
    settings = make_settings(database_url, tmp_path).model_copy(
        update={"request_threads": 4, "purchase_threads": 4, "database_pool_size": pool_size}
    )
    with caplog.at_level(logging.WARNING, logger="colour_collector.server.runtime"):
        create_app(settings).state.database.dispose()
    warned = [r.getMessage() for r in caplog.records if "DATABASE_POOL_SIZE" in r.getMessage()]
    if database_url.startswith("postgresql") and pool_size < 8:
        assert warned == [
            "COLOUR_COLLECTOR_REQUEST_THREADS (4) and COLOUR_COLLECTOR_PURCHASE_THREADS (4) may"
            " run 8 requests' database work at once, and COLOUR_COLLECTOR_DATABASE_POOL_SIZE is"
            " 7: the others wait for a connection (up to 30 s). Set the pool size to at least 8."
        ]
    else:  # SQLite has one connection by design; a pool of 8 is enough
        assert warned == []


@pytest.mark.parametrize(
    ("given", "wanted"),
    [(None, 4), ("2", 2), ("0", "greater than or equal to 1"), ("many", "a valid integer")],
)
def test_purchase_threads_come_from_the_environment_or_are_named_as_wrong(
    given: str | None, wanted: int | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if given is None:
        monkeypatch.delenv("COLOUR_COLLECTOR_PURCHASE_THREADS", raising=False)
    else:
        monkeypatch.setenv("COLOUR_COLLECTOR_PURCHASE_THREADS", given)
    if isinstance(wanted, int):
        assert Settings().purchase_threads == wanted
        return
    with pytest.raises(ValidationError) as refused:
        Settings()
    assert f"  COLOUR_COLLECTOR_PURCHASE_THREADS: Input should be {wanted}" in settings_error(
        refused.value
    )
