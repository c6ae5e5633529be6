"""Generated plays against an independent reference: natural play simulated square by square.

The naturalness battery (``test_naturalness.py``) draws its natural plays with the generator's
own modules, so a bias in ``layout``, ``natural`` or ``booster_level`` is on both of its sides.
Here the reference is ``tests/natural_reference.py``, which plays the game forward from the
procedures under the rules engine and shares no code with the generator. Both samples have the
same outcomes (a matched design): every reference play's tier is generated once, so any
difference is one within tiers, and natural play conditioned on a tier, not the tier mix, is what
is compared. Each statistic is something a player sees that the battery does not check, compared
with a G-test of homogeneity (categories with fewer than 5 expected merged) at fixed seeds.
"""

from __future__ import annotations

import ast
import random
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path

from scipy.stats import chi2_contingency

import natural_reference
from colour_collector.game import sample_comparison
from colour_collector.game.config import BonusKind, load_config
from colour_collector.game.generator import generate
from colour_collector.game.play_statistics import measure
from colour_collector.game.prize_table import load_tiers, tier_by_name
from colour_collector.game.record import (
    WIN,
    WIN_X2,
    BonusPrize,
    BonusRound,
    Item,
    MainSpin,
    PlayRecord,
    PrizeSpin,
)
from colour_collector.game.replay import replay
from natural_reference import NaturalReference

CFG = load_config()
SIGNIFICANCE = 0.001
"""Each test's threshold (for the chain's tier: its smallest p-value times their number); with the
17 tests below the family-wise error stays under 1.7%."""
MAIN_PLAYS = 12000
"""Reference plays (any outcome) for the Main Game and Bonus Game statistics; about 1,800 of them
play a Bonus Game."""
PRIZE_GAMES = 1500
"""Reference Prize Games paying a Prize-Game-only tier's amount."""
RARE_PLAYS = 40
"""Generated plays of the chain's tier compared (a chain takes about 0.25 s a play)."""
SEED = 2027

PrizeGame = tuple[tuple[Item, ...], Sequence[PrizeSpin]]


def g_test(first: Counter[Hashable], second: Counter[Hashable]) -> float:
    """p-value of a G-test that two samples of categories come from one distribution; categories
    expected fewer than 5 times in either sample are merged, smallest first."""
    columns = sorted(set(first) | set(second), key=lambda c: (first[c] + second[c], str(c)))
    n1, n2 = sum(first.values()), sum(second.values())
    smaller = min(n1, n2) / (n1 + n2)
    merged: list[list[int]] = []
    pool = [0, 0]
    for category in columns:
        pool = [pool[0] + first[category], pool[1] + second[category]]
        if sum(pool) * smaller >= 5:
            merged.append(pool)
            pool = [0, 0]
    if sum(pool) and merged:
        merged[0] = [merged[0][0] + pool[0], merged[0][1] + pool[1]]
    if len(merged) < 2:
        return 1.0
    table = [[m[0] for m in merged], [m[1] for m in merged]]
    return float(chi2_contingency(table, correction=False, lambda_="log-likelihood").pvalue)


@cache
def main_samples() -> tuple[tuple[PlayRecord, ...], tuple[PlayRecord, ...]]:
    """Generated plays, and the reference plays of the same tiers, one for one."""
    reference = NaturalReference(CFG)
    rng = random.Random(SEED)
    natural = [reference.play(rng) for _ in range(MAIN_PLAYS)]
    gen_rng = random.Random(SEED + 1)
    generated = tuple(generate(p.result.tier, gen_rng, CFG) for p in natural)
    return generated, tuple(p.record for p in natural)


@cache
def prize_samples() -> tuple[tuple[PrizeGame, ...], tuple[PrizeGame, ...]]:
    """The Prize Games of generated plays of Prize-Game-only tiers, and reference Prize Games
    paying the same amounts, one for one (the Prize Game does not depend on the Main Game)."""
    only = {t.prize_game: t for t in load_tiers() if t.prize_game and not t.rows}
    reference = NaturalReference(CFG)
    natural = reference.prize_games_paying(set(only), PRIZE_GAMES, random.Random(SEED + 2))
    gen_rng = random.Random(SEED + 3)
    generated = []
    for _, _, pays in natural:
        record = generate(only[pays], gen_rng, CFG)
        assert record.prize_grid is not None
        generated.append((record.prize_grid, [s for s in record.steps if isinstance(s, PrizeSpin)]))
    return tuple(generated), tuple((grid, spins) for grid, spins, _ in natural)


def bonus_rounds(record: PlayRecord) -> Iterator[tuple[tuple[BonusPrize, ...], BonusRound]]:
    """Every Bonus Game round of a play, with the panel it was played on."""
    panels: list[tuple[BonusPrize, ...]] = []
    for step in record.steps:
        if isinstance(step, MainSpin):
            panels = list(step.bonus_panels)
        elif isinstance(step, BonusRound):
            yield panels[0], step
            if not step.won:
                panels.pop(0)


def panels_of(record: PlayRecord) -> Iterator[tuple[BonusPrize, ...]]:
    for step in record.steps:
        if isinstance(step, MainSpin):
            yield from step.bonus_panels


def compare(name: str, measure: Iterable[Hashable], other: Iterable[Hashable]) -> float:
    first, second = Counter(measure), Counter(other)
    p = g_test(first, second)
    print(f"{name}: p = {p:.3g}; generated {sorted(first.items(), key=str)}")
    print(f"{' ' * len(name)}  reference {sorted(second.items(), key=str)}")
    return p


# -- the reference itself ---------------------------------------------------------------------


def test_the_reference_shares_no_code_with_the_generator() -> None:
    source = Path(natural_reference.__file__).read_text("utf-8")
    imported = {
        node.module
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module
    } | {
        alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    game = {m.removeprefix("colour_collector.game.") for m in imported if "colour_collector" in m}
    assert game <= {"codec", "config", "errors", "prize_table", "record", "replay", "rules"}, game
    assert not {
        m
        for m in imported
        if "colour_collector" in m and not m.startswith("colour_collector.game.")
    }


def test_reference_plays_are_plays_the_replayer_accepts() -> None:
    reference = NaturalReference(CFG)
    rng = random.Random(SEED + 4)
    outcomes = Counter()
    for _ in range(400):
        played = reference.play(rng)
        result = replay(played.record, CFG)
        assert result.tier == played.result.tier
        assert result.prize == played.result.prize
        outcomes[result.tier is None] += 1
    for grid, spins, pays in reference.prize_games_paying({1000, 5000}, 20, rng):
        assert pays in {1000, 5000}
        assert grid.count(WIN) == grid.count(WIN_X2) == 1
        assert spins and not spins[-1].refill
    # Natural play loses about two plays in three (docs/rules.md: boxes per row).
    assert 0.55 < outcomes[True] / 400 < 0.75


# -- the Bonus Game ---------------------------------------------------------------------------


def test_a_losing_bonus_round_highlights_what_natural_play_highlights() -> None:
    # Which prize the highlight stops on when the round is lost: a near miss a player sees.
    # Natural play highlights a uniform prize of the panel, whatever the result.
    generated, natural = main_samples()

    def lost(records: Sequence[PlayRecord]) -> list[tuple[BonusKind, int]]:
        return [
            (panel[r.prize].kind, r.prize)
            for record in records
            for panel, r in bonus_rounds(record)
            if not r.won
        ]

    gen, ref = lost(generated), lost(natural)
    assert len(ref) > 600
    kind = compare("losing highlight, kind", (k for k, _ in gen), (k for k, _ in ref))
    place = compare("losing highlight, place", (p for _, p in gen), (p for _, p in ref))
    assert kind > SIGNIFICANCE
    assert place > SIGNIFICANCE


def test_bonus_panels_and_winning_highlights_are_ordered_as_in_natural_play() -> None:
    generated, natural = main_samples()

    def omitted(records: Sequence[PlayRecord]) -> list[BonusKind]:
        return [
            next(k for k in BonusKind if k not in {p.kind for p in panel})
            for record in records
            for panel in panels_of(record)
        ]

    def top(records: Sequence[PlayRecord]) -> list[BonusKind]:
        return [panel[0].kind for record in records for panel in panels_of(record)]

    def won_places(records: Sequence[PlayRecord]) -> list[int]:
        return [r.prize for record in records for _, r in bonus_rounds(record) if r.won]

    p_omitted = compare("kind left off the panel", omitted(generated), omitted(natural))
    p_top = compare("kind at the panel's top", top(generated), top(natural))
    p_won = compare("won highlight, place", won_places(generated), won_places(natural))
    assert min(p_omitted, p_top, p_won) > SIGNIFICANCE


# -- the Main Game grid -----------------------------------------------------------------------


def test_the_first_screen_is_coloured_as_in_natural_play() -> None:
    # How many squares share the first screen's commonest colour (a layout that coloured the
    # squares it does not collect unevenly would show here).
    generated, natural = main_samples()

    def commonest(records: Sequence[PlayRecord]) -> list[int]:
        first = [next(s for s in r.steps if isinstance(s, MainSpin)) for r in records]
        return [max(Counter(s.colours).values()) for s in first]

    p = compare("first screen's commonest colour count", commonest(generated), commonest(natural))
    assert p > SIGNIFICANCE


def test_collected_squares_lie_where_natural_play_collects_them() -> None:
    generated, natural = main_samples()

    def squares(records: Sequence[PlayRecord]) -> list[int]:
        return [
            square
            for record in records
            for step in record.steps
            if isinstance(step, MainSpin)
            for square, colour in enumerate(step.colours)
            if colour == step.wheel
        ]

    p = compare("collected Main Game squares", squares(generated), squares(natural))
    assert p > SIGNIFICANCE


def test_won_symbols_go_to_the_rows_natural_play_puts_them_in() -> None:
    # Where the Symbols of a won SYMBOLS or MORE SYMBOLS prize land on the Prize Table.
    generated, natural = main_samples()

    def rows(records: Sequence[PlayRecord]) -> list[int]:
        return [row for record in records for _, r in bonus_rounds(record) for row in r.rows]

    p = compare("rows of won Symbols", rows(generated), rows(natural))
    assert p > SIGNIFICANCE


def test_items_lie_where_natural_play_puts_them() -> None:
    # Which item each collected square held, by grid row, and what the screen holds when the
    # Main Game ends (items nobody collects: the generator draws them apart from the rest).
    generated, natural = main_samples()
    columns = CFG.grid_columns

    def collected(records: Sequence[PlayRecord]) -> list[tuple[int, int]]:
        found = []
        for record in records:
            grid = list(record.grid)
            for step in record.steps:
                if not isinstance(step, MainSpin):
                    continue
                refill = iter(step.refill)
                for square, colour in enumerate(step.colours):
                    if colour == step.wheel:
                        found.append((grid[square], square // columns))
                        grid[square] = next(refill)
        return found

    def last_screen(records: Sequence[PlayRecord]) -> list[int]:
        found = []
        for record in records:
            grid = list(record.grid)
            for step in record.steps:
                if isinstance(step, MainSpin):
                    refill = iter(step.refill)
                    for square, colour in enumerate(step.colours):
                        if colour == step.wheel:
                            grid[square] = next(refill)
            found.extend(grid)
        return found

    p_collected = compare("collected item and row", collected(generated), collected(natural))
    p_last = compare("last screen's items", last_screen(generated), last_screen(natural))
    assert min(p_collected, p_last) > SIGNIFICANCE


# -- the Prize Game grid ----------------------------------------------------------------------


def test_win_and_win_x2_lie_where_natural_play_puts_them() -> None:
    generated, natural = prize_samples()
    columns = CFG.prize_grid_columns
    p_values = []
    for symbol, label in ((WIN, "WIN"), (WIN_X2, "WIN x2")):
        gen = [grid.index(symbol) for grid, _ in generated]
        ref = [grid.index(symbol) for grid, _ in natural]
        p_values.append(
            compare(f"{label} row", (s // columns for s in gen), (s // columns for s in ref))
        )
        p_values.append(
            compare(f"{label} column", (s % columns for s in gen), (s % columns for s in ref))
        )
    assert min(p_values) > SIGNIFICANCE


def test_prize_game_squares_are_collected_where_natural_play_collects_them() -> None:
    generated, natural = prize_samples()

    def squares(games: Sequence[PrizeGame]) -> list[int]:
        return [
            square
            for _, spins in games
            for spin in spins
            for square, colour in enumerate(spin.colours)
            if colour == spin.wheel
        ]

    def first_screen(games: Sequence[PrizeGame]) -> list[int]:
        return [item for grid, _ in games for item in grid if item > 0]

    p = compare("collected Prize Game squares", squares(generated), squares(natural))
    p_first = compare(
        "first Prize Game screen's amounts", first_screen(generated), first_screen(natural)
    )
    assert min(p, p_first) > SIGNIFICANCE


def test_a_chain_tier_looks_like_the_references_natural_plays_of_it() -> None:
    # The tiers too rare to draw exactly are drawn by a chain (an approximation); natural plays of
    # them were collected offline from the reference (``natural_reference.COLLECTED``). £45 (£8 +
    # £12 + £25) is the one the chain got most wrong: with 56 proposals 29% of its plays won a
    # Symbols prize against 87% of natural ones. Every statistic of the battery is compared.
    name = "£45 (£8 + £12 + £25)"
    natural = natural_reference.collected()[name]
    rng = random.Random(SEED + 5)
    generated = [generate(tier_by_name(name), rng) for _ in range(RARE_PLAYS)]
    comparisons = sample_comparison.compare(
        name, [measure(r) for r in generated], [(measure(r), 1.0) for r in natural]
    )
    assert len(natural) >= 100
    assert "wins awarding Symbols" in {c.statistic for c in comparisons}
    worst = min(comparisons, key=lambda c: c.pvalue)
    assert worst.pvalue * len(comparisons) > SIGNIFICANCE, worst
