"""The Prize Game drawn exactly given what it pays, against natural Prize Games that pay it.

``prize_game.PrizeGameOdds`` claims two things, both checked here against a plain simulation of
natural Prize Games (``simulate_prize_game``): its chance that a Prize Game pays an amount is the
natural one, and its draws given the amount are natural Prize Games given the amount.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest
from scipy.stats import binomtest, chi2_contingency

from colour_collector.game.config import load_config
from colour_collector.game.layout import lay_out_prize
from colour_collector.game.prize_game import PrizeHaul, prize_game_odds, simulate_prize_game
from colour_collector.game.prize_table import load_tiers
from colour_collector.game.record import WIN, WIN_X2

CFG = load_config()
NATURAL = 40_000
SIGNIFICANCE = 0.001


@pytest.fixture(scope="module")
def natural() -> list[PrizeHaul]:
    rng = random.Random(41)
    return [simulate_prize_game(CFG, rng) for _ in range(NATURAL)]


@pytest.mark.parametrize("pays", [1000, 2000, 5000])
def test_the_chance_of_paying_an_amount_is_natural(natural: list[PrizeHaul], pays: int) -> None:
    hits = sum(h.pays == pays for h in natural)
    on_win, on_x2 = prize_game_odds(CFG).doubled_chance(pays)
    assert binomtest(hits, NATURAL, on_win + on_x2).pvalue > SIGNIFICANCE


@cache
def drawn(pays: int) -> list[PrizeHaul]:
    rng = random.Random(42)
    return [prize_game_odds(CFG).sample(pays, rng) for _ in range(3000)]


FEATURES = {
    "spins": lambda h: min(3, len(h.spins)),
    "amounts": lambda h: min(4, sum(len(s) for s in h.spins)),
    "doubled": lambda h: int(h.win_x2),
    "largest amount": lambda h: max(a for s in h.spins for a in s),
}
"""What a given pot leaves open, each compared on its own."""


@pytest.mark.parametrize("pays", [1000, 2000])
@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_draws_given_the_amount_are_natural_prize_games_that_pay_it(
    natural: list[PrizeHaul], pays: int, feature: str
) -> None:
    measure = FEATURES[feature]
    kept = Counter(measure(h) for h in natural if h.pays == pays)
    drawn_hauls = drawn(pays)
    assert all(h.pays == pays for h in drawn_hauls)
    counts = Counter(measure(h) for h in drawn_hauls)
    # Categories with fewer than 10 plays in both samples are merged into their neighbour.
    table: list[list[int]] = []
    for key in sorted(set(kept) | set(counts)):
        row = [kept[key], counts[key]]
        if table and min(table[-1]) < 10:
            table[-1] = [table[-1][0] + row[0], table[-1][1] + row[1]]
        else:
            table.append(row)
    if len(table) > 1 and min(table[-1]) < 10:
        last = table.pop()
        table[-1] = [table[-1][0] + last[0], table[-1][1] + last[1]]
    assert len(table) >= 2, feature
    assert chi2_contingency(table).pvalue > SIGNIFICANCE


def test_every_prize_game_amount_of_the_table_can_be_drawn() -> None:
    # (Whole plays of every Prize Game tier replay to it: tests/unit/test_generator.py.)
    rng = random.Random(43)
    for pays in sorted({t.prize_game for t in load_tiers() if t.prize_game}):
        haul = prize_game_odds(CFG).sample(pays, rng)
        assert haul.pays == pays
        assert haul.pot > 0
        assert haul.win or haul.win_x2
        grid, steps = lay_out_prize(haul, CFG, rng)
        assert sorted(i for i in grid if i < 0) == [WIN_X2, WIN]
        assert [len(step.refill) for step in steps[:-1]] == [len(s) for s in haul.spins[:-1]]
        assert steps[-1].refill == ()


def test_an_amount_no_prize_game_pays_is_refused() -> None:
    with pytest.raises(ValueError, match="pays"):
        prize_game_odds(CFG).sample(25, random.Random(1))
