"""What every route shares, built once per app from the settings: the settings themselves, the
database, the account policy (password hashing, login throttle, sessions), the purchase policy,
the outcome sources and the secure random source; and the purchases' worker threads."""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass
from pathlib import Path

from anyio import CapacityLimiter
from anyio.lowlevel import RunVar
from prometheus_client import CollectorRegistry

from colour_collector.game.config import load_config
from colour_collector.game.draw import secure_rng
from colour_collector.game.pool import PrizePool, load_pool
from colour_collector.game.prize_table import UnknownTierError, tier_by_name
from colour_collector.game.versions import current_versions
from colour_collector.generator_cache import warm
from colour_collector.mail import OutboxMailer, SmtpMailer
from colour_collector.server.metrics import registry_for
from colour_collector.server.settings import PaymentProviderKind, Settings
from colour_collector.service.accounts import AccountPolicy, Passwords
from colour_collector.service.audit_checkpoints import read_key
from colour_collector.service.errors import InvalidInputError
from colour_collector.service.operators import OperatorPolicy
from colour_collector.service.outcomes import (
    IndependentSource,
    OutcomeSource,
    PoolSource,
    ScriptedSource,
)
from colour_collector.service.payments import SimulatedPaymentProvider
from colour_collector.service.pools import Sale
from colour_collector.service.ports import Mailer, PaymentProvider
from colour_collector.service.purchase import PlayPolicy
from colour_collector.service.registration import RegistrationPolicy
from colour_collector.store import Database
from colour_collector.store.database import POOL_TIMEOUT_S


@dataclass(frozen=True, slots=True)
class Runtime:
    """The routes' shared parts (one per app)."""

    settings: Settings
    """The settings the app was made with."""
    database: Database
    """The database: ``database()`` opens a unit of work."""
    accounts: AccountPolicy
    """Password hashing, login throttling and session lifetime."""
    registration: RegistrationPolicy
    """The mailer, the links' address and lifetimes, and the mail throttle (registration and
    password reset)."""
    plays: PlayPolicy
    """Price, auto-finish delay and the purchase outcome source."""
    try_outcomes: OutcomeSource
    """Outcome source of Try plays: independent draws, never a prize pool."""
    rng: random.Random
    """``random.SystemRandom``: every outcome, play and reel number comes from it."""
    operators: OperatorPolicy
    """Operator password hashing, console login throttling and session lifetime."""
    payment_provider: PaymentProvider | None
    """Deposits' and withdrawals' provider (None: none configured)."""
    pool: PrizePool
    """The prize structure, for the console's figures."""
    sale: Sale | None
    """How purchases are dealt from the prize pools loaded, and so which pool is shown on sale
    (None: every play is drawn independently)."""
    metrics: CollectorRegistry
    """What ``/metrics`` shows."""


_log = logging.getLogger(__name__)

_purchase_threads: RunVar[CapacityLimiter] = RunVar("colour_collector_purchase_threads")


def purchase_threads(runtime: Runtime) -> CapacityLimiter:
    """The worker threads purchases run on, apart from the requests' (``Settings.purchase_threads``
    of them): one limiter for each event loop, made at its first purchase, as AnyIO keeps its
    default one (a limiter is bound to the loop that first waits on it). A server process runs
    one app on one loop; apps sharing a loop (tests) share the first one's limiter."""
    try:
        return _purchase_threads.get()
    except LookupError:
        made = CapacityLimiter(runtime.settings.purchase_threads)
        _purchase_threads.set(made)
        return made


def account_policy(settings: Settings) -> AccountPolicy:
    """Password hashing, login throttling and session lifetime, from the settings."""
    return AccountPolicy(
        passwords=Passwords(
            time_cost=settings.password_hash_time_cost,
            memory_kib=settings.password_hash_memory_kib,
            parallelism=settings.password_hash_parallelism,
        ),
        max_failures_per_email=settings.login_max_failures_per_email,
        max_failures_per_client=settings.login_max_failures_per_client,
        window=settings.login_failure_window,
        session_lifetime=settings.session_lifetime,
        idle_timeout=settings.session_idle_timeout,
    )


def usable_outbox(folder: Path) -> Path:
    """``folder``, made if needed; ``InvalidInputError`` naming the setting when it cannot be
    made (found at start, not at the first registration's mail)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InvalidInputError(
            f"COLOUR_COLLECTOR_MAIL_OUTBOX_DIR ({folder}) cannot be made: {error.strerror}"
        ) from None
    return folder


def mailer(settings: Settings) -> Mailer:
    """SMTP when a host is set (production must), else the file outbox."""
    if settings.smtp_host is None:
        return OutboxMailer(settings.mail_outbox, sender=settings.mail_from)
    return SmtpMailer(
        host=settings.smtp_host,
        port=settings.smtp_port,
        sender=settings.mail_from,
        user=settings.smtp_user,
        password=None
        if settings.smtp_password is None
        else settings.smtp_password.get_secret_value(),
        starttls=settings.smtp_starttls,
    )


def registration_policy(settings: Settings) -> RegistrationPolicy:
    """Registration and password reset mails, from the settings."""
    return RegistrationPolicy(
        mailer=mailer(settings),
        public_url=settings.public_url,
        link_lifetime=settings.confirmation_link_lifetime,
        max_mails_per_email=settings.registration_mails_per_email,
        max_mails_per_email_and_client=settings.registration_mails_per_email_and_client,
        mail_window=settings.registration_mail_window,
        reset_link_lifetime=settings.password_reset_link_lifetime,
    )


def operator_policy(settings: Settings, passwords: Passwords) -> OperatorPolicy:
    """Console logins, from the settings."""
    return OperatorPolicy(
        passwords=passwords,
        max_failures=settings.login_max_failures_per_email,
        max_client_failures=settings.login_max_failures_per_client,
        window=settings.login_failure_window,
        session_lifetime=settings.operator_session_lifetime,
    )


def check_setting_files(settings: Settings) -> None:
    """Refuse (``InvalidInputError``) to start with a file or folder a setting names that cannot
    be used: the mail outbox (made if needed), the outcome script, and the audit checkpoints'
    key file and directory. ``serve`` runs it before any worker starts, and each app again. The
    outbox is made last, once every other setting is found usable: a server that refuses to
    start makes nothing."""
    if settings.outcome_script is not None:
        scripted_outcomes(settings.outcome_script)
    if settings.audit_checkpoint_key_file is not None:
        read_key(settings.audit_checkpoint_key_file)
    folder = settings.audit_checkpoint_dir
    if folder is not None and not folder.is_dir():
        raise InvalidInputError(
            f"COLOUR_COLLECTOR_AUDIT_CHECKPOINT_DIR {str(folder)!r} is not a directory: create or"
            " mount it first (the server does not make it, so that an unmounted mount is not"
            " taken for a local folder)"
        )
    if settings.smtp_host is None:
        usable_outbox(settings.mail_outbox)


def scripted_outcomes(path: Path) -> list[str | None]:
    """The tier names (null: no win) of an outcome script; ``InvalidInputError`` naming the
    setting and what is wrong with the file."""
    where = f"COLOUR_COLLECTOR_OUTCOME_SCRIPT ({path})"
    try:
        names = json.loads(path.read_text("utf-8"))
    except OSError as error:
        raise InvalidInputError(f"{where} cannot be read: {error.strerror}") from None
    except ValueError as error:  # not UTF-8, or not JSON
        raise InvalidInputError(f"{where} is not JSON: {error}") from None
    if not isinstance(names, list) or not all(n is None or isinstance(n, str) for n in names):
        raise InvalidInputError(f"{where} must be a JSON list of tier names or nulls")
    for name in names:
        if name is not None:
            try:
                tier_by_name(name)
            except UnknownTierError as error:
                raise InvalidInputError(f"{where}: {error}") from None
    return names


def _check_connections(settings: Settings, database: Database) -> None:
    """Warn when a PostgreSQL pool is smaller than the threads that may use it at once."""
    threads = settings.request_threads + settings.purchase_threads
    if database.engine.dialect.name == "postgresql" and threads > settings.database_pool_size:
        _log.warning(
            "COLOUR_COLLECTOR_REQUEST_THREADS (%d) and COLOUR_COLLECTOR_PURCHASE_THREADS (%d) may"
            " run %d requests' database work at once, and COLOUR_COLLECTOR_DATABASE_POOL_SIZE is"
            " %d: the others wait for a connection (up to %d s). Set the pool size to at least %d.",
            settings.request_threads,
            settings.purchase_threads,
            threads,
            settings.database_pool_size,
            POOL_TIMEOUT_S,
            threads,
        )


def build_runtime(settings: Settings, database: Database) -> Runtime:
    """The runtime for these settings.

    It also gets the generator's per-process tables ready (from the cache on disk, or worked out)
    and its versions, so the first purchase is not slow.
    """
    check_setting_files(settings)
    _check_connections(settings, database)
    pool = load_pool()
    warm()
    independent = IndependentSource(pool)
    purchase: OutcomeSource = independent
    sale = settings.pool_sale
    if sale is not None:
        current_versions()
        purchase = PoolSource(sale)
    try_outcomes: OutcomeSource = independent
    if settings.outcome_script is not None:
        # Test environments only (the settings refuse it elsewhere).
        scripted = ScriptedSource(scripted_outcomes(settings.outcome_script), purchase)
        purchase, try_outcomes = scripted, scripted.sharing(independent)
    accounts = account_policy(settings)
    provider = (
        SimulatedPaymentProvider() if settings.payments is PaymentProviderKind.SIMULATED else None
    )
    return Runtime(
        settings=settings,
        database=database,
        accounts=accounts,
        registration=registration_policy(settings),
        plays=PlayPolicy(load_config().price, settings.auto_finish_delay, purchase),
        try_outcomes=try_outcomes,
        rng=secure_rng(),
        operators=operator_policy(settings, accounts.passwords),
        payment_provider=provider,
        pool=pool,
        sale=sale,
        metrics=registry_for(database, pool, load_config().price, pools=settings.sells_pools),
    )
