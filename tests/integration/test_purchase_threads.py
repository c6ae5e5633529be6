"""Purchases run on worker threads of their own (``PURCHASE_THREADS``, decision 0151): a purchase
waiting for its play's build holds no thread that other requests need.

For a pool position every purchase of a process expects the same play and waits for its one
build (``service/play_builds.py``), up to 650 ms for a rare prize's. On the requests' threads,
four buyers of a £1,000,000 position held all four, and anyone's request waited for the build:
its time told the prize. Here the builds are held open (the service's ``_build`` waits for the
test) until the test has seen another request answered, on one event loop with the app's
lifespan, as the server runs it.
"""

from __future__ import annotations

import threading
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
        buyers = [_signed_up(application, new_client, f"buyer{i}@example.com") for i in (1, 2)]
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
                    # Both purchases are building, on both purchase threads; the one
                    # request thread is free for anyone else.
                    with anyio.fail_after(20):
                        await builds_started(len(buyers))
                    async with client(other) as http:
                        with anyio.fail_after(20):
                            answers["other"] = await http.get("/api/wallet")
                    answers["built while answered"] = not release.is_set()
                finally:
                    release.set()

        anyio.run(main)
    finally:
        application.state.database.dispose()

    assert answers["other"].status_code == 200, answers["other"].text
    assert answers["other"].json()["balance_pence"] == 2000
    assert answers["built while answered"]
    for name in ("buyer0", "buyer1"):
        assert answers[name].status_code == 201, answers[name].text
        assert answers[name].json()["balance_pence"] == 1500


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
