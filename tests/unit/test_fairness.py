"""What the player sees before a step says no more than a natural play would.

Found by the certification review: plays built to a plan once seeded their starting grid with what
the plan needed (ten stars on the first screen of every £1,000,000 play), and Prize Games coloured
their WIN symbols so that some spins visibly could not end the game. These tests keep both shut.
"""

from __future__ import annotations

import random
from collections import Counter

from scipy.stats import binomtest, chisquare

from colour_collector.game.config import load_config
from colour_collector.game.generator import generate
from colour_collector.game.prize_table import load_tiers, tier_by_name
from colour_collector.game.record import WIN, WIN_X2, PrizeSpin

CFG = load_config()
RARE = ["£1,000,000", "£500", "£2,000", "£750", "£150 (£20 + £30 + £100)", "£25"]


def test_planned_plays_start_on_a_natural_grid() -> None:
    rng = random.Random(31)
    counts: Counter[int] = Counter()
    for name in RARE:
        for _ in range(150):
            counts.update(generate(tier_by_name(name), rng).grid)
    observed = [counts[item] for item in range(len(CFG.item_weights))]
    total = sum(observed)
    expected = [total * w / sum(CFG.item_weights) for w in CFG.item_weights]
    assert chisquare(observed, expected).pvalue > 0.001
    # The review's example: the £1,000,000 play's first screen holds natural numbers of stars.
    stars = [generate(tier_by_name("£1,000,000"), rng).grid.count(6) for _ in range(200)]
    assert sum(stars) / len(stars) < 2


def test_prize_game_symbol_colours_do_not_tell_whether_a_spin_ends() -> None:
    rng = random.Random(32)
    prize_tiers = [t for t in load_tiers() if t.prize_game]
    shared = [0, 0]  # [spins, of which ended] where WIN and WIN x2 share a colour
    apart = [0, 0]
    doubled = 0
    plays = 0
    for _ in range(15):
        for tier in prize_tiers:
            record = generate(tier, rng)
            assert record.prize_grid is not None
            win, x2 = record.prize_grid.index(WIN), record.prize_grid.index(WIN_X2)
            plays += 1
            for step in record.steps:
                if not isinstance(step, PrizeSpin):
                    continue
                ended = step.wheel in (step.colours[win], step.colours[x2])
                tally = shared if step.colours[win] == step.colours[x2] else apart
                tally[0] += 1
                tally[1] += ended
                doubled += ended and step.wheel == step.colours[x2]
    # A natural wheel ends a spin 1 time in 6 when the symbols share a colour, 2 in 6 otherwise.
    assert binomtest(shared[1], shared[0], 1 / 6).pvalue > 0.001
    assert binomtest(apart[1], apart[0], 2 / 6).pvalue > 0.001
    # And ends on WIN x2 in 6 of the 11 ways a spin can end.
    assert binomtest(doubled, plays, 6 / 11).pvalue > 0.001
