"""Statistics of what the player sees, read from a play record through the rules engine.

Every statistic is measured the same way on generated plays and on natural plays: by applying the
record's steps one at a time with ``rules.Game`` and looking at the screen before each step (the
grid, its colours, the wheel), never at how the play was made. Two shapes:

- a *ratio* (``Ratio``): per play a numerator and a denominator, e.g. squares collected and spins
  played; a sample's value is the sum of numerators over the sum of denominators (the mean per
  spin, per Bonus Game, per Prize Game...). A play whose denominator is 0 (no Bonus Game, say)
  does not count for that statistic;
- a *category* (``Category``): per play one category, e.g. the number of Bonus Games, 0, 1 or 2+;
  a sample's value is its distribution over the categories.

``docs/generator.md`` lists them with what each would show.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from enum import StrEnum, unique

from colour_collector.game.config import SYMBOL_KINDS, BonusKind, GameConfig, load_config
from colour_collector.game.record import WIN, WIN_X2, BonusRound, MainSpin, PlayRecord
from colour_collector.game.rules import Game

BIG_AMOUNT = 10_000
"""A Prize Game amount of £100 or more counts as big on the first Prize Game screen."""


@unique
class Part(StrEnum):
    """The part of a play a statistic looks at."""

    MAIN = "Main Game"
    """Spins of the Main Game."""
    PLAY = "whole play"
    """The play as a whole."""
    BONUS = "Bonus Game"
    """Bonus Games."""
    PRIZE = "Prize Game"
    """The Prize Game."""


@dataclass(frozen=True, slots=True)
class Ratio:
    """A statistic that is a sum over plays divided by another."""

    name: str
    """Its name in reports."""
    part: Part
    """What it looks at."""
    per: str
    """What the denominator counts (spins, plays, Bonus Games...)."""


@dataclass(frozen=True, slots=True)
class Category:
    """A statistic that puts each play in one category."""

    name: str
    """Its name in reports."""
    part: Part
    """What it looks at."""
    labels: tuple[str, ...]
    """The categories, in order."""


_M, _P, _B, _G = Part.MAIN, Part.PLAY, Part.BONUS, Part.PRIZE

RATIOS: tuple[Ratio, ...] = (
    Ratio("squares collected a spin", _M, "spins"),
    Ratio("spins collecting nothing", _M, "spins"),
    Ratio("spins collecting six or more", _M, "spins"),
    Ratio("collected squares that were refills", _M, "collected squares"),
    Ratio("collected items that are Bonus symbols", _M, "collected squares"),
    Ratio("collected items that are Prize Game symbols", _M, "collected squares"),
    Ratio("collected shapes lost to a full row", _M, "collected shapes"),
    Ratio("collected shapes of rows the play completes", _M, "collected shapes"),
    Ratio("wheel on the grid's commonest colour", _M, "spins"),
    Ratio("wheel on the grid's rarest colour", _M, "spins"),
    Ratio("wheel on the colour holding most of the commonest item", _M, "spins"),
    Ratio("wheel on orange", _M, "spins"),
    Ratio("refills that are Bonus symbols", _M, "refills"),
    Ratio("refills that are shapes of rows the play completes", _M, "refills"),
    Ratio("spins played", _P, "plays"),
    Ratio("plays with extra spins", _P, "plays"),
    Ratio("Bonus symbols on the first screen", _P, "plays"),
    Ratio("Prize Game symbols on the first screen", _P, "plays"),
    Ratio("shapes of completed rows on the first screen", _P, "plays"),
    Ratio("squares collected in the first three spins", _P, "collected squares"),
    Ratio("Bonus Games a play", _P, "plays"),
    Ratio("when the first Bonus Game comes (share of the spins)", _P, "plays with one"),
    Ratio("when rows complete (share of the spins)", _P, "completed rows"),
    Ratio("rows completed on the last spin", _P, "completed rows"),
    Ratio("boxes filled in unfinished rows", _P, "plays"),
    Ratio("Prize Game box at the end (no Prize Game)", _P, "plays without one"),
    Ratio("Bonus Game box at the end", _P, "plays"),
    Ratio("rounds a Bonus Game", _B, "Bonus Games"),
    Ratio("rounds won", _B, "rounds"),
    Ratio("wins awarding EXTRA SPINS", _B, "won rounds"),
    Ratio("wins awarding a booster", _B, "won rounds"),
    Ratio("wins awarding Symbols", _B, "won rounds"),
    Ratio("wins awarding Prize Game symbols or UNLOCK", _B, "won rounds"),
    Ratio("highlighted prize's place on the panel", _B, "rounds"),
    Ratio("panels without one booster kind", _B, "Bonus Games"),
    Ratio("Prize Game spins", _G, "Prize Games"),
    Ratio("Prize Game spins collecting nothing before the last", _G, "spins before the last"),
    Ratio("squares collected a Prize Game spin", _G, "Prize Game spins"),
    Ratio("collected Prize Game squares that were refills", _G, "collected amounts"),
    Ratio("amounts collected a Prize Game", _G, "Prize Games"),
    Ratio("Prize Games ending on WIN x2", _G, "Prize Games"),
    Ratio("last spins collecting both WIN and WIN x2", _G, "Prize Games"),
    Ratio("big amounts on the first Prize Game screen", _G, "Prize Games"),
    Ratio("Prize Game wheel on the grid's commonest colour", _G, "Prize Game spins"),
)
"""Every ratio statistic."""

CATEGORIES: tuple[Category, ...] = (
    Category("Bonus Games", _P, ("0", "1", "2+")),
    Category("spins a play", _P, ("6", "7", "8", "9+")),
    Category("squares collected on the first spin", _M, ("0", "1", "2", "3", "4", "5", "6+")),
    Category("rounds of the first Bonus Game", _B, ("1", "2", "3", "4+")),
    Category("Prize Game spins (categories)", _G, ("1", "2", "3", "4+")),
)
"""Every category statistic."""


@dataclass
class Measured:
    """One play's statistics."""

    ratios: dict[str, tuple[float, float]] = field(default_factory=dict)
    """For each ratio: (numerator, denominator)."""
    categories: dict[str, int] = field(default_factory=dict)
    """For each category statistic that applies: the index of the play's category."""


def _majority(colours: tuple[int, ...]) -> tuple[int, int]:
    """The commonest and the rarest colour on a screen (ties: the first in wheel order)."""
    counts = Counter(colours)
    commonest = max(range(6), key=lambda c: (counts[c], -c))
    rarest = min(range(6), key=lambda c: (counts[c], c))
    return commonest, rarest


def _bucket(value: int, top: int, first: int = 0) -> int:
    return min(value - first, top)


def measure(record: PlayRecord, config: GameConfig | None = None) -> Measured:
    """Every statistic of ``record``, by applying its steps through the rules."""
    cfg = config or load_config()
    game = Game(record.grid, record.prize_grid, cfg)
    shapes = cfg.shapes
    boxes = [row.boxes for row in cfg.prize_table]
    n: defaultdict[str, float] = defaultdict(float)
    d: defaultdict[str, float] = defaultdict(float)
    refilled = [False] * cfg.grid_size
    collected_shape_rows: list[int] = []
    refill_items: list[int] = []
    completed_at: dict[int, int] = {}
    spin = 0
    first_game_spin: int | None = None
    first_game_rounds: int | None = None
    games = 0
    rounds_this_game = 0
    first_spin_squares = 0
    prize_refilled = [False] * cfg.prize_grid_size
    prize_spins = 0
    for step in record.steps:
        if isinstance(step, MainSpin):
            spin += 1
            grid = list(game.grid)
            squares = [s for s, c in enumerate(step.colours) if c == step.wheel]
            k = len(squares)
            if spin == 1:
                first_spin_squares = k
            n["squares collected a spin"] += k
            n["spins collecting nothing"] += k == 0
            n["spins collecting six or more"] += k >= 6
            commonest, rarest = _majority(step.colours)
            n["wheel on the grid's commonest colour"] += step.wheel == commonest
            n["wheel on the grid's rarest colour"] += step.wheel == rarest
            n["wheel on orange"] += step.wheel == 0
            items = Counter(item for item in grid if item != cfg.bonus_item)
            target = max(items, key=lambda i: (items[i], -i)) if items else -1
            held = Counter(c for s, c in enumerate(step.colours) if grid[s] == target)
            likely = max(held, key=lambda c: (held[c], -c)) if held else -1
            n["wheel on the colour holding most of the commonest item"] += step.wheel == likely
            for s in squares:
                item = grid[s]
                n["collected squares that were refills"] += refilled[s]
                n["collected items that are Bonus symbols"] += item == cfg.bonus_item
                n["collected items that are Prize Game symbols"] += item == cfg.prize_game_item
                if item < shapes:
                    collected_shape_rows.append(item)
                    n["collected shapes lost to a full row"] += game.filled[item] >= boxes[item]
                refilled[s] = True
            if spin <= 3:
                n["squares collected in the first three spins"] += k
            d["collected squares"] += k
            refill_items.extend(step.refill)
            if step.bonus_panels and first_game_spin is None:
                first_game_spin = spin
            for panel in step.bonus_panels:
                kinds = {p.kind for p in panel}
                n["panels without one booster kind"] += (
                    not {
                        BonusKind.PRIZE_BOOSTER,
                        BonusKind.SUPER_PRIZE_BOOSTER,
                        BonusKind.MEGA_PRIZE_BOOSTER,
                    }
                    <= kinds
                )
        elif isinstance(step, BonusRound):
            prize = game.panel[step.prize]
            n["rounds a Bonus Game"] += 1
            n["highlighted prize's place on the panel"] += step.prize
            d["rounds"] += 1
            rounds_this_game += 1
            if step.won:
                n["rounds won"] += 1
                d["won rounds"] += 1
                kind = prize.kind
                n["wins awarding EXTRA SPINS"] += kind is BonusKind.EXTRA_SPINS
                n["wins awarding a booster"] += cfg.bonus_prizes[kind].boost > 0
                n["wins awarding Symbols"] += kind in SYMBOL_KINDS
                n["wins awarding Prize Game symbols or UNLOCK"] += kind in (
                    BonusKind.PRIZE_GAME_SYMBOLS,
                    BonusKind.UNLOCK_PRIZE_GAME,
                )
            else:
                games += 1
                if first_game_rounds is None:
                    first_game_rounds = rounds_this_game
                rounds_this_game = 0
        else:
            prize_grid = list(game.prize_grid)
            squares = [s for s, c in enumerate(step.colours) if c == step.wheel]
            amounts = [s for s in squares if prize_grid[s] not in (WIN, WIN_X2)]
            if prize_spins == 0:
                n["big amounts on the first Prize Game screen"] += sum(
                    1 for item in prize_grid if item not in (WIN, WIN_X2) and item >= BIG_AMOUNT
                )
            prize_spins += 1
            last = len(amounts) < len(squares)
            n["squares collected a Prize Game spin"] += len(amounts)
            n["amounts collected a Prize Game"] += len(amounts)
            d["collected amounts"] += len(amounts)
            n["collected Prize Game squares that were refills"] += sum(
                prize_refilled[s] for s in amounts
            )
            commonest, _ = _majority(step.colours)
            n["Prize Game wheel on the grid's commonest colour"] += step.wheel == commonest
            if not last:
                n["Prize Game spins collecting nothing before the last"] += not amounts
                d["spins before the last"] += 1
                for s in amounts:
                    prize_refilled[s] = True
            else:
                hit = {prize_grid[s] for s in squares}
                n["Prize Games ending on WIN x2"] += WIN_X2 in hit
                n["last spins collecting both WIN and WIN x2"] += {WIN, WIN_X2} <= hit
        before = [f >= b for f, b in zip(game.filled, boxes, strict=True)]
        game.apply(step)
        for row, (was, b) in enumerate(zip(before, boxes, strict=True)):
            if not was and game.filled[row] >= b:
                completed_at[row] = spin
    game.finish()
    completed = set(completed_at)
    spins = spin
    n["collected shapes of rows the play completes"] = sum(
        r in completed for r in collected_shape_rows
    )
    d["collected shapes"] = len(collected_shape_rows)
    n["refills that are Bonus symbols"] = refill_items.count(cfg.bonus_item)
    n["refills that are shapes of rows the play completes"] = sum(
        r in completed for r in refill_items
    )
    d["refills"] = len(refill_items)
    n["spins played"] = spins
    n["plays with extra spins"] = spins > cfg.starting_spins
    n["Bonus symbols on the first screen"] = record.grid.count(cfg.bonus_item)
    n["Prize Game symbols on the first screen"] = record.grid.count(cfg.prize_game_item)
    n["shapes of completed rows on the first screen"] = sum(i in completed for i in record.grid)
    n["Bonus Games a play"] = games
    if first_game_spin is not None:
        n["when the first Bonus Game comes (share of the spins)"] = first_game_spin / spins
        d["plays with one"] = 1
    for at in completed_at.values():
        n["when rows complete (share of the spins)"] += at / spins
        n["rows completed on the last spin"] += at == spins
        d["completed rows"] += 1
    n["boxes filled in unfinished rows"] = sum(
        f for f, b in zip(game.filled, boxes, strict=True) if f < b
    )
    if not game.prize_game_unlocked:
        n["Prize Game box at the end (no Prize Game)"] = game.prize_game_symbols
        d["plays without one"] = 1
    n["Bonus Game box at the end"] = game.bonus_symbols
    d["plays"] = 1
    d["spins"] = spins
    d["Bonus Games"] = games
    if prize_spins:
        n["Prize Game spins"] = prize_spins
        d["Prize Games"] = 1
        d["Prize Game spins"] = prize_spins
    measured = Measured()
    for ratio in RATIOS:
        measured.ratios[ratio.name] = (float(n[ratio.name]), float(d[ratio.per]))
    cats = measured.categories
    cats["Bonus Games"] = _bucket(games, 2)
    cats["spins a play"] = _bucket(spins, 3, cfg.starting_spins)
    cats["squares collected on the first spin"] = _bucket(first_spin_squares, 6)
    if first_game_rounds is not None:
        cats["rounds of the first Bonus Game"] = _bucket(first_game_rounds, 3, 1)
    if prize_spins:
        cats["Prize Game spins (categories)"] = _bucket(prize_spins, 3, 1)
    return measured
