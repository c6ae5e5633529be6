"""The exact parts of conditional generation, each against brute force where brute force is cheap.

Natural Main Games (``natural.simulate_haul``) are simulated once at a fixed seed; every exact
sampler must agree with them:

- ``booster_level.LevelOdds``: its chance of each level cell, and Main Games drawn from a cell;
- ``without_bonus.WithoutBonus``: its chance of a target with no Bonus Game, and its draws;
- ``other_items.OtherItems``: summing a skeleton's other items out gives the cell's chance of a
  target;
- ``layout``: a laid-out haul replays, through the rules, to what the haul says;
- ``placement_lean``: the chain's twisted Symbols placement, weighted, is the natural one.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest
from scipy.stats import binomtest, chi2_contingency

from colour_collector.game.booster_level import LevelOdds, LevelWanted
from colour_collector.game.config import load_config
from colour_collector.game.layout import lay_out_main
from colour_collector.game.natural import MainHaul, simulate_haul
from colour_collector.game.other_items import OtherItems
from colour_collector.game.outcome import MainTarget, targets_for
from colour_collector.game.placement_lean import PlacementLean
from colour_collector.game.prize_table import tier_by_name
from colour_collector.game.record import MainSpin, PlayRecord
from colour_collector.game.rules import Game
from colour_collector.game.without_bonus import WithoutBonus

CFG = load_config()
NATURAL = 40_000
SIGNIFICANCE = 0.001
CIRCLE = MainTarget(frozenset({0}), 0, False)


@pytest.fixture(scope="module")
def natural() -> list[MainHaul]:
    rng = random.Random(51)
    return [simulate_haul(CFG, rng) for _ in range(NATURAL)]


def _same_law(
    natural: list[MainHaul], drawn: list[MainHaul], feature: Callable[[MainHaul], int]
) -> float:
    """A chi-square p-value of ``feature`` between two samples, categories below 10 merged."""
    a, b = Counter(map(feature, natural)), Counter(map(feature, drawn))
    table: list[list[int]] = []
    for key in sorted(set(a) | set(b)):
        if table and min(table[-1]) < 10:
            table[-1] = [table[-1][0] + a[key], table[-1][1] + b[key]]
        else:
            table.append([a[key], b[key]])
    if len(table) > 1 and min(table[-1]) < 10:
        last = table.pop()
        table[-1] = [table[-1][0] + last[0], table[-1][1] + last[1]]
    return float(chi2_contingency(table).pvalue) if len(table) > 1 else 1.0


def _played(haul: MainHaul) -> bool:
    return haul.bonus_games > 0


def _placed(haul: MainHaul) -> bool:
    return any(r.rows for s in haul.spins for g in s.bonus_games for r in g.rounds)


@pytest.mark.parametrize(("level", "placed"), [(0, False), (0, True), (1, None), (3, None)])
def test_a_level_cell_has_its_natural_chance(
    natural: list[MainHaul], level: int, placed: bool | None
) -> None:
    wanted = LevelWanted.level(level, CFG, placed)
    odds = LevelOdds(CFG, wanted)
    hits = sum(
        1
        for h in natural
        if _played(h)
        and min(h.boosts, 4) in wanted.boosts
        and (placed is None or _placed(h) == placed)
    )
    assert binomtest(hits, NATURAL, odds.chance).pvalue > SIGNIFICANCE


def test_main_games_drawn_from_a_level_cell_are_natural_ones_of_that_cell(
    natural: list[MainHaul],
) -> None:
    wanted = LevelWanted.level(0, CFG, None)
    kept = [h for h in natural if _played(h) and h.boosts == 0]
    rng = random.Random(52)
    odds = LevelOdds(CFG, wanted)
    drawn = [h for _ in range(1500) if (h := odds.sample(rng)) is not None]
    assert all(_played(h) and h.boosts == 0 for h in drawn)
    for feature in (
        lambda h: len(h.spins),
        lambda h: h.bonus_games,
        lambda h: sum(len(s.items) for s in h.spins) // 4,
        lambda h: len(h.completed_rows(CFG)),
        lambda h: int(h.unlocked),
    ):
        assert _same_law(kept, drawn, feature) > SIGNIFICANCE


def test_no_bonus_game_draws_have_the_natural_chance_and_law(natural: list[MainHaul]) -> None:
    quiet = WithoutBonus(CFG, CIRCLE)
    kept = [h for h in natural if not _played(h) and CIRCLE.reached_by(h, CFG)]
    assert binomtest(len(kept), NATURAL, quiet.chance).pvalue > SIGNIFICANCE
    rng = random.Random(53)
    drawn = [quiet.sample(rng) for _ in range(2000)]
    assert all(CIRCLE.reached_by(h, CFG) and not _played(h) for h in drawn)
    for feature in (
        lambda h: sum(len(s.items) for s in h.spins) // 3,
        lambda h: len(h.spins[0].items),
        lambda h: h.filled[1],
        lambda h: sum(s.items.count(CFG.bonus_item) for s in h.spins),
    ):
        assert _same_law(kept, drawn, feature) > SIGNIFICANCE


def test_summing_other_items_out_gives_the_cells_chance_of_a_target(
    natural: list[MainHaul],
) -> None:
    target = MainTarget(frozenset({0}), 1, False)  # the £6 row
    wanted = LevelWanted.level(1, CFG, False)
    odds = LevelOdds(CFG, wanted)
    others = OtherItems(CFG, target)
    rng = random.Random(54)
    skeletons = [s for _ in range(3000) if (s := odds.draw(rng, defer=True)) is not None]
    assert all(s.others is None for s in skeletons)
    summed = sum(others.chance(s) for s in skeletons) / len(skeletons)
    assert all(others.chance(s) <= others.most for s in skeletons)
    # Against natural plays: the share of this no-Symbols level cell that comes to the target.
    cell = [h for h in natural if _played(h) and h.boosts == 1 and not _placed(h)]
    hits = sum(target.reached_by(h, CFG) for h in cell)
    assert binomtest(hits, len(cell), summed).pvalue > SIGNIFICANCE
    filled = [others.fill(s, rng) for s in skeletons[:200] if others.chance(s) > 0]
    assert all(target.reached_by(h, CFG) for h in filled)


def test_a_laid_out_haul_replays_to_what_it_collected(natural: list[MainHaul]) -> None:
    rng = random.Random(55)
    for haul in natural[:300]:
        grid, steps = lay_out_main(haul, CFG, rng)
        record = PlayRecord(grid, tuple(steps), None)
        game = Game(record.grid, None, CFG)
        collected = []
        for step in record.steps:
            if isinstance(step, MainSpin):
                before = list(game.grid)
                got = [before[s] for s, c in enumerate(step.colours) if c == step.wheel]
                collected.append(sorted(got))
            game.apply(step)
        assert collected == [sorted(s.items) for s in haul.spins]
        assert (
            tuple(
                min(f, b)
                for f, b in zip(game.filled, [r.boxes for r in CFG.prize_table], strict=True)
            )
            == haul.filled
        )
        assert game.prize_game_unlocked == haul.unlocked


def test_a_tier_paid_by_several_rows_and_levels_has_one_target_each() -> None:
    targets = targets_for(tier_by_name("£10"), CFG)
    assert {(t.level, tuple(sorted(t.rows))) for t in targets} == {(0, (2,)), (2, (1,)), (3, (0,))}
    top = targets_for(tier_by_name("£1,000,000"), CFG)
    assert top == (MainTarget(frozenset({6}), None, False),)
    assert targets_for(None, CFG) == (MainTarget(frozenset(), None, False),)


def test_a_leaning_placement_weighs_back_to_the_uniform_one() -> None:
    # The chain's Symbols placement leans to the star row; weighted by natural over proposed
    # chance, its placements are uniform over the free boxes (no box is ruled out here: no row
    # the tier does not want can be completed by three Symbols).
    star = len(CFG.prize_table) - 1
    lean = PlacementLean(CFG, frozenset({star}))
    boxes = [row.boxes for row in CFG.prize_table]
    start = [0] * star + [boxes[star] - 3]  # the star row lacks three
    free = [b - n for b, n in zip(boxes, start, strict=True)]
    rng = random.Random(5)
    draws = 20_000
    weights: list[float] = []
    first = Counter[int]()
    proposed = 0
    for _ in range(draws):
        pending = list(start)
        placed = lean.place(3, pending, 4, rng)
        assert placed is not None
        rows, factor = placed
        assert Counter(rows) == Counter(
            {r: n - s for r, (n, s) in enumerate(zip(pending, start, strict=True)) if n > s}
        )
        weights.append(factor)
        first[rows[0]] += factor
        proposed += rows[0] == star
    mean = sum(weights) / draws
    spread = (sum((w - mean) ** 2 for w in weights) / (draws - 1)) ** 0.5
    assert proposed / draws > 2 * free[star] / sum(free)  # it does lean
    assert abs(mean - 1) < 4 * spread / draws**0.5
    for row, room in enumerate(free):
        assert abs(first[row] / draws - room / sum(free)) < 0.02, row
