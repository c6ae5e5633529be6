"""What every answer says about itself: security headers, caching, and the API description
only where it is meant to be served."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from colour_collector.server.app import WEB_DIR, create_app
from colour_collector.server.middleware import CONTENT_SECURITY_POLICY
from support import free_port, make_settings, production_required


@pytest.fixture
def backend() -> str:
    """Headers are about the HTTP layer: SQLite is enough."""
    return "sqlite"


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Any:
    return make_settings(database_url, tmp_path, web_dir=WEB_DIR)


def test_pages_and_answers_carry_the_security_headers(player: Any) -> None:
    for path in ("/", "/js/app.js", "/api/me", "/api/wallet", "/api/nope", "/healthz"):
        answer = player.get(path)
        assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY, path
        assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "no-referrer"
        assert "strict-transport-security" not in answer.headers  # plain HTTP in tests
    for path in ("/api/me", "/api/wallet", "/api/session", "/api/my-games", "/api/nope"):
        assert player.get(path).headers["cache-control"] == "no-store", path
    assert "no-store" not in player.get("/js/app.js").headers.get("cache-control", "")
    assert "style=" not in player.get("/").text  # the page needs no inline style (the CSP)


def test_production_sends_hsts_and_hides_the_api_description(
    database_url: str, tmp_path: Path, new_client: Any
) -> None:
    production = make_settings(
        database_url,
        tmp_path,
        environment="production",
        secret_key="a-real-production-secret-of-enough-length-0123456789",
        test_deposits_enabled=False,
        secure_cookies=None,
        password_hash_time_cost=2,
        password_hash_memory_kib=19 * 1024,
        **production_required(free_port()),
    )
    application = create_app(production)
    try:
        client = new_client(application, https=True)
        answer = client.get("/healthz")
        assert answer.headers["strict-transport-security"].startswith("max-age=")
        for path in ("/openapi.json", "/api/docs"):
            assert client.get(path).status_code == 404, path
    finally:
        application.state.database.dispose()
    shown = create_app(make_settings(database_url, tmp_path, environment="production",
        secret_key="a-real-production-secret-of-enough-length-0123456789",
        test_deposits_enabled=False, api_docs=True, password_hash_time_cost=2,
        password_hash_memory_kib=19 * 1024, **production_required(free_port())))  # fmt: skip
    try:
        assert new_client(shown, https=True).get("/openapi.json").status_code == 200
    finally:
        shown.state.database.dispose()


def test_the_client_and_the_operators_console_are_served_at_their_folders(player: Any) -> None:
    page = player.get("/")
    assert page.status_code == 200 and 'data-screen="account"' in page.text
    console = player.get("/operator/")
    assert console.status_code == 200 and "/operator/console.js" in console.text
    assert player.get("/operator/console.css").status_code == 200
    assert "style=" not in console.text  # under the same Content-Security-Policy
    assert player.get("/operator/nope.js").status_code == 404


def test_a_head_is_answered_as_its_get_without_a_body(player: Any) -> None:
    """RFC 9110: a server that answers GET answers HEAD; a monitor's HEAD /healthz was 405."""
    for path in ("/healthz", "/api/me", "/api/wallet", "/api/pools/current", "/api/nope", "/"):
        get, head = player.get(path), player.head(path)
        assert head.status_code == get.status_code, path
        assert head.content == b"", path
        assert head.headers["content-length"] == get.headers["content-length"], path
        assert head.headers["content-type"] == get.headers["content-type"], path
    logged_out = player.post("/api/logout")
    assert logged_out.status_code < 400, logged_out.text
    assert player.head("/api/me").status_code == 401
    refused = player.head("/api/register")  # a route that takes only POST
    assert refused.status_code == 405 and refused.headers["allow"] == "POST"


def test_a_head_is_timed_under_its_route(player: Any) -> None:
    """/metrics times a HEAD under the route its GET takes, not as a static file: a monitor's
    HEAD /healthz every few seconds must not fill the static files' latency."""
    line = 'colour_collector_request_seconds_count{method="HEAD",route="/healthz"} '

    def heads() -> float:
        found = [row for row in player.get("/metrics").text.splitlines() if row.startswith(line)]
        return float(found[0].removeprefix(line)) if found else 0.0

    before = heads()
    for _ in range(3):
        assert player.head("/healthz").status_code == 200
    assert heads() == before + 3
