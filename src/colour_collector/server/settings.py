"""Server settings, read from ``COLOUR_COLLECTOR_*`` environment variables.

Refuses to start outside development with the default secret key, and in production with test
deposits turned on or without an SMTP server and a public address for the mails.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from enum import StrEnum, unique
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Self

from pydantic import BeforeValidator, Field, SecretStr, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:
    from colour_collector.service.pools import Sale

DEFAULT_SECRET_KEY = "dev-only-insecure-secret-key-change-me"
"""The placeholder secret; accepted in development only."""

MIN_PRODUCTION_TIME_COST = 2
"""Fewest Argon2id passes production accepts."""
MIN_PRODUCTION_MEMORY_KIB = 19 * 1024
"""Least Argon2id memory production accepts (19 MiB)."""
ARGON2_KIB_PER_LANE = 8
"""Least Argon2id memory of each lane (``password_hash_parallelism``), in KiB."""

SQLITE_FILENAME = "colour-collector.sqlite3"
"""Name of the SQLite database file inside ``data_dir``."""


def _seconds(value: object) -> object:
    """Let durations be given as a number of seconds (``900``) as well as ISO 8601."""
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
        return dt.timedelta(seconds=int(value))  # a negative one is refused below, by name
    return value


Duration = Annotated[dt.timedelta, BeforeValidator(_seconds)]
"""A duration: seconds (``900``) or ISO 8601 (``PT15M``)."""


@unique
class Environment(StrEnum):
    """Where the server runs."""

    DEVELOPMENT = "development"
    """A developer's machine: default secret allowed, test deposits on."""
    TEST = "test"
    """Automated tests and staging: test deposits on by default, a real secret required."""
    PRODUCTION = "production"
    """Real players: real secret required, test deposits refused, secure cookies."""


@unique
class DrawMode(StrEnum):
    """How plays are drawn (used by the purchase flow)."""

    INDEPENDENT = "independent"
    """Each play is drawn independently from the prize probabilities."""
    POOL = "pool"
    """Plays are dealt in order from the prize pools the operator loaded (``pool load``)."""


@unique
class PaymentProviderKind(StrEnum):
    """Which payment provider deposits and withdrawals go through."""

    SIMULATED = "simulated"
    """Accepts every payment and moves no real money (development and test; refused in
    production)."""
    NONE = "none"
    """No provider: deposits and withdrawals answer 503 ``payments_unavailable``."""


class Settings(BaseSettings):
    """Everything the server can be told. See docs/operations.md for the table."""

    model_config = SettingsConfigDict(
        env_prefix="COLOUR_COLLECTOR_",
        extra="ignore",
        frozen=True,
    )

    environment: Environment = Environment.DEVELOPMENT
    data_dir: Path = Path("data")
    database_url: str | None = None
    secret_key: SecretStr = SecretStr(DEFAULT_SECRET_KEY)
    test_deposits_enabled: bool | None = None
    max_test_deposit_pence: int = Field(default=100_000, gt=0, le=100_000)
    session_lifetime: Duration = dt.timedelta(hours=12)
    auto_finish_delay: Duration = dt.timedelta(hours=24)
    draw_mode: DrawMode = DrawMode.INDEPENDENT
    login_max_failures_per_email: int = Field(default=5, ge=1)
    login_max_failures_per_client: int = Field(default=20, ge=1)
    login_failure_window: Duration = dt.timedelta(minutes=15)
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    secure_cookies: bool | None = None
    web_dir: Path | None = None
    auto_finish_interval: Duration = dt.timedelta(minutes=1)
    try_plays_per_hour: int = Field(default=120, ge=1)
    purchase_answer_floor_ms: int = Field(default=1000, ge=0, le=5000)
    """No purchase is answered sooner than this after its route starts: building a play takes
    from 0.1 ms (no win) to 650 ms (the slowest of 200 plays of the slowest rare tier, drawn
    exactly: decision 0103), so an answer's time would tell the prize before the reveal. Set it
    above the slowest purchase of the machine."""
    request_threads: int = Field(default=4, ge=1, le=200)
    """Worker threads that run requests in each server process (AnyIO's thread limiter)."""
    purchase_threads: int = Field(default=4, ge=1, le=200)
    """Worker threads that run purchases in each server process, apart from the other requests'
    (``request_threads``): a purchase may wait for its play's build (up to 650 ms, and for a pool
    position every purchase of the process expects the same one), and a request of anyone else
    must not wait behind it (decision 0151)."""
    database_pool_size: int = Field(default=8, ge=1, le=100)
    """PostgreSQL only: connections each server process keeps (SQLite always has one)."""
    password_hash_time_cost: int = Field(default=3, ge=1, le=20)
    """Argon2id passes over memory when hashing a password."""
    password_hash_memory_kib: int = Field(default=65536, ge=8, le=1 << 21)
    """Argon2id memory when hashing a password, in KiB."""
    password_hash_parallelism: int = Field(default=4, ge=1, le=16)
    """Argon2id lanes."""
    audit_checkpoint_dir: Path | None = None
    """Where the server writes signed checkpoints of the audit chain's head (outside the
    database); with ``audit_checkpoint_key_file``."""
    audit_checkpoint_key_file: Path | None = None
    """The file holding the checkpoints' key (at least 32 bytes; never in the database)."""
    audit_checkpoint_interval: Duration = dt.timedelta(minutes=10)
    """How often the server writes a checkpoint (and once at start)."""
    forwarded_allow_ips: str | None = None
    """Addresses of the reverse proxies whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` the
    server believes (comma-separated, or ``*``); unset: none, the client is the peer address."""
    api_docs: bool | None = None
    """Serve ``/openapi.json`` and ``/api/docs`` (default: everywhere but production)."""
    outcome_script: Path | None = None
    clock_file: Path | None = None
    """Tests only: a file holding seconds to add to the server's clock."""
    session_idle_timeout: Duration = dt.timedelta(minutes=30)
    """A player's session ends after this long without activity."""
    operator_session_lifetime: Duration = dt.timedelta(hours=8)
    """How long a console login lasts."""
    payment_provider: PaymentProviderKind | None = None
    """Deposits' and withdrawals' provider (default: simulated outside production, none in it)."""
    metrics_token: SecretStr | None = None
    """When set, ``/metrics`` answers only ``Authorization: Bearer <token>``."""
    public_url: str = "http://127.0.0.1:8000"
    """The address players open the game at, for the links in mails (required in production)."""
    mail_from: str = "Colour Collector <no-reply@localhost>"
    """The From address of the mails."""
    mail_outbox_dir: Path | None = None
    """Without an SMTP host: where mails are written as files (default ``<data_dir>/outbox``)."""
    smtp_host: str | None = None
    """The SMTP server mails are sent through (required in production)."""
    smtp_port: int = Field(default=587, ge=1, le=65535)
    """Its port."""
    smtp_user: str | None = None
    """The SMTP login, if the server wants one."""
    smtp_password: SecretStr | None = None
    """The SMTP login's password."""
    smtp_starttls: bool = True
    """Upgrade the SMTP connection to TLS (certificate checked) before sending anything."""
    confirmation_link_lifetime: Duration = dt.timedelta(hours=24)
    """How long a link mailed to confirm an account works."""
    password_reset_link_lifetime: Duration = dt.timedelta(hours=1)
    """How long a link mailed to reset a forgotten password works."""
    registration_mails_per_email: int = Field(default=20, ge=2)
    """Mails (registrations, resends and password resets) one address may be asked for within
    the window, by every client together (2 at least: one client's share is less)."""
    registration_mails_per_email_and_client: int = Field(default=5, ge=1)
    """Of those, what one client (its address; an IPv6 client by its /64 network) may ask for:
    one client alone cannot spend an address's mails and so keep its owner from asking for a
    link."""
    registration_mail_window: Duration = dt.timedelta(hours=1)
    """How far back the mails asked for an address count."""

    @model_validator(mode="after")
    def _refuse_unsafe(self) -> Self:
        """Every unsafe or inconsistent setting at once, each its own error: an operator fixes
        them in one go rather than one a start."""
        problems = [*self._unsafe(), *self._unsafe_mail()]
        if problems:
            raise ValidationError.from_exception_data(
                type(self).__name__,
                [
                    InitErrorDetails(
                        type=PydanticCustomError("unsafe_setting", "{problem}", {"problem": p}),
                        loc=(),
                        input=None,
                    )
                    for p in problems
                ],
            )
        return self

    def _unsafe(self) -> Iterator[str]:
        production = self.environment is Environment.PRODUCTION
        lanes = self.password_hash_parallelism
        if self.password_hash_memory_kib < ARGON2_KIB_PER_LANE * lanes:  # Argon2's own rule
            yield (
                "COLOUR_COLLECTOR_PASSWORD_HASH_MEMORY_KIB must be at least"
                f" {ARGON2_KIB_PER_LANE} KiB per lane ({ARGON2_KIB_PER_LANE * lanes} with"
                f" COLOUR_COLLECTOR_PASSWORD_HASH_PARALLELISM={lanes})"
            )
        if (
            self.environment is not Environment.DEVELOPMENT
            and self.secret_key.get_secret_value() == DEFAULT_SECRET_KEY
        ):
            yield (
                f"COLOUR_COLLECTOR_SECRET_KEY must be set to a real secret when environment is"
                f" {self.environment.value!r} (the default is for development only)"
            )
        if len(self.secret_key.get_secret_value()) < 32 and production:
            yield ("COLOUR_COLLECTOR_SECRET_KEY must be at least 32 characters")
        if production and self.test_deposits_enabled:
            yield ("COLOUR_COLLECTOR_TEST_DEPOSITS_ENABLED must be false in production")
        if self.outcome_script is not None and self.environment is not Environment.TEST:
            yield (
                "COLOUR_COLLECTOR_OUTCOME_SCRIPT is for automated tests only: it is refused "
                f"when environment is {self.environment.value!r}"
            )
        if self.clock_file is not None and self.environment is not Environment.TEST:
            yield (
                "COLOUR_COLLECTOR_CLOCK_FILE is for automated tests only: it is refused "
                f"when environment is {self.environment.value!r}"
            )
        if production and self.payment_provider is PaymentProviderKind.SIMULATED:
            yield (
                "COLOUR_COLLECTOR_PAYMENT_PROVIDER=simulated moves no real money: it is refused"
                " in production"
            )
        if self.session_idle_timeout <= dt.timedelta(0):
            yield ("COLOUR_COLLECTOR_SESSION_IDLE_TIMEOUT must be positive")
        if self.operator_session_lifetime <= dt.timedelta(0):
            yield ("COLOUR_COLLECTOR_OPERATOR_SESSION_LIFETIME must be positive")
        if production and (
            self.password_hash_time_cost < MIN_PRODUCTION_TIME_COST
            or self.password_hash_memory_kib < MIN_PRODUCTION_MEMORY_KIB
        ):
            yield (
                "password hashing is too cheap for production: COLOUR_COLLECTOR_PASSWORD_HASH_"
                f"TIME_COST must be at least {MIN_PRODUCTION_TIME_COST} and MEMORY_KIB at least"
                f" {MIN_PRODUCTION_MEMORY_KIB} (OWASP's minimum for Argon2id)"
            )
        if (self.audit_checkpoint_dir is None) != (self.audit_checkpoint_key_file is None):
            pair = ("DIR", "KEY_FILE")
            given, missing = pair if self.audit_checkpoint_key_file is None else pair[::-1]
            yield (
                "COLOUR_COLLECTOR_AUDIT_CHECKPOINT_DIR and"
                " COLOUR_COLLECTOR_AUDIT_CHECKPOINT_KEY_FILE must be set together:"
                f" COLOUR_COLLECTOR_AUDIT_CHECKPOINT_{given} is set but"
                f" COLOUR_COLLECTOR_AUDIT_CHECKPOINT_{missing} is not"
            )
        if self.audit_checkpoint_interval <= dt.timedelta(0):
            yield ("COLOUR_COLLECTOR_AUDIT_CHECKPOINT_INTERVAL must be positive")
        if self.auto_finish_interval <= dt.timedelta(0):
            yield ("COLOUR_COLLECTOR_AUTO_FINISH_INTERVAL must be positive")
        if self.session_lifetime <= dt.timedelta(0):
            yield ("COLOUR_COLLECTOR_SESSION_LIFETIME must be positive")
        if self.login_failure_window <= dt.timedelta(0):
            yield ("COLOUR_COLLECTOR_LOGIN_FAILURE_WINDOW must be positive")

    def _unsafe_mail(self) -> Iterator[str]:
        production = self.environment is Environment.PRODUCTION
        if not self.public_url.startswith(("https://", "http://")):
            yield (
                f"COLOUR_COLLECTOR_PUBLIC_URL must be an http(s) address, not {self.public_url!r}"
            )
        if production and self.smtp_host is None:
            yield (
                "COLOUR_COLLECTOR_SMTP_HOST must be set in production: accounts are confirmed by"
                " e-mail (and the file outbox is for development and tests)"
            )
        if production and not self.public_url.startswith("https://"):
            yield (
                "COLOUR_COLLECTOR_PUBLIC_URL must be set to the game's https:// address in"
                " production (the links in the mails point there)"
            )
        if production and self.metrics_token is None:
            yield (
                "COLOUR_COLLECTOR_METRICS_TOKEN must be set in production: /metrics is served on"
                " the game's own address, and its figures are the operator's (near the end of a"
                " prize pool, the prizes paid would tell the holders of its last unfinished plays"
                " something of theirs)"
            )
        if self.smtp_user and not self.smtp_starttls and production:
            yield (
                "COLOUR_COLLECTOR_SMTP_STARTTLS must be on when COLOUR_COLLECTOR_SMTP_USER is set"
                " in production (the password would cross the network in clear)"
            )
        if self.confirmation_link_lifetime <= dt.timedelta(0):
            yield ("COLOUR_COLLECTOR_CONFIRMATION_LINK_LIFETIME must be positive")
        if self.password_reset_link_lifetime <= dt.timedelta(0):
            yield ("COLOUR_COLLECTOR_PASSWORD_RESET_LINK_LIFETIME must be positive")
        if self.registration_mail_window <= dt.timedelta(0):
            yield ("COLOUR_COLLECTOR_REGISTRATION_MAIL_WINDOW must be positive")
        if self.registration_mails_per_email_and_client >= self.registration_mails_per_email:
            yield (
                "COLOUR_COLLECTOR_REGISTRATION_MAILS_PER_EMAIL_AND_CLIENT"
                f" ({self.registration_mails_per_email_and_client}) must be less than"
                " COLOUR_COLLECTOR_REGISTRATION_MAILS_PER_EMAIL"
                f" ({self.registration_mails_per_email}): one client could otherwise spend all"
                " of an address's mails and keep its owner from asking for a link"
            )

    @property
    def sells_pools(self) -> bool:
        """Whether purchases are dealt from the prize pools loaded (``DRAW_MODE=pool``)."""
        return self.draw_mode is DrawMode.POOL

    @property
    def published_pools_only(self) -> bool:
        """Whether only pools of the published prize structure are loaded and sold (production)."""
        return self.environment is Environment.PRODUCTION

    @property
    def pool_key(self) -> bytes:
        """The key pool secrets are sealed with, derived from ``SECRET_KEY``."""
        # Imported here: the CLI reads these settings before it needs the game's modules.
        from colour_collector.service.pools import seal_key  # noqa: PLC0415

        return seal_key(self.secret_key.get_secret_value())

    @property
    def pool_sale(self) -> Sale | None:
        """How a server with these settings sells from the pools: None when it draws every play
        independently (``DRAW_MODE`` is not ``pool``)."""
        from colour_collector.service.pools import Sale  # noqa: PLC0415

        if not self.sells_pools:
            return None
        return Sale(self.pool_key, published_only=self.published_pools_only)

    @property
    def test_deposits(self) -> bool:
        """Whether ``POST /api/wallet/test-deposit`` is on (default: on outside production)."""
        if self.test_deposits_enabled is None:
            return self.environment is not Environment.PRODUCTION
        return self.test_deposits_enabled

    @property
    def serves_api_docs(self) -> bool:
        """Whether ``/openapi.json`` and ``/api/docs`` are served (default: not in production)."""
        if self.api_docs is None:
            return self.environment is not Environment.PRODUCTION
        return self.api_docs

    @property
    def payments(self) -> PaymentProviderKind:
        """The payment provider in use (default: simulated outside production)."""
        if self.payment_provider is None:
            return (
                PaymentProviderKind.NONE
                if self.environment is Environment.PRODUCTION
                else PaymentProviderKind.SIMULATED
            )
        return self.payment_provider

    @property
    def cookies_secure(self) -> bool:
        """Whether cookies carry ``Secure`` (default: in production)."""
        if self.secure_cookies is None:
            return self.environment is Environment.PRODUCTION
        return self.secure_cookies

    @property
    def mail_outbox(self) -> Path:
        """Where mails are written when no SMTP host is set."""
        return self.mail_outbox_dir or self.data_dir / "outbox"

    @property
    def resolved_database_url(self) -> str:
        """``database_url``, or the SQLite file in ``data_dir``."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / SQLITE_FILENAME).resolve()}"
