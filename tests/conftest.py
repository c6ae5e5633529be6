"""Shared fixtures: an app on a fresh database per test (SQLite file or PostgreSQL), an API
client that carries the CSRF header, and a throwaway PostgreSQL cluster for the session.

Database-backed tests take the ``database_url`` fixture (or anything built on it) and run
twice: on SQLite and on PostgreSQL. The PostgreSQL cluster is started once per session (per
xdist worker) with Debian's PostgreSQL binaries (``initdb``/``pg_ctl``, run as the ``postgres``
user when we are root), listens on 127.0.0.1 on a free port with trust authentication. Each test
gets a fresh database, already migrated: a copy of a template migrated once per session (SQLite:
a file copied with SQLite's backup API; PostgreSQL: ``CREATE DATABASE ... TEMPLATE``), dropped
afterwards. Missing binaries FAIL the tests (CI has them).
"""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():
    # starlette 1.x asks for httpx2 in its TestClient; httpx still works. Silence only this.
    warnings.filterwarnings("ignore", category=StarletteDeprecationWarning)
    from fastapi.testclient import TestClient

from colour_collector.generator_cache import warm
from colour_collector.server.app import create_app
from colour_collector.server.settings import Settings
from colour_collector.service import clock
from colour_collector.store import upgrade_to_head
from pg_cluster import PgCluster, running_cluster
from support import ServerClock, make_settings, outbox_token

PASSWORD = "correct horse battery"


@pytest.fixture(scope="session", autouse=True)
def generator_tables() -> None:
    """The generator's tables, loaded from the cache on disk (``generator_cache``, worked out and
    kept there by the first process that needs them) rather than worked out by every test
    process: about 12 s of CPU each."""
    warm()


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A PostgreSQL cluster for the test session (per xdist worker), stopped at the end."""
    with running_cluster() as cluster:
        yield cluster


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> str:
    """Which database the test runs on."""
    name: str = request.param
    return name


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite database migrated to head, to copy."""
    path = tmp_path_factory.mktemp("template") / "template.sqlite3"
    upgrade_to_head(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def pg_template(pg_cluster: PgCluster) -> str:
    """A PostgreSQL database migrated to head, to copy (no connection is left open to it)."""
    name = pg_cluster.create_database()
    upgrade_to_head(pg_cluster.url(name))
    return name


@pytest.fixture
def empty_database_url(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[str]:
    """A fresh, empty database (for tests of the migrations themselves)."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty' / 'colour-collector.sqlite3'}"
        return
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    name = cluster.create_database()
    try:
        yield cluster.url(name)
    finally:
        cluster.drop_database(name)


@pytest.fixture
def database_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh database migrated to head: an SQLite file in tmp_path, or a new PostgreSQL
    database."""
    if backend == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "db" / "colour-collector.sqlite3"
        path.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(template) as source, sqlite3.connect(path) as target:
            source.backup(target)
        source.close()
        target.close()
        yield f"sqlite:///{path}"
        return
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    name = cluster.create_database(template=request.getfixturevalue("pg_template"))
    try:
        yield cluster.url(name)
    finally:
        cluster.drop_database(name)


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    """Settings for a test environment on the test's database."""
    return make_settings(database_url, tmp_path)


@pytest.fixture
def app(settings: Settings) -> Iterator[Any]:
    """The application on a fresh, migrated database."""
    application = create_app(settings)
    try:
        yield application
    finally:
        application.state.database.dispose()


class ApiClient(TestClient):
    """A TestClient that echoes the CSRF cookie on every request, as the browser client does
    (the cookie changes when the session does: logging in or out)."""

    def fetch_csrf(self) -> str:
        """GET /api/csrf and send the CSRF cookie's token from now on (while the client has the
        header: a test that takes it away sends none)."""
        response = self.get("/api/csrf")
        response.raise_for_status()
        token: str = response.json()["csrf_token"]
        self.headers["X-CSRF-Token"] = token
        return token

    def request(self, method: str, url: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        if "X-CSRF-Token" in self.headers and "cc_csrf" in self.cookies:
            self.headers["X-CSRF-Token"] = self.cookies["cc_csrf"]
        return super().request(method, url, **kwargs)

    def register(
        self, email: str, password: str = PASSWORD, date_of_birth: str = "1990-05-17"
    ) -> Any:
        """POST /api/register."""
        return self.post(
            "/api/register",
            json={"email": email, "password": password, "date_of_birth": date_of_birth},
        )

    def login(self, email: str, password: str = PASSWORD) -> Any:
        """POST /api/login."""
        return self.post("/api/login", json={"email": email, "password": password})

    def confirm(self, email: str, password: str = PASSWORD) -> Any:
        """POST /api/register/confirm with the newest link mailed to ``email`` (read from the
        app's outbox directory) and the password it was registered with."""
        token = outbox_token(self.app.state.runtime.settings.mail_outbox, email)  # type: ignore[attr-defined]
        return self.post("/api/register/confirm", json={"token": token, "password": password})

    def sign_up(self, email: str = "player@example.com", password: str = PASSWORD) -> int:
        """Register and confirm by the mailed link, which logs in; return the account id."""
        registered = self.register(email, password)
        assert registered.status_code == 202, registered.text
        confirmed = self.confirm(email, password)
        assert confirmed.status_code == 200, confirmed.text
        account_id: int = confirmed.json()["id"]
        return account_id


def api_client(application: Any) -> ApiClient:
    """A client on ``application`` that already holds a CSRF token."""
    client = ApiClient(application, raise_server_exceptions=False)
    client.fetch_csrf()
    return client


@pytest.fixture
def password() -> str:
    """The password the client helpers use by default."""
    return PASSWORD


@pytest.fixture
def new_client() -> Any:
    """Factory: ``new_client(app, csrf=True, https=False, address="testclient")`` makes another
    ApiClient.

    Use ``https=True`` for production settings: their cookies are ``Secure``; ``address`` is the
    client's address the server sees.
    """

    def make(
        application: Any, *, csrf: bool = True, https: bool = False, address: str = "testclient"
    ) -> ApiClient:
        base_url = "https://testserver" if https else "http://testserver"
        made = ApiClient(
            application,
            raise_server_exceptions=False,
            base_url=base_url,
            client=(address, 50000),
        )
        if csrf:
            made.fetch_csrf()
        return made

    return make


@pytest.fixture
def client(app: Any) -> Iterator[ApiClient]:
    """An anonymous API client carrying the CSRF header."""
    with api_client(app) as test_client:
        yield test_client


@pytest.fixture
def player(client: ApiClient) -> ApiClient:
    """An API client logged in as a fresh player."""
    client.sign_up()
    return client


@pytest.fixture
def server_clock(tmp_path: Path) -> Iterator[ServerClock]:
    """A clock file for the test's server (give its ``path`` to ``make_settings``)."""
    yield ServerClock(tmp_path / "clock")
    clock.use(clock.system_time)  # the next test's server reads the real time again
