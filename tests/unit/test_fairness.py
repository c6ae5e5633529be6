"""What the player sees before a step says no more than natural play would.

The certification review found two tells in plays built to a plan: starting grids seeded with what
the plan needed, and Prize Game symbols coloured so that some spins visibly could not end the game.
Plays are now natural play conditioned on their outcome, so the first screen of a £500 play holds
as many hexagons as natural plays that win £500 do (more than an average play: the naturalness
battery, ``test_naturalness.py``, checks it against natural play, class by class). What must hold
whatever the outcome is checked here: the symmetries of natural play, which conditioning on an
outcome cannot break.
"""

from __future__ import annotations

import random
from collections import Counter

from scipy.stats import binomtest, chisquare

from colour_collector.game.config import load_config
from colour_collector.game.generator import generate
from colour_collector.game.prize_table import load_tiers
from colour_collector.game.record import WIN, WIN_X2, MainSpin, PrizeSpin

CFG = load_config()
SIGNIFICANCE = 0.001


def test_no_wheel_colour_is_favoured_whatever_the_outcome() -> None:
    # Natural play treats the six colours alike, and what a play comes to never depends on
    # colours, so every outcome's plays stop the wheel on each colour one time in six.
    rng = random.Random(30)
    tiers = [None, *load_tiers()]
    wheels: Counter[int] = Counter()
    for _ in range(3):
        for tier in tiers:
            record = generate(tier, rng)
            wheels.update(s.wheel for s in record.steps if isinstance(s, MainSpin | PrizeSpin))
    observed = [wheels[c] for c in range(6)]
    assert chisquare(observed).pvalue > SIGNIFICANCE


def test_prize_game_symbol_colours_say_no_more_than_in_natural_play() -> None:
    # In a natural Prize Game, WIN and WIN x2 share a colour on 1 in 5 of the spins that do not
    # end the game (each then has one of the five colours the wheel did not stop on) and on 1 in
    # 11 of the spins that end it. Conditioning on what the game pays changes how many spins it
    # lasts, never these shares.
    rng = random.Random(32)
    prize_tiers = [t for t in load_tiers() if t.prize_game]
    going = [0, 0]  # [spins that do not end the game, of which WIN and WIN x2 share a colour]
    ending = [0, 0]
    for _ in range(12):
        for tier in prize_tiers:
            record = generate(tier, rng)
            assert record.prize_grid is not None
            win, x2 = record.prize_grid.index(WIN), record.prize_grid.index(WIN_X2)
            for step in record.steps:
                if not isinstance(step, PrizeSpin):
                    continue
                shared = step.colours[win] == step.colours[x2]
                tally = ending if step.wheel in (step.colours[win], step.colours[x2]) else going
                tally[0] += 1
                tally[1] += shared
    assert binomtest(going[1], going[0], 1 / 5).pvalue > SIGNIFICANCE
    assert binomtest(ending[1], ending[0], 1 / 11).pvalue > SIGNIFICANCE
