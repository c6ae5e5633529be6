"""The play generator: turns an outcome fixed at purchase into a whole play record.

``generate(tier, rng)`` draws natural play conditioned on the tier (``docs/generator.md``):

1. the Main Game as a haul (what each spin collects, its Bonus Games), by the tier's method
   (``main_game_sampler``: rejection from natural play, rejection from cells of natural play of
   known chance, or an independence Metropolis chain for the rarest tiers);
2. if the Prize Game is unlocked, the Prize Game conditioned exactly on paying the tier's Prize
   Game amount (``prize_game``; WIN or WIN x2 in proportion to their natural chances);
3. both laid out on the grid (``layout``): squares, colours and refills, exactly as natural play
   lays out what it collects.

Given the Main Game, a natural Prize Game is independent of it, so the play is natural play
conditioned on the tier whenever its Main Game is. ``generate`` is a function of the tier and
the state of ``rng`` alone (per-process tables are worked out from fixed seeds); it never
decides what a play is worth: the replayer does that from the rules, and the tests check the
two agree for every tier.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from colour_collector.game.config import GameConfig, load_config
from colour_collector.game.errors import GameError
from colour_collector.game.layout import lay_out_main, lay_out_prize
from colour_collector.game.main_game_sampler import Calibration, MainGameSampler
from colour_collector.game.prize_game import PrizeGameOdds, adopt_odds, prize_game_odds
from colour_collector.game.prize_table import Tier, load_tiers
from colour_collector.game.record import PlayRecord, Step


class GenerationError(GameError):
    """No play could be built for the outcome (a bug: every tier must be buildable)."""


_calibrations: dict[int, tuple[GameConfig, Calibration]] = {}
_samplers: dict[tuple[int, int], MainGameSampler] = {}


def calibration(config: GameConfig) -> Calibration:
    """The shared ``Calibration`` of ``config`` (one a process)."""
    held = _calibrations.get(id(config))
    if held is None or held[0] is not config:  # the entry keeps its config alive: ids stay true
        held = _calibrations[id(config)] = (config, Calibration(config))
        for key in [k for k in _samplers if k[0] == id(config)]:
            del _samplers[key]
    return held[1]


def main_sampler(tier: Tier | None, config: GameConfig) -> MainGameSampler:
    """How ``tier``'s Main Game is drawn (worked out once a process)."""
    calib = calibration(config)
    key = (id(config), -1 if tier is None else tier.index)
    held = _samplers.get(key)
    if held is None:
        held = _samplers[key] = calib.sampler(tier)
    return held


def generate(tier: Tier | None, rng: random.Random, config: GameConfig | None = None) -> PlayRecord:
    """A whole play record for ``tier`` (None: no win)."""
    cfg = config or load_config()
    haul = main_sampler(tier, cfg).sample(rng)
    grid, steps = lay_out_main(haul, cfg, rng)
    all_steps: list[Step] = list(steps)
    prize_grid = None
    if haul.unlocked:
        if tier is None or not tier.prize_game:
            raise GenerationError(f"a Main Game for {tier!r} unlocked the Prize Game")
        prize = prize_game_odds(cfg).sample(tier.prize_game, rng)
        prize_grid, prize_steps = lay_out_prize(prize, cfg, rng)
        all_steps.extend(prize_steps)
    return PlayRecord(grid, tuple(all_steps), prize_grid)


def prepare(config: GameConfig | None = None) -> None:
    """Work out now what generation works out once a process (every tier's method and tables,
    the Prize Game's chances), so that the first purchases a server answers do not pay for it."""
    cfg = config or load_config()
    main_sampler(None, cfg)
    top = 0
    for tier in load_tiers():
        main_sampler(tier, cfg)
        top = max(top, tier.prize_game)
    odds = prize_game_odds(cfg)
    odds.chance(top)


def prepared(config: GameConfig | None = None) -> bool:
    """Whether this process has worked out (or adopted) every outcome's sampler for ``config``."""
    cfg = config or load_config()
    held = _calibrations.get(id(cfg))
    if held is None or held[0] is not cfg:
        return False
    return all((id(cfg), i) in _samplers for i in (-1, *(t.index for t in load_tiers())))


@dataclass(frozen=True, slots=True)
class Tables:
    """What generation works out once a process for one configuration (what ``prepare``
    does): the calibration, every outcome's Main Game sampler and the Prize Game's chances.

    They come from fixed seeds, so the same program and configuration always work out the same
    tables: a copy another process made (pickled, with the configuration left out) serves as
    well, and ``colour_collector.generator_cache`` keeps one on disk.
    """

    calibration: Calibration
    """The fixed-seed estimates the samplers were chosen by."""
    samplers: dict[int, MainGameSampler]
    """Each outcome's sampler, by tier index (-1: no win)."""
    prize_game: PrizeGameOdds
    """The Prize Game's chances, grown as far as the largest Prize Game prize."""


def tables(config: GameConfig | None = None) -> Tables:
    """This process's tables for ``config`` (worked out now if they are not yet)."""
    cfg = config or load_config()
    prepare(cfg)
    samplers = {index: s for (of, index), s in _samplers.items() if of == id(cfg)}
    return Tables(calibration(cfg), samplers, prize_game_odds(cfg))


def adopt(found: Tables, config: GameConfig | None = None) -> None:
    """Use ``found``, made for ``config`` by this program, as this process's tables."""
    cfg = config or load_config()
    if found.calibration.cfg is not cfg or found.prize_game.config is not cfg:
        raise GenerationError("tables made for another configuration object cannot be adopted")
    _calibrations[id(cfg)] = (cfg, found.calibration)
    for index, sampler in found.samplers.items():
        _samplers[(id(cfg), index)] = sampler
    adopt_odds(found.prize_game)
