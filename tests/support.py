"""Plain helpers shared by the fixtures and the test modules (import this, never ``conftest``:
two conftest modules exist, and which one ``import conftest`` finds depends on the run)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from colour_collector.server.settings import Settings

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
    }
    values.update(overrides)
    return Settings(**values)
