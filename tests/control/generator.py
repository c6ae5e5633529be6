"""The play generator: turns an outcome fixed at purchase into a whole play record.

``generate(tier, rng)`` is deterministic for a given ``rng`` state. It never decides what a play is
worth: the replayer does that from the rules, and the tests check the two agree for every tier.

- No win: natural Main Games are simulated until one loses, so a losing play is exactly a natural
  play that happened to lose (nothing is steered towards a near miss).
- A common win (a tier that at least one natural play in twenty reaches, such as £5): natural
  Main Games are simulated, up to ``NATURAL_WIN_TRIES`` of them, until one comes to that tier.
- Any other win, or a common one the tries missed: a plan is chosen among the tier's
  realisations (levels, rows, the Prize Game's route and doubling) and built by ``MainBuilder``
  and ``build_prize_game``.
"""

from __future__ import annotations

import random
from collections import Counter

from colour_collector.game.config import GameConfig, load_config
from colour_collector.game.errors import GameError
from colour_collector.game.prize_table import Tier, load_tiers, tier_for_breakdown
from colour_collector.game.record import PlayRecord, Step
from control.build_main import MainBuilder, PlanMissedError
from control.build_prize import build_prize_game
from control.natural import (
    GiveUp,
    NaturalMain,
    simulate_main,
    simulate_main_unless,
)
from control.plan import Plan, plan_for, realisations

NATURAL_TRIES = 100
"""Natural Main Games tried for a losing play before building one to a plan."""
PLAN_TRIES = 100
"""Attempts at building a play to its plan."""
NATURAL_WIN_TRIES = 24
"""Natural Main Games tried for a common win before building one to a plan."""
COMMON_SHARE = 20
"""A tier is common when at least one natural play in this many reaches it."""
CALIBRATION_PLAYS = 2000
"""Natural plays simulated (at a fixed seed) to find the common tiers."""
CALIBRATION_SEED = 20261202
"""Seed of that simulation, so every process finds the same common tiers."""

NO_WIN = -1
"""``natural_outcome`` of a losing Main Game."""
UNDECIDED = -2
"""``natural_outcome`` of a Main Game that reaches a Prize Game or pays no tier."""

_common: dict[int, tuple[GameConfig, frozenset[int]]] = {}


class GenerationError(GameError):
    """No play could be built for the outcome (a bug: every tier must be buildable)."""


def generate(tier: Tier | None, rng: random.Random, config: GameConfig | None = None) -> PlayRecord:
    """A whole play record for ``tier`` (None: no win)."""
    cfg = config or load_config()
    tries = 0
    if tier is None:
        tries = NATURAL_TRIES
    elif tier.index in common_tiers(cfg):
        tries = NATURAL_WIN_TRIES
    if tries:
        wanted = NO_WIN if tier is None else tier.index
        give_up = _hopeless(tier, cfg)
        for _ in range(tries):
            main = simulate_main_unless(cfg, rng, give_up)
            if main is not None and natural_outcome(main, cfg) == wanted:
                return PlayRecord(main.grid, main.steps, None)
    plan = plan_for(tier, cfg, rng)
    return build(plan, cfg, rng)


def prepare(config: GameConfig | None = None) -> None:
    """Work out now what generation works out once a process (the common tiers, every tier's
    realisations), so that the first purchases a server answers do not pay for it."""
    cfg = config or load_config()
    common_tiers(cfg)
    for tier in load_tiers():
        realisations(cfg, tier.rows)


def _hopeless(tier: Tier | None, config: GameConfig) -> GiveUp:
    """When a natural Main Game can no longer come to ``tier``: a Prize Game, a completed row
    the tier has in none of its realisations, or (for a win) more boosts than its highest level.
    A losing play may have any boosts: with no completed row they pay nothing."""
    options = realisations(config, tier.rows) if tier is not None else ()
    rows = frozenset().union(*(chosen for _, chosen in options))
    top = max((level for level, _ in options), default=0)
    boxes = [row.boxes for row in config.prize_table]
    capped = tier is None or top >= config.max_level

    watched = [(r, boxes[r]) for r in range(len(boxes)) if r not in rows]

    def give_up(filled: list[int], boosts: int, unlocked: bool) -> bool:
        if unlocked or (boosts > top and not capped):
            return True
        for row, full in watched:  # noqa: SIM110 - a plain loop is faster; runs every spin
            if filled[row] >= full:
                return True
        return False

    return give_up


def natural_outcome(main: NaturalMain, config: GameConfig) -> int:
    """The tier index a natural Main Game comes to, ``NO_WIN`` for no win, or ``UNDECIDED``
    when it reaches a Prize Game (the Main Game alone does not decide the prize) or no tier."""
    if main.prize_game_unlocked:
        return UNDECIDED
    rows = main.completed_rows(config)
    if not rows:
        return NO_WIN
    level = min(main.boosts, config.max_level)
    tier = tier_for_breakdown(tuple(sorted(config.row_amount(r, level) for r in rows)), 0)
    return UNDECIDED if tier is None else tier.index


def common_tiers(config: GameConfig) -> frozenset[int]:
    """Tiers that at least one natural play in ``COMMON_SHARE`` reaches (found once a process)."""
    held = _common.get(id(config))
    if held is None or held[0] is not config:  # the entry keeps its config alive: ids stay true
        rng = random.Random(CALIBRATION_SEED)
        counts = Counter(
            natural_outcome(simulate_main(config, rng), config) for _ in range(CALIBRATION_PLAYS)
        )
        common = frozenset(
            index
            for index, count in counts.items()
            if index >= 0 and count * COMMON_SHARE >= CALIBRATION_PLAYS
        )
        held = _common[id(config)] = (config, common)
    return held[1]


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
