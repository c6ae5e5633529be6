"""Plain helpers shared by the fixtures and the test modules (import this, never ``conftest``:
two conftest modules exist, and which one ``import conftest`` finds depends on the run)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from colour_collector.server.settings import Settings
from colour_collector.service import accounts
from colour_collector.service.accounts import AccountPolicy, Passwords
from colour_collector.service.ports import UnitOfWorkFactory

TEST_SECRET = "test-secret-key-for-the-test-suite-only-0123456789"
"""The secret key of every test server."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def make_settings(database_url: str, tmp_path: Path, **overrides: Any) -> Settings:
    """Test settings: every value explicit so the environment cannot leak in."""
    values: dict[str, Any] = {
        "environment": "test",
        "secret_key": TEST_SECRET,
        "database_url": database_url,
        "data_dir": tmp_path / "data",
        "web_dir": tmp_path / "no-web",
        "test_deposits_enabled": True,
        "login_max_failures_per_email": 5,
        "login_max_failures_per_client": 20,
        "secure_cookies": False,
        # The cheapest Argon2id: the suite hashes hundreds of passwords.
        "password_hash_time_cost": 1,
        "password_hash_memory_kib": 8,
        "password_hash_parallelism": 1,
    }
    values.update(overrides)
    return Settings(**values)


POLICY = AccountPolicy(passwords=Passwords(time_cost=1, memory_kib=8, parallelism=1))
"""Account rules as the server has them by default, with the cheapest password hashing."""
PASSWORD = "correct horse battery"
"""The password test players use."""


def sign_up(
    factory: UnitOfWorkFactory, email: str = "player@example.com"
) -> tuple[accounts.Account, str]:
    """Register and log in through the use cases; the account and its session token."""
    import datetime as dt

    account = accounts.register(
        factory, POLICY, email=email, password=PASSWORD, date_of_birth=dt.date(1990, 5, 17)
    )
    logged_in = accounts.login(factory, POLICY, email=email, password=PASSWORD, client="test")
    return account, logged_in.token


def fund(factory: UnitOfWorkFactory, token: str, pence: int) -> None:
    """A test deposit to the account of session ``token``, as the API makes one (audited)."""
    from colour_collector.service import wallet

    wallet.test_deposit(factory, token, pence, enabled=True)


def browser_like_client(base_url: str, **kwargs: Any) -> Any:
    """An ``httpx.Client`` on a running server that sends the current ``cc_csrf`` cookie in the
    ``X-CSRF-Token`` header of every request, as the browser client does (the cookie changes
    when the client logs in or out). It fetches its first CSRF cookie itself."""
    import httpx

    client = httpx.Client(base_url=base_url, **kwargs)

    def echo_csrf(request: httpx.Request) -> None:
        token = client.cookies.get("cc_csrf")
        if token:
            request.headers["X-CSRF-Token"] = token

    client.event_hooks["request"].append(echo_csrf)
    client.get("/api/csrf").raise_for_status()
    return client
