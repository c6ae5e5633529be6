"""The play generator: turns an outcome fixed at purchase into a whole play record.

``generate(tier, rng)`` is deterministic for a given ``rng`` state. It never decides what a play is
worth: the replayer does that from the rules, and the tests check the two agree for every tier.

- No win: natural Main Games are simulated until one loses, so a losing play is exactly a natural
  play that happened to lose (nothing is steered towards a near miss).
- A win: a plan is chosen among the tier's realisations (levels, rows, the Prize Game's route and
  doubling) and built by ``MainBuilder`` and ``build_prize_game``.
"""

from __future__ import annotations

import random

from colour_collector.game.build_main import MainBuilder, PlanMissedError
from colour_collector.game.build_prize import build_prize_game
from colour_collector.game.config import GameConfig, load_config
from colour_collector.game.errors import GameError
from colour_collector.game.natural import simulate_main
from colour_collector.game.plan import Plan, plan_for
from colour_collector.game.prize_table import Tier
from colour_collector.game.record import PlayRecord, Step

NATURAL_TRIES = 100
"""Natural Main Games tried for a losing play before building one to a plan."""
PLAN_TRIES = 100
"""Attempts at building a play to its plan."""


class GenerationError(GameError):
    """No play could be built for the outcome (a bug: every tier must be buildable)."""


def generate(tier: Tier | None, rng: random.Random, config: GameConfig | None = None) -> PlayRecord:
    """A whole play record for ``tier`` (None: no win)."""
    cfg = config or load_config()
    if tier is None:
        for _ in range(NATURAL_TRIES):
            main = simulate_main(cfg, rng)
            if not main.prize_game_unlocked and not main.completed_rows(cfg):
                return PlayRecord(main.grid, main.steps, None)
    plan = plan_for(tier, cfg, rng)
    return build(plan, cfg, rng)


def build(plan: Plan, config: GameConfig, rng: random.Random) -> PlayRecord:
    """A whole play record that comes true to ``plan``."""
    last: Exception | None = None
    for _ in range(PLAN_TRIES):
        try:
            grid, steps, unlocked = MainBuilder(config, plan, rng).build()
        except PlanMissedError as exc:
            last = exc
            continue
        all_steps: list[Step] = list(steps)
        prize_grid = None
        if unlocked:
            prize_grid, prize_steps = build_prize_game(config, plan.prize_game, plan.doubled, rng)
            all_steps.extend(prize_steps)
        return PlayRecord(grid, tuple(all_steps), prize_grid)
    raise GenerationError(f"no play could be built for {plan!r}: {last}")
