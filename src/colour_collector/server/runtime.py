"""What every route shares, built once per app from the settings: the settings themselves, the
database, the account policy (password hashing, login throttle, sessions), the purchase policy,
the outcome sources and the secure random source."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from prometheus_client import CollectorRegistry

from colour_collector.game.config import load_config
from colour_collector.game.draw import secure_rng
from colour_collector.game.generator import prepare
from colour_collector.game.pool import PrizePool, load_pool
from colour_collector.server.metrics import registry_for
from colour_collector.server.settings import DrawMode, PaymentProviderKind, Settings
from colour_collector.service.accounts import AccountPolicy, Passwords
from colour_collector.service.audit_checkpoints import read_key
from colour_collector.service.operators import OperatorPolicy
from colour_collector.service.outcomes import (
    FinitePoolSource,
    IndependentSource,
    OutcomeSource,
    ScriptedSource,
)
from colour_collector.service.payments import SimulatedPaymentProvider
from colour_collector.service.ports import PaymentProvider
from colour_collector.service.purchase import PlayPolicy
from colour_collector.store import Database


@dataclass(frozen=True, slots=True)
class Runtime:
    """The routes' shared parts (one per app)."""

    settings: Settings
    """The settings the app was made with."""
    database: Database
    """The database: ``database()`` opens a unit of work."""
    accounts: AccountPolicy
    """Password hashing, login throttling and session lifetime."""
    plays: PlayPolicy
    """Price, auto-finish delay and the purchase outcome source."""
    try_outcomes: OutcomeSource
    """Outcome source of Try plays: independent draws, never the finite pool."""
    rng: random.Random
    """``random.SystemRandom``: every outcome, play and reel number comes from it."""
    operators: OperatorPolicy
    """Operator password hashing, console login throttling and session lifetime."""
    payment_provider: PaymentProvider | None
    """Deposits' and withdrawals' provider (None: none configured)."""
    pool: PrizePool
    """The prize structure, for the console's figures."""
    metrics: CollectorRegistry
    """What ``/metrics`` shows."""


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


def operator_policy(settings: Settings, passwords: Passwords) -> OperatorPolicy:
    """Console logins, from the settings."""
    return OperatorPolicy(
        passwords=passwords,
        max_failures=settings.login_max_failures_per_email,
        window=settings.login_failure_window,
        session_lifetime=settings.operator_session_lifetime,
    )


def build_runtime(settings: Settings, database: Database) -> Runtime:
    """The runtime for these settings (storing the finite pool if it is used and not stored).

    It also works out the generator's per-process tables, so the first purchase is not slow.
    """
    if settings.audit_checkpoint_key_file is not None:  # refuse to start on a bad key file
        read_key(settings.audit_checkpoint_key_file)
    pool = load_pool()
    prepare()
    independent = IndependentSource(pool)
    purchase: OutcomeSource = independent
    if settings.draw_mode is DrawMode.POOL:
        finite = FinitePoolSource(pool)
        finite.prepare(database)
        purchase = finite
    try_outcomes: OutcomeSource = independent
    if settings.outcome_script is not None:
        # Test environments only (the settings refuse it elsewhere).
        names = json.loads(settings.outcome_script.read_text("utf-8"))
        purchase = ScriptedSource(names, purchase)
        try_outcomes = ScriptedSource(names, independent)
    accounts = account_policy(settings)
    provider = (
        SimulatedPaymentProvider() if settings.payments is PaymentProviderKind.SIMULATED else None
    )
    return Runtime(
        settings=settings,
        database=database,
        accounts=accounts,
        plays=PlayPolicy(load_config().price, settings.auto_finish_delay, purchase),
        try_outcomes=try_outcomes,
        rng=secure_rng(),
        operators=operator_policy(settings, accounts.passwords),
        payment_provider=provider,
        pool=pool,
        metrics=registry_for(database, pool, load_config().price),
    )
