"""An independent reference for natural play: the game played square by square, as on the screen.

The naturalness battery's natural plays (``colour_collector.game.naturalness``) are built with the
generator's own modules (``natural``, ``layout``, ``booster_level``), so a bias in any of them is
on both sides of its comparisons. This simulator shares none of that code: it plays a whole game
forward the way the Game Procedures describe it, one step at a time, with the rules state machine
(``colour_collector.game.rules.Game``) keeping the state and refusing any step that breaks a rule.
It reads only the rules (``rules``, ``replay``), the record format (``record``, ``codec``), the
game's numbers (``config``: including the natural item and Prize Game amount weights, which define
natural play) and the prize table. It never imports ``generator``, ``natural``, ``layout``,
``booster_level``, ``main_game_sampler``, ``prize_game``, ``naturalness`` or ``sampling``.

Natural play, as the procedures describe it (docs/rules.md for the choices they leave open):

- every square of the Main Game grid holds an item drawn from the item weights; before each spin
  every square is given one of the six colours uniformly and the wheel stops on a uniform colour;
  every square of the wheel's colour is collected and refilled, in square order, from the weights;
- a Bonus Game panel shows seven of the eight kinds of Bonus Prize in a uniformly random order
  (an ordered sample of seven of the eight), each carrying a number uniform in its range; in each
  round the player picks ODD or EVEN, the reel shows a uniform number from 1 to 12 and the
  highlight stops on a uniform prize; a won Symbols prize puts its Symbols into a uniformly chosen
  set of the unfilled boxes;
- the Prize Game grid is WIN, WIN x2 and fourteen amounts drawn from the amount weights, shuffled
  into the sixteen squares; its spins colour, collect and refill like the Main Game's until a spin
  collects WIN or WIN x2. A play whose Prize Game would end on an empty pot breaks the "guaranteed
  win" rule and is not a play: the whole play is drawn again (natural play conditioned on being a
  play).
"""

from __future__ import annotations

import gzip
import itertools
import json
import random
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from colour_collector.game.codec import from_json
from colour_collector.game.config import COUNTED_KINDS, SYMBOL_KINDS, BonusKind, GameConfig
from colour_collector.game.config import load_config as _load_config
from colour_collector.game.errors import RuleError
from colour_collector.game.prize_table import Tier
from colour_collector.game.record import (
    WIN,
    WIN_X2,
    BonusPrize,
    BonusRound,
    Item,
    MainSpin,
    Parity,
    PlayRecord,
    PrizeSpin,
    Step,
)
from colour_collector.game.replay import Result, result_of
from colour_collector.game.rules import Game, Phase

COLLECTED = Path(__file__).resolve().parent / "reference" / "rare_tiers_natural.jsonl.gz"
"""Natural plays of the tiers the generator draws by its chain, collected from this reference
offline (``benchmarks/rare_tiers.py collect``: about one natural play in 15,000 is of one of
them): one ``{"tier": name, "record": play record}`` a line."""
COLOURS = 6
"""Segments on the Colour Wheel (and colours a square can take)."""
COLOUR_CODES = range(COLOURS)
KINDS = tuple(BonusKind)
"""The eight kinds of Bonus Prize."""


@dataclass(frozen=True, slots=True)
class ReferencePlay:
    """One natural play: its record and what the rules say it is worth."""

    record: PlayRecord
    result: Result


class _Drawer:
    """Draws items from weights by cumulative weights (``random.choices``)."""

    def __init__(self, values: tuple[int, ...], weights: tuple[int, ...]) -> None:
        self.values = values
        self.cum = list(itertools.accumulate(weights))

    def draw(self, rng: random.Random, count: int) -> list[int]:
        return rng.choices(self.values, cum_weights=self.cum, k=count)


class NaturalReference:
    """Plays natural games forward, square by square, under the rules engine."""

    def __init__(self, config: GameConfig | None = None) -> None:
        cfg = config or _load_config()
        self.config = cfg
        self.items = _Drawer(tuple(range(len(cfg.item_weights))), cfg.item_weights)
        self.amounts = _Drawer(cfg.prize_amounts, cfg.prize_amount_weights)

    # -- one play ---------------------------------------------------------------------------

    def play(self, rng: random.Random) -> ReferencePlay:
        """One natural play that is a play of this game: drawn again, whole, when its Prize Game
        would end on an empty pot or it pays an amount that is no prize in the table (natural
        play conditioned on an outcome never holds one)."""
        while True:
            played = self._try_play(rng)
            if played is not None:
                return played

    def _try_play(self, rng: random.Random) -> ReferencePlay | None:
        cfg = self.config
        grid = tuple(self.items.draw(rng, cfg.grid_size))
        # The Prize Game grid is drawn up front (it depends on nothing in the Main Game); the
        # record keeps it only if the Main Game unlocks the Prize Game.
        prize_grid_list: list[Item] = [
            WIN,
            WIN_X2,
            *self.amounts.draw(rng, cfg.prize_grid_size - 2),
        ]
        rng.shuffle(prize_grid_list)
        prize_grid = tuple(prize_grid_list)
        game = Game(grid, prize_grid, cfg)
        steps: list[Step] = []
        spins = 0
        while game.phase is not Phase.OVER:
            step: Step
            if game.phase is Phase.MAIN:
                step = self._main_spin(game, rng)
                spins += 1
            elif game.phase is Phase.BONUS:
                step = self._bonus_round(game, rng)
            else:
                step = self._prize_spin(game, rng)
                if step is None:
                    return None
            game.apply(step)
            steps.append(step)
        record = PlayRecord(grid, tuple(steps), prize_grid if game.prize_game_unlocked else None)
        try:
            result = result_of(game, spins)
        except RuleError:  # prize-not-in-table: natural play can pay what no tier is
            return None
        return ReferencePlay(record, result)

    def _colours(self, size: int, rng: random.Random) -> tuple[tuple[int, ...], int]:
        colours = tuple(rng.choices(COLOUR_CODES, k=size))
        return colours, rng.randrange(COLOURS)

    def _main_spin(self, game: Game, rng: random.Random) -> MainSpin:
        cfg = self.config
        colours, wheel = self._colours(cfg.grid_size, rng)
        collected = [s for s, c in enumerate(colours) if c == wheel]
        refill = tuple(self.items.draw(rng, len(collected)))
        bonus = game.bonus_symbols + sum(1 for s in collected if game.grid[s] == cfg.bonus_item)
        panels = tuple(self._panel(rng) for _ in range(bonus // cfg.bonus_box))
        return MainSpin(colours, wheel, refill, panels)

    def _panel(self, rng: random.Random) -> tuple[BonusPrize, ...]:
        cfg = self.config
        prizes = []
        for kind in rng.sample(KINDS, cfg.panel_size):
            spec = cfg.bonus_prizes[kind]
            value = rng.randint(spec.minimum, spec.maximum) if kind in COUNTED_KINDS else 0
            prizes.append(BonusPrize(kind, value))
        return tuple(prizes)

    def _bonus_round(self, game: Game, rng: random.Random) -> BonusRound:
        cfg = self.config
        pick = rng.choice((Parity.ODD, Parity.EVEN))
        number = rng.randint(cfg.reel_min, cfg.reel_max)
        won = pick.matches(number)
        highlight = rng.randrange(len(game.panel))
        prize = game.panel[highlight]
        rows: tuple[int, ...] = ()
        if won and prize.kind in SYMBOL_KINDS:
            free = [
                row
                for row, (spec, filled) in enumerate(
                    zip(cfg.prize_table, game.promised, strict=True)
                )
                for _ in range(spec.boxes - filled)
            ]
            rows = tuple(rng.sample(free, min(prize.value, len(free))))
        return BonusRound(highlight, won, pick, number, rows)

    def _prize_spin(self, game: Game, rng: random.Random) -> PrizeSpin | None:
        cfg = self.config
        colours, wheel = self._colours(cfg.prize_grid_size, rng)
        collected = [game.prize_grid[s] for s, c in enumerate(colours) if c == wheel]
        if WIN in collected or WIN_X2 in collected:
            if game.pot + sum(a for a in collected if a > 0) == 0:
                return None  # an empty pot at the end: not a play of this game
            return PrizeSpin(colours, wheel, ())
        return PrizeSpin(colours, wheel, tuple(self.amounts.draw(rng, len(collected))))

    # -- many plays -------------------------------------------------------------------------

    def plays(self, rng: random.Random) -> Iterator[ReferencePlay]:
        """Natural plays, for ever."""
        while True:
            yield self.play(rng)

    def conditioned(
        self,
        wanted: Callable[[Tier | None], bool],
        count: int,
        rng: random.Random,
        limit: int = 10_000_000,
    ) -> list[ReferencePlay]:
        """``count`` natural plays whose tier satisfies ``wanted`` (rejection)."""
        kept: list[ReferencePlay] = []
        for tries, played in enumerate(self.plays(rng)):
            if tries >= limit:
                raise RuntimeError(f"only {len(kept)} of {count} plays in {limit} tries")
            if wanted(played.result.tier):
                kept.append(played)
                if len(kept) == count:
                    return kept
        return kept  # pragma: no cover - plays() never ends

    # -- the Prize Game on its own ----------------------------------------------------------

    def prize_game(self, rng: random.Random) -> tuple[tuple[Item, ...], list[PrizeSpin], int]:
        """A natural Prize Game on its own (the Prize Game does not depend on the Main Game that
        unlocked it): its grid, its spins and what it pays; drawn again on an empty pot."""
        cfg = self.config
        while True:
            grid_list: list[Item] = [WIN, WIN_X2, *self.amounts.draw(rng, cfg.prize_grid_size - 2)]
            rng.shuffle(grid_list)
            prize_grid = tuple(grid_list)
            game = Game((0,) * cfg.grid_size, prize_grid, cfg)
            # Straight to the Prize Game, as after a Main Game that unlocked it.
            game.spins_left = 0
            game.prize_game_unlocked = True
            game.phase = Phase.PRIZE
            spins: list[PrizeSpin] = []
            while game.phase is Phase.PRIZE:
                spin = self._prize_spin(game, rng)
                if spin is None:
                    break
                game.apply(spin)
                spins.append(spin)
            else:
                return prize_grid, spins, game.prize_game_result

    def prize_games_paying(
        self, amounts: set[int], count: int, rng: random.Random
    ) -> list[tuple[tuple[Item, ...], list[PrizeSpin], int]]:
        """``count`` natural Prize Games that pay one of ``amounts`` (rejection), with what each
        pays."""
        kept = []
        while len(kept) < count:
            played = self.prize_game(rng)
            if played[2] in amounts:
                kept.append(played)
        return kept


def collected(path: Path = COLLECTED) -> dict[str, list[PlayRecord]]:
    """The natural plays collected in ``path``, by tier name."""
    plays: dict[str, list[PlayRecord]] = defaultdict(list)
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            entry = json.loads(line)
            plays[entry["tier"]].append(from_json(entry["record"]))
    return plays
