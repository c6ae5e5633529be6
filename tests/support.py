"""Plain helpers shared by the fixtures and the test modules (import this, never ``conftest``:
two conftest modules exist, and which one ``import conftest`` finds depends on the run)."""

from __future__ import annotations

import datetime as dt
import os
import re
import socket
import subprocess
import sys
import time
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import default
from pathlib import Path
from typing import Any

import httpx

from colour_collector.server.settings import Settings
from colour_collector.service import accounts, registration
from colour_collector.service.accounts import AccountPolicy, Passwords
from colour_collector.service.ports import UnitOfWorkFactory
from colour_collector.service.registration import RegistrationPolicy

TEST_SECRET = "test-secret-key-for-the-test-suite-only-0123456789"
"""The secret key of every test server."""


FEW_MAILS = {"registration_mails_per_email": 3, "registration_mails_per_email_and_client": 2}
"""Mail limits a test reaches in a few requests: 2 from one client, 3 from every client."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


SERVE = [sys.executable, "-c", "from colour_collector.cli.app import main; main()", "serve"]
"""``colour-collector serve`` as a child process."""


def start_server(
    tmp_path: Path, port: int, settings: dict[str, str], *options: str
) -> subprocess.Popen[bytes]:
    """``colour-collector serve --port PORT *options`` in its own process, with the environment
    ``settings`` (no other ``COLOUR_COLLECTOR_`` variable leaks in) and its log in
    ``tmp_path/server-PORT.log``, once it answers ``/healthz``. A server that exits or does not
    answer within a minute fails the test with its log."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLOUR_COLLECTOR_")}
    env.update(COLOUR_COLLECTOR_ENVIRONMENT="test", COLOUR_COLLECTOR_SECRET_KEY=TEST_SECRET)
    env.update(settings)
    log_path = tmp_path / f"server-{port}.log"
    with log_path.open("wb") as log:  # the child keeps its own copy
        process = subprocess.Popen(
            [*SERVE, "--host", "127.0.0.1", "--port", str(port), *options],
            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited: {log_path.read_text()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return process
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError(f"the server did not start: {log_path.read_text()}")


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
        # Purchases answered at once (test_purchase_timing.py sets the floor it checks).
        "purchase_answer_floor_ms": 0,
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


CONFIRMATION_LINK = re.compile(r"#/confirm/([A-Za-z0-9_-]{43})")
"""A confirmation link in a mail's text; its group is the token."""
RESET_LINK = re.compile(r"#/reset/([A-Za-z0-9_-]{43})")
"""A password reset link in a mail's text; its group is the token."""


class RecordingMailer:
    """A mailer that keeps the mails' texts by address (the use cases' tests use
    ``fakes.FakeMailer``; this one serves the helpers below on real databases)."""

    def __init__(self) -> None:
        self.texts: dict[str, list[str]] = {}

    def send(self, to: str, subject: str, text: str) -> None:
        self.texts.setdefault(to, []).append(text)


def link_token(text: str, link: re.Pattern[str] = CONFIRMATION_LINK) -> str:
    """The token of the confirmation link (or of another ``link``) in a mail's ``text``."""
    found = link.search(text)
    assert found, f"no link like {link.pattern!r} in the mail: {text!r}"
    return found.group(1)


def reset_token(text: str) -> str:
    """The token of the password reset link in a mail's ``text``."""
    return link_token(text, RESET_LINK)


def outbox_mails(outbox: Path, email: str) -> list[EmailMessage]:
    """The mails written to the outbox directory for ``email``, oldest first."""
    found = []
    for path in sorted(outbox.glob("*.eml")) if outbox.is_dir() else []:
        with path.open("rb") as raw:
            mail = BytesParser(policy=default).parse(raw)
        if str(mail["To"]) == email:
            found.append(mail)
    return found


def outbox_token(outbox: Path, email: str, link: re.Pattern[str] = CONFIRMATION_LINK) -> str:
    """The token of the confirmation link (or of another ``link``) in the newest mail written
    to the outbox for ``email``."""
    mails = outbox_mails(outbox, email)
    assert mails, f"no mail to {email!r} in {outbox}"
    body = mails[-1].get_body(preferencelist=("plain",))
    assert body is not None
    return link_token(body.get_content(), link)


def register_and_confirm(
    factory: UnitOfWorkFactory,
    policy: AccountPolicy,
    *,
    email: str,
    password: str = PASSWORD,
    date_of_birth: dt.date = dt.date(1990, 5, 17),
    now: dt.datetime | None = None,
) -> accounts.Account:
    """Register and confirm by the mailed link (as the old one-step registration did, for
    tests of other rules); the account."""
    mailer = RecordingMailer()
    registration.register(
        factory,
        policy,
        RegistrationPolicy(mailer, "http://test"),
        email=email,
        password=password,
        date_of_birth=date_of_birth,
        client="c1",
        now=now,
    )
    token = link_token(mailer.texts[accounts.normalise_email(email)][-1])
    return registration.confirm(
        factory, policy, token=token, password=password, client="test", now=now
    ).account


def sign_up(
    factory: UnitOfWorkFactory, email: str = "player@example.com"
) -> tuple[accounts.Account, str]:
    """Register, confirm by the mailed link (which logs in) through the use cases; the account
    and its session token."""
    mailer = RecordingMailer()
    registration.register(
        factory,
        POLICY,
        RegistrationPolicy(mailer, "http://test"),
        email=email,
        password=PASSWORD,
        date_of_birth=dt.date(1990, 5, 17),
        client="c1",
    )
    token = link_token(mailer.texts[email][-1])
    logged_in = registration.confirm(factory, POLICY, token=token, password=PASSWORD, client="test")
    return logged_in.account, logged_in.token


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


class SmtpServer:
    """A real SMTP server on 127.0.0.1 (aiosmtpd, in a thread of its own) that keeps what it is
    sent: ``messages`` (parsed) and ``logins`` (user, password)."""

    def __init__(self, **controller: Any) -> None:
        from aiosmtpd.controller import Controller

        self.messages: list[EmailMessage] = []
        self.logins: list[tuple[str, str]] = []
        self.port = free_port()
        server = self

        class Keep:
            async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:  # noqa: N802 (aiosmtpd calls it by this name)
                server.messages.append(BytesParser(policy=default).parsebytes(envelope.content))
                return "250 OK"

        def authenticate(
            _server: Any, _session: Any, _envelope: Any, _mechanism: str, auth: Any
        ) -> Any:
            from aiosmtpd.smtp import AuthResult

            login = (auth.login.decode(), auth.password.decode())
            server.logins.append(login)
            return AuthResult(success=login == ("mailer", "s3cret-password"))

        self.controller = Controller(
            Keep(), hostname="127.0.0.1", port=self.port, authenticator=authenticate, **controller
        )

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.controller.stop()

    def token(self, email: str) -> str:
        """The token of the newest confirmation link sent to ``email``."""
        sent = [m for m in self.messages if str(m["To"]) == email]
        assert sent, f"no mail to {email!r}"
        body = sent[-1].get_body(preferencelist=("plain",))
        assert body is not None
        return link_token(body.get_content())


def production_required(port: int) -> dict[str, Any]:
    """Settings production requires beyond its secrets: an SMTP server (here a local one,
    without TLS), the game's public https address and a token for ``/metrics``."""
    return {"smtp_host": "127.0.0.1", "smtp_port": port, "smtp_starttls": False,
            "public_url": "https://play.example.com",
            "metrics_token": "a metrics token for the tests"}  # fmt: skip


class ServerClock:
    """The server's clock: the real time moved on by what the test writes in the file
    (``CLOCK_FILE``; the ``server_clock`` fixture)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seconds = 0.0

    def forward(self, **delta: float) -> None:
        self.seconds += dt.timedelta(**delta).total_seconds()
        self.path.write_text(str(self.seconds), encoding="utf-8")
