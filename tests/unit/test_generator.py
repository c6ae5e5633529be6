"""The play generator: every tier replays to itself, and plays come in all their varieties.

Every check reads what the replayer or the record says (``Result``, the steps), never the
generator's own bookkeeping.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from scipy.stats import chi2_contingency

from colour_collector.game.config import SYMBOL_KINDS, BonusKind, load_config
from colour_collector.game.generator import generate, main_sampler
from colour_collector.game.layout import lay_out_main
from colour_collector.game.main_game_sampler import MainGameSampler, Method
from colour_collector.game.prize_table import Tier, load_tiers, tier_by_name
from colour_collector.game.record import BonusRound, MainSpin, Panel, PlayRecord
from colour_collector.game.replay import Result, replay
from colour_collector.game.rules import Game
from strategies import outcomes, seeds

PLAYS = 300


@settings(max_examples=400, deadline=None)
@given(outcome=outcomes, seed=seeds)
def test_every_outcome_replays_to_itself(outcome: Tier | None, seed: int) -> None:
    record = generate(outcome, random.Random(seed))
    result = replay(record)
    assert result.tier == outcome
    assert result.prize == (0 if outcome is None else outcome.prize_pence)


@pytest.mark.parametrize("tier", load_tiers(), ids=lambda t: t.name)
def test_each_tier_at_a_few_fixed_seeds(tier: Tier) -> None:
    for seed in range(3):
        assert replay(generate(tier, random.Random(seed))).tier == tier


def test_the_same_seed_gives_the_same_play() -> None:
    tier = tier_by_name("£20 (£8 + £12)")
    assert generate(tier, random.Random(5)) == generate(tier, random.Random(5))
    assert generate(tier, random.Random(5)) != generate(tier, random.Random(6))


def _plays(tier: Tier | None, seed: int, count: int = PLAYS) -> Iterator[tuple[PlayRecord, Result]]:
    rng = random.Random(seed)
    for _ in range(count):
        record = generate(tier, rng)
        yield record, replay(record)


def _won_kinds(record: PlayRecord) -> list[BonusKind]:
    """The Bonus Prize kinds the record's won rounds award, read by walking its steps."""
    kinds: list[BonusKind] = []
    panels: list[Panel] = []
    panel: Panel = ()
    for step in record.steps:
        if isinstance(step, MainSpin):
            panels.extend(step.bonus_panels)
        elif isinstance(step, BonusRound):
            if not panel:
                panel = panels.pop(0)
            if step.won:
                kinds.append(panel[step.prize].kind)
            else:
                panel = ()
    return kinds


def test_a_ten_pound_row_win_comes_at_every_level_that_pays_it() -> None:
    # £10 is the square row at level 0, the triangle row at level 2 or the circle row at level 3.
    cfg = load_config()
    seen = Counter((result.level, result.rows) for _, result in _plays(tier_by_name("£10"), seed=1))
    expected = {
        (level, (row,))
        for level in range(cfg.max_level + 1)
        for row in range(cfg.shapes)
        if cfg.row_amount(row, level) == 1000
    }
    assert expected == {(0, (2,)), (2, (1,)), (3, (0,))}
    assert set(seen) == expected


def test_eight_plus_twelve_is_a_level_one_win() -> None:
    for _, result in _plays(tier_by_name("£20 (£8 + £12)"), seed=2, count=50):
        assert result.level == 1
        assert result.rows == (1, 2)
        assert sorted(result.row_amounts) == [800, 1200]


def test_the_prize_game_is_reached_by_symbols_and_by_bonus_prizes() -> None:
    cfg = load_config()
    routes: Counter[str] = Counter()
    for record, result in _plays(tier_by_name("£10 (£10 Prize Game)"), seed=3):
        assert result.prize_game is not None
        kinds = _won_kinds(record)
        if BonusKind.UNLOCK_PRIZE_GAME in kinds:
            routes["unlock"] += 1
        elif BonusKind.PRIZE_GAME_SYMBOLS in kinds:
            routes["prize_game_symbols"] += 1
        else:
            routes["symbols"] += 1
            # the box was filled from the grid: replaying the Main Game alone shows it full
            game = Game(record.grid, record.prize_grid, cfg)
            for step in record.steps:
                if not isinstance(step, MainSpin | BonusRound):
                    break
                game.apply(step)
            assert game.prize_game_unlocked
    assert set(routes) == {"unlock", "prize_game_symbols", "symbols"}


def test_bonus_games_happen_in_winning_and_losing_plays() -> None:
    losing = sum(result.bonus_games > 0 for _, result in _plays(None, seed=4))
    winning = sum(result.bonus_games > 0 for _, result in _plays(tier_by_name("£5"), seed=4))
    assert losing > 0
    assert winning > 0


def test_every_bonus_prize_kind_is_won_somewhere() -> None:
    won: Counter[BonusKind] = Counter()
    rng = random.Random(5)
    tiers = load_tiers()
    for _ in range(PLAYS):
        tier = tiers[rng.randrange(len(tiers))] if rng.randrange(2) else None
        record = generate(tier, rng)
        won.update(_won_kinds(record))
    assert set(won) == set(BonusKind)


def test_extra_spins_change_the_number_of_spins() -> None:
    cfg = load_config()
    spins = Counter(result.spins for _, result in _plays(None, seed=6))
    assert spins[cfg.starting_spins] > 0
    assert any(count > cfg.starting_spins for count in spins)


def test_the_prize_game_ends_on_win_x2_sometimes() -> None:
    doubled = Counter(
        result.prize_game.doubled
        for _, result in _plays(tier_by_name("£20 (£20 Prize Game)"), seed=7, count=100)
        if result.prize_game is not None
    )
    assert doubled[True] > 0
    assert doubled[False] > 0


def test_the_docs_list_each_tiers_method() -> None:
    # docs/generator.md's table (benchmarks/methods_table.py) must say what the code does.
    docs = Path(__file__).resolve().parents[2] / "docs" / "generator.md"
    text = docs.read_text("utf-8")
    section = text[text.index("### Which method each tier uses") :]
    section = section[: section.index("\n## ")]  # the naturalness report's tables come after
    listed = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 4 and cells[3] in {m.value for m in Method}:
            listed[cells[1]] = cells[3]
    cfg = load_config()
    expected = {
        "no win" if t is None else t.name: main_sampler(t, cfg).method.value
        for t in [None, *load_tiers()]
    }
    assert listed == expected


def test_each_method_keeps_a_play_a_function_of_the_seed() -> None:
    cfg = load_config()
    for name in ["£5", "£14 (£6 + £8)", "£1,000,000"]:
        tier = tier_by_name(name)
        assert main_sampler(tier, cfg).method in set(Method)
        assert generate(tier, random.Random(9)) == generate(tier, random.Random(9))
    methods = {main_sampler(t, cfg).method for t in [None, *load_tiers()]}
    # Every tier but the rarest is drawn exactly (EXACT_BUDGET): no tier needs "cells, then chain".
    assert methods == {Method.NATURAL, Method.CELLS, Method.CHAIN}


def _without_bonus_game(record: PlayRecord) -> bool:
    return not any(isinstance(s, MainSpin) and s.bonus_panels for s in record.steps)


def _symbols_won(record: PlayRecord) -> bool:
    panels: list[Panel] = []
    for step in record.steps:
        if isinstance(step, MainSpin):
            panels.extend(step.bonus_panels)
        elif isinstance(step, BonusRound):
            if step.won and panels[0][step.prize].kind in SYMBOL_KINDS:
                return True
            if not step.won:
                panels.pop(0)
    return False


@pytest.mark.parametrize(
    ("name", "feature", "plays"),
    [
        ("£35 (£5 + £10 + £20)", _without_bonus_game, 150),
        ("£33 (£8 + £25)", _symbols_won, 250),
    ],
    ids=["no Bonus Game", "Symbols prize"],
)
def test_rare_tiers_look_like_natural_play_of_them(
    name: str, feature: Callable[[PlayRecord], bool], plays: int
) -> None:
    # Plain to see: whether a play has a Bonus Game, and whether one wins a Symbols prize. The
    # reference is the exact cells method (natural play restricted to cells of known chance);
    # the chain these tiers were drawn by once gave 70% of £35 (£5 + £10 + £20) plays no Bonus
    # Game against 38%, and 47% of £33 (£8 + £25) plays a Symbols prize against 68%.
    tier = tier_by_name(name)
    cfg = load_config()
    sampler = main_sampler(tier, cfg)
    exact = MainGameSampler(cfg, sampler.targets, Method.CELLS, sampler.cells, sampler.acceptance)
    rng = random.Random(35)
    generated = sum(feature(generate(tier, rng)) for _ in range(plays))
    rng = random.Random(36)
    natural = 0
    for _ in range(plays):
        grid, steps = lay_out_main(exact.sample(rng), cfg, rng)
        natural += feature(PlayRecord(grid, tuple(steps), None))
    table = [[generated, plays - generated], [natural, plays - natural]]
    assert chi2_contingency(table).pvalue > 0.001, table
