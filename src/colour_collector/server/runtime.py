"""What the play routes share, built once per app from the settings: the purchase policy, the
outcome sources and the secure random source."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from colour_collector.game.config import load_config
from colour_collector.game.draw import secure_rng
from colour_collector.game.generator import prepare
from colour_collector.game.pool import load_pool
from colour_collector.server.settings import DrawMode, Settings
from colour_collector.service.outcomes import (
    FinitePoolSource,
    IndependentSource,
    OutcomeSource,
    ScriptedSource,
)
from colour_collector.service.ports import UnitOfWorkFactory
from colour_collector.service.purchase import PlayPolicy


@dataclass(frozen=True, slots=True)
class PlayRuntime:
    """The play routes' shared parts."""

    policy: PlayPolicy
    """Price, auto-finish delay and the purchase outcome source."""
    try_outcomes: OutcomeSource
    """Outcome source of Try plays: independent draws, never the finite pool."""
    rng: random.Random
    """``random.SystemRandom``: every outcome, play and reel number comes from it."""


def build_runtime(settings: Settings, database: UnitOfWorkFactory) -> PlayRuntime:
    """The runtime for these settings (storing the finite pool if it is used and not stored).

    It also works out the generator's per-process tables, so the first purchase is not slow.
    """
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
    policy = PlayPolicy(load_config().price, settings.auto_finish_delay, purchase)
    return PlayRuntime(policy, try_outcomes, secure_rng())
