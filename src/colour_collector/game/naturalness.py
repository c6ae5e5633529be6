"""How natural generated plays look: measures of a Main Game and a two-sample comparison.

"Natural" means: distributed like a plain forward simulation of the game (``natural.simulate_main``)
conditioned on the same outcome. The measures are read from a play's steps through the rules engine
(``rules.Game``), never from the generator, so generated and simulated plays are measured alike:

- ``row_<shape>``: boxes filled at the end in that Prize Table row, for rows left unfinished;
- ``bonus_games``: Bonus Games played;
- ``spins``: Main Game spins played (6 plus extra spins won);
- ``prize_game_box``: Prize Game symbols in the box at the end (for plays without a Prize Game).

``compare`` runs a two-sample chi-square test of homogeneity on each measure (categories with a
small expected count are merged with their neighbour). The statistic is computed here; the p-value
needs scipy, imported only when called (the core imports without it).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from colour_collector.game.config import GameConfig, load_config
from colour_collector.game.natural import simulate_main
from colour_collector.game.record import Item, MainSpin, PrizeSpin, Step
from colour_collector.game.rules import Game
from colour_collector.game.simulation import chi_square_pvalue

Measures = dict[str, int]
"""One play's value of each measure it has (a finished row has no row measure)."""

MIN_EXPECTED = 5
"""Smallest expected count per cell of a chi-square table; rarer categories are merged."""


def main_measures(
    grid: tuple[Item, ...], steps: Sequence[Step], config: GameConfig | None = None
) -> Measures:
    """The measures of a Main Game, applying its steps through the rules (Prize Game spins end)."""
    cfg = config or load_config()
    game = _main_game(grid, steps, cfg)
    spins = sum(1 for step in steps if isinstance(step, MainSpin))
    measures: Measures = {
        "bonus_games": game.bonus_games_played,
        "spins": spins,
        "prize_game_box": game.prize_game_symbols,
    }
    for r, row in enumerate(cfg.prize_table):
        if game.filled[r] < row.boxes:
            measures[f"row_{row.shape}"] = game.filled[r]
    return measures


def outcome_key(
    grid: tuple[Item, ...], steps: Sequence[Step], config: GameConfig | None = None
) -> tuple[tuple[int, ...], int, bool]:
    """What a Main Game came to: (completed rows, their level or 0, Prize Game unlocked)."""
    cfg = config or load_config()
    game = _main_game(grid, steps, cfg)
    rows = game.completed_rows
    return rows, game.level if rows else 0, game.prize_game_unlocked


def natural_plays(
    count: int,
    rng: random.Random,
    keep: Callable[[tuple[tuple[int, ...], int, bool]], bool],
    config: GameConfig | None = None,
    limit: int = 10_000_000,
) -> list[Measures]:
    """Measures of ``count`` natural Main Games whose outcome ``keep`` accepts."""
    cfg = config or load_config()
    found: list[Measures] = []
    for _ in range(limit):
        if len(found) >= count:
            break
        main = simulate_main(cfg, rng)
        if keep(outcome_key(main.grid, main.steps, cfg)):
            found.append(main_measures(main.grid, main.steps, cfg))
    return found


def no_win(outcome: tuple[tuple[int, ...], int, bool]) -> bool:
    """A Main Game that wins nothing: no row, no Prize Game."""
    rows, _, unlocked = outcome
    return not rows and not unlocked


def five_pounds(outcome: tuple[tuple[int, ...], int, bool]) -> bool:
    """A Main Game that wins exactly £5: the circle row at level 0, no Prize Game."""
    rows, level, unlocked = outcome
    return rows == (0,) and level == 0 and not unlocked


@dataclass(frozen=True, slots=True)
class Comparison:
    """One measure compared between two samples."""

    measure: str
    """The measure's name."""
    mean_a: float
    """Mean in sample A (plays that have the measure)."""
    mean_b: float
    """Mean in sample B."""
    n_a: int
    """Plays of sample A that have the measure."""
    n_b: int
    """Plays of sample B that have the measure."""
    statistic: float
    """Chi-square statistic of the 2 x k table."""
    dof: int
    """Its degrees of freedom."""
    pvalue: float | None
    """Its p-value; None when there is nothing to test or scipy is missing."""


def merged_table(a: Counter[int], b: Counter[int]) -> list[tuple[int, int]]:
    """Per category (ascending), counts in A and B, neighbours merged so each expected is >= 5."""
    total_a, total_b = sum(a.values()), sum(b.values())
    total = total_a + total_b
    cells: list[tuple[int, int]] = []
    pending = (0, 0)
    for value in sorted(set(a) | set(b)):
        pending = (pending[0] + a[value], pending[1] + b[value])
        column = pending[0] + pending[1]
        if min(total_a, total_b) * column >= MIN_EXPECTED * total:
            cells.append(pending)
            pending = (0, 0)
    if pending != (0, 0):
        if cells:
            last = cells.pop()
            cells.append((last[0] + pending[0], last[1] + pending[1]))
        else:
            cells.append(pending)
    return cells


def chi_square_two_sample(cells: Sequence[tuple[int, int]]) -> tuple[float, int]:
    """The chi-square statistic of a 2 x k table of counts, and its degrees of freedom."""
    total_a = sum(c[0] for c in cells)
    total_b = sum(c[1] for c in cells)
    total = total_a + total_b
    if len(cells) < 2 or not total_a or not total_b:
        return 0.0, 0
    statistic = 0.0
    for count_a, count_b in cells:
        column = count_a + count_b
        for count, row_total in ((count_a, total_a), (count_b, total_b)):
            expected = row_total * column / total
            statistic += (count - expected) ** 2 / expected
    return statistic, len(cells) - 1


def compare(sample_a: Sequence[Measures], sample_b: Sequence[Measures]) -> list[Comparison]:
    """Compare every measure the two samples have, one chi-square test each."""
    names = sorted({name for m in (*sample_a, *sample_b) for name in m})
    found = []
    for name in names:
        a = Counter(m[name] for m in sample_a if name in m)
        b = Counter(m[name] for m in sample_b if name in m)
        statistic, dof = chi_square_two_sample(merged_table(a, b))
        found.append(
            Comparison(
                measure=name,
                mean_a=_mean(a),
                mean_b=_mean(b),
                n_a=sum(a.values()),
                n_b=sum(b.values()),
                statistic=statistic,
                dof=dof,
                pvalue=chi_square_pvalue(statistic, dof),
            )
        )
    return found


def _main_game(grid: tuple[Item, ...], steps: Sequence[Step], config: GameConfig) -> Game:
    """The rules state at the end of the Main Game (a Prize Game's spins are not applied)."""
    game = Game(grid, None, config)
    for step in steps:
        if isinstance(step, PrizeSpin):
            break
        game.apply(step)
    return game


def _mean(counts: Counter[int]) -> float:
    total = sum(counts.values())
    return sum(v * n for v, n in counts.items()) / total if total else float("nan")
