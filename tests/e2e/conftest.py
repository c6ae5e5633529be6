"""Browser tests: a real server per test, driven by Debian's Chromium via Playwright.

Each test starts the app under uvicorn on a free port, on a thread of the test process, with its
own data directory (a copy of the migrated template database) and an outcome script
(``COLOUR_COLLECTOR_OUTCOME_SCRIPT``, honoured only when the environment is ``test``): the list of
tier names (``None`` for no win) that the next purchases and Try plays draw, in order. Over HTTP
there is no way to choose an outcome.

Every page records console errors, uncaught exceptions, failed requests and HTTP answers of 400
or more; the test fails at teardown if any were seen, except those the test allows
(``page.watch.allow(status, path)``; ``allow_failure(path)`` for requests it fails itself).
``shot(page, "screen")`` saves ``test-artifacts/screenshots/<test>-<screen>.png`` (and, with
``docs="name"`` when ``UPDATE_DOCS_SCREENSHOTS=1``, ``docs/screenshots/name.png``:
``./scripts/screenshots``).

Pages run with ``prefers-reduced-motion: reduce`` unless a test asks for motion; then
``speed`` (the client's test-speed switch, ``localStorage.cc_animation_speed``) runs every
animation that many times faster. Phone pages (``PHONE``) are mobile pages with touch, so the
viewport meta tag and any overflow act as on a phone (a page too wide is zoomed out).

The server runs in the test process, not as a ``colour-collector serve`` process of its own
(``tests/integration/test_serve_cli.py`` starts that command): a process would import the server
stack (about 1.5 s of CPU) and, for a server selling pools, work out the generator's sample (about
5 s, decision 0102) once more for each test; here they are paid once a worker (decision 0010).
Its settings are the ``COLOUR_COLLECTOR_*`` environment a ``serve`` would read (``Server.env``,
also given to the commands a test runs on its database); its log goes to the test's captured
output.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from e2e_support import OUTBOXES

from colour_collector.server.app import create_app
from colour_collector.server.settings import SQLITE_FILENAME, Settings
from colour_collector.service import clock

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
DOCS_SCREENSHOTS = ROOT / "docs" / "screenshots"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
PASSWORD = "correct horse battery staple"
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
STEP_TIMEOUT_MS = 20_000


@dataclass
class Server:
    """A running server: its address and the outcome script it draws from."""

    base_url: str
    data_dir: Path
    script: Path
    uvicorn: Any
    """The ``uvicorn.Server`` (``stop``)."""
    thread: threading.Thread
    listener: socket.socket
    clock: Path
    """The server's test clock: seconds to add to the real time (``forward``)."""
    env: dict[str, str] = field(default_factory=dict)
    """The server's environment (for commands run on its database)."""

    def forward(self, seconds: float) -> None:
        """Move the server's clock on by ``seconds``."""
        shift = float(self.clock.read_text("utf-8") or 0) if self.clock.exists() else 0.0
        self.clock.write_text(str(shift + seconds), encoding="utf-8")

    def api(self, path: str) -> Any:
        """GET a public JSON endpoint (no cookies)."""
        with urllib.request.urlopen(self.base_url + path, timeout=10) as answer:
            return json.loads(answer.read())

    def stop(self) -> None:
        """Shut the server down as uvicorn does on SIGTERM (its lifespan ends, the database is
        closed), and give the process back the real clock."""
        self.uvicorn.should_exit = True
        self.thread.join(timeout=30)
        self.listener.close()
        clock.use(clock.system_time)
        if self.thread.is_alive():
            raise RuntimeError(f"the server at {self.base_url} did not stop in 30 s")


def _start_server(
    tmp: Path,
    template: Path,
    outcomes: list[str | None],
    extra_env: dict[str, str] | None = None,
) -> Server:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    port: int = listener.getsockname()[1]
    data = tmp / "data"
    data.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, data / SQLITE_FILENAME)
    script = tmp / "outcomes.json"
    script.write_text(json.dumps(outcomes), encoding="utf-8")
    env = {
        **os.environ,
        "COLOUR_COLLECTOR_ENVIRONMENT": "test",
        "COLOUR_COLLECTOR_DATA_DIR": str(data),
        "COLOUR_COLLECTOR_SECRET_KEY": secrets.token_urlsafe(40),
        "COLOUR_COLLECTOR_OUTCOME_SCRIPT": str(script),
        # The clock a test moves (reality checks, time-outs), and sessions that outlast its
        # jumps (the 30-minute idle timeout is tested over HTTP).
        "COLOUR_COLLECTOR_CLOCK_FILE": str(tmp / "clock"),
        "COLOUR_COLLECTOR_SESSION_IDLE_TIMEOUT": "604800",
        "COLOUR_COLLECTOR_SESSION_LIFETIME": "604800",
        # The cheapest Argon2id: each test registers players.
        "COLOUR_COLLECTOR_PASSWORD_HASH_TIME_COST": "1",
        "COLOUR_COLLECTOR_PASSWORD_HASH_MEMORY_KIB": "8",
        "COLOUR_COLLECTOR_PASSWORD_HASH_PARALLELISM": "1",
        "COLOUR_COLLECTOR_PUBLIC_URL": f"http://127.0.0.1:{port}",
        # The floor that hides a play's building time (1 s) is tested by itself
        # (test_purchase_timing.py); here it would only slow each purchase.
        "COLOUR_COLLECTOR_PURCHASE_ANSWER_FLOOR_MS": "150",
        **(extra_env or {}),
    }
    prefix = "COLOUR_COLLECTOR_"
    try:
        settings = Settings(
            **{k.removeprefix(prefix).lower(): v for k, v in env.items() if k.startswith(prefix)}
        )
        app = create_app(settings)
    except BaseException:
        listener.close()
        clock.use(clock.system_time)
        raise
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=10,
            # As `serve` does: X-Forwarded-* believed only from the proxies the settings name
            # (uvicorn's own default would believe them from 127.0.0.1).
            proxy_headers=settings.forwarded_allow_ips is not None,
            forwarded_allow_ips=settings.forwarded_allow_ips,
        )
    )
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [listener]}, name=f"server-{port}", daemon=True
    )
    thread.start()
    base = f"http://127.0.0.1:{port}"
    running = Server(base, data, script, server, thread, listener, tmp / "clock", env)
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            running.stop()
            raise RuntimeError(f"the server at {base} did not start (its log is above)")
        time.sleep(0.01)
    OUTBOXES[base] = data / "outbox"
    return running


@dataclass
class Watch:
    """What went wrong on one page."""

    problems: list[str] = field(default_factory=list)
    allowed: list[tuple[int, str]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def allow(self, status: int, path_pattern: str) -> None:
        """Accept an HTTP error the test provokes on purpose."""
        self.allowed.append((status, path_pattern))

    def allow_failure(self, path_pattern: str) -> None:
        """Accept failed requests (no answer) the test provokes on purpose (``page.route``)."""
        self.failures.append(path_pattern)

    def on_failure(self, request: Any) -> None:
        path = re.sub(r"^https?://[^/]+", "", request.url)
        if any(re.search(p, path) for p in self.failures):
            return
        self.problems.append(f"request failed: {request.method} {request.url} {request.failure}")

    def on_response(self, response: Any) -> None:
        if response.status < 400:
            return
        path = re.sub(r"^https?://[^/]+", "", response.url)
        if any(status == response.status and re.search(p, path) for status, p in self.allowed):
            return
        self.problems.append(f"HTTP {response.status} {response.request.method} {path}")

    def on_console(self, message: Any) -> None:
        if message.type != "error":
            return
        if (self.allowed or self.failures) and "Failed to load resource" in message.text:
            return  # the console echo of an allowed HTTP error or failure; others are caught above
        self.problems.append(f"console error: {message.text}")


class Browser:
    """Pages for one test, each with its own cookies, recorded problems and screenshots."""

    def __init__(self, browser: Any, test_name: str) -> None:
        self.browser = browser
        self.test_name = re.sub(r"[^A-Za-z0-9_.-]+", "_", test_name)
        self.contexts: list[Any] = []
        self.watches: list[Watch] = []

    def new_page(
        self,
        server: Server,
        viewport: dict[str, int] | None = None,
        *,
        reduced_motion: bool = True,
        speed: float | None = None,
        enforce_csp: bool = False,
    ) -> Any:
        """A fresh page on ``server``: ``reduced_motion`` (nothing moves) or ``speed`` x faster.

        Playwright's waits on page conditions (``wait_for_function``) are evaluated strings,
        which the page's Content-Security-Policy forbids; so pages ignore it, except with
        ``enforce_csp`` (``test_the_page_runs_under_its_content_security_policy``).
        """
        size = viewport or DESKTOP
        phone = size["width"] < 700
        context = self.browser.new_context(
            base_url=server.base_url,
            viewport=size,
            is_mobile=phone,
            has_touch=phone,
            reduced_motion="reduce" if reduced_motion else "no-preference",
            bypass_csp=not enforce_csp,
        )
        context.set_default_timeout(STEP_TIMEOUT_MS)
        if speed is not None:
            context.add_init_script(
                f"localStorage.setItem('cc_animation_speed', JSON.stringify({float(speed)}))"
            )
        self.contexts.append(context)
        return self.watch(context.new_page())

    def watch(self, page: Any) -> Any:
        """Record ``page``'s console errors, page errors, failed requests and HTTP errors."""
        watch = Watch()
        page.on("console", watch.on_console)
        page.on("pageerror", lambda error: watch.problems.append(f"page error: {error}"))
        page.on("requestfailed", watch.on_failure)
        page.on("response", watch.on_response)
        page.watch = watch
        self.watches.append(watch)
        return page

    def shot(
        self, page: Any, screen: str, docs: str | None = None, clip: dict[str, float] | None = None
    ) -> Path:
        """Save ``test-artifacts/screenshots/<test>-<screen>.png`` (and ``docs/screenshots``)."""
        path = SCREENSHOTS / f"{self.test_name}-{screen}.png"
        page.screenshot(path=str(path), clip=clip)
        if docs and os.environ.get("UPDATE_DOCS_SCREENSHOTS") == "1":
            DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            (DOCS_SCREENSHOTS / f"{docs}.png").write_bytes(path.read_bytes())
        return path

    def close(self) -> list[str]:
        for context in self.contexts:
            context.close()
        return [p for w in self.watches for p in w.problems]


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: npm ci (./scripts/test runs it)")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def start_server(tmp_path: Path, sqlite_template: Path) -> Iterator[Any]:
    """``start_server(["£5", None, ...])`` runs a server drawing those outcomes in order
    (``env``: more settings, e.g. ``{"COLOUR_COLLECTOR_DRAW_MODE": "pool"}``)."""
    started: list[Server] = []

    def start(outcomes: list[str | None], env: dict[str, str] | None = None) -> Server:
        # The server's clock (``forward``) is the process's: two at once would share it.
        assert not any(s.thread.is_alive() for s in started), "one server at a time"
        server = _start_server(tmp_path / f"server{len(started)}", sqlite_template, outcomes, env)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def browser(chromium: Any, request: pytest.FixtureRequest) -> Iterator[Browser]:
    """Pages for this test; fails the test if any page logged an error or a request failed."""
    pages = Browser(chromium, request.node.name)
    yield pages
    problems = pages.close()
    if problems:
        pytest.fail("browser problems:\n" + "\n".join(problems))
