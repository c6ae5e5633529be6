"""The plan of a play: which rows complete, at which level, how the Prize Game is reached and what
it pays. The generator turns a plan into a whole play record; the plan itself is never stored.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum, unique
from itertools import combinations

from colour_collector.game.config import BonusKind, GameConfig, Pence
from colour_collector.game.prize_table import Tier

_B = BonusKind
BOOSTER_SETS: dict[int, tuple[tuple[BonusKind, ...], ...]] = {
    0: ((),),
    1: ((_B.PRIZE_BOOSTER,),),
    2: ((_B.SUPER_PRIZE_BOOSTER,), (_B.PRIZE_BOOSTER, _B.PRIZE_BOOSTER)),
    3: (
        (_B.MEGA_PRIZE_BOOSTER,),
        (_B.SUPER_PRIZE_BOOSTER, _B.PRIZE_BOOSTER),
        (_B.PRIZE_BOOSTER, _B.PRIZE_BOOSTER, _B.PRIZE_BOOSTER),
        (_B.MEGA_PRIZE_BOOSTER, _B.PRIZE_BOOSTER),
        (_B.SUPER_PRIZE_BOOSTER, _B.SUPER_PRIZE_BOOSTER),
    ),
}
"""Ways to win the boosters that leave the table at each level (level 3 includes capped sums)."""


@unique
class Route(StrEnum):
    """How a play reaches its Prize Game."""

    NONE = "none"
    """No Prize Game."""
    SYMBOLS = "symbols"
    """Six Prize Game symbols collected from the grid."""
    UNLOCK = "unlock"
    """The UNLOCK PRIZE GAME Bonus Prize."""
    PRIZE_GAME_SYMBOLS = "prize_game_symbols"
    """PRIZE GAME SYMBOLS Bonus Prizes fill the box the grid started."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What a play must come to."""

    rows: frozenset[int]
    """Prize Table rows that complete; no other row may."""
    level: int
    """Prize Table level at the end of the Main Game."""
    boosters: tuple[BonusKind, ...]
    """Booster prizes the play's Bonus Games award, and no others."""
    route: Route
    """How the Prize Game is reached."""
    prize_game: Pence
    """What the Prize Game pays (0 without one)."""
    doubled: bool
    """Whether the Prize Game ends on WIN x2."""
    bonus_games: int
    """Bonus Games in the play."""


_realised: dict[
    tuple[int, tuple[Pence, ...]], tuple[GameConfig, tuple[tuple[int, frozenset[int]], ...]]
] = {}


def realisations(
    config: GameConfig, rows: tuple[Pence, ...]
) -> tuple[tuple[int, frozenset[int]], ...]:
    """Every (level, set of rows) whose amounts are exactly ``rows`` (worked out once a process
    for each configuration and breakdown: every winning play asks)."""
    key = (id(config), tuple(sorted(rows)))
    held = _realised.get(key)
    if held is None or held[0] is not config:  # the entry keeps its config alive: ids stay true
        held = _realised[key] = (config, _realise(config, key[1]))
    return held[1]


def _realise(
    config: GameConfig, wanted: tuple[Pence, ...]
) -> tuple[tuple[int, frozenset[int]], ...]:
    found = []
    if not wanted:
        return tuple((level, frozenset()) for level in range(config.max_level + 1))
    for level in range(config.max_level + 1):
        for chosen in combinations(range(config.shapes), len(wanted)):
            amounts = tuple(sorted(config.row_amount(r, level) for r in chosen))
            if amounts == wanted:
                found.append((level, frozenset(chosen)))
    return tuple(found)


def plan_for(tier: Tier | None, config: GameConfig, rng: random.Random) -> Plan:
    """A plan for ``tier`` (None: no win), chosen at random among its realisations."""
    if tier is None:
        return Plan(frozenset(), 0, (), Route.NONE, 0, False, _extra_games(rng))
    options = realisations(config, tier.rows)
    if not options:
        raise ValueError(f"no Prize Table rows and level pay {tier.rows!r} for tier {tier.name!r}")
    level, rows = options[rng.randrange(len(options))]
    if not rows:
        level = 0  # a Prize Game only play: the table's level does not matter, keep it plain
    boosters = BOOSTER_SETS[level][rng.randrange(len(BOOSTER_SETS[level]))]
    route = Route.NONE
    doubled = False
    if tier.prize_game:
        route = (Route.SYMBOLS, Route.UNLOCK, Route.PRIZE_GAME_SYMBOLS)[rng.randrange(3)]
        # A natural Prize Game ends on WIN x2 in 6 of the 11 ways a spin can end it (the wheel
        # matches WIN x2: 6 of 36 colourings; matches WIN only: 5 of 36). Every Prize Game pot
        # halves into the grid's amounts (they include 50p), so doubling is drawn at that rate.
        halves = tier.prize_game % 100 == 0
        doubled = halves and rng.randrange(11) < 6
    needed = 1 if boosters or route in (Route.UNLOCK, Route.PRIZE_GAME_SYMBOLS) else 0
    return Plan(rows, level, boosters, route, tier.prize_game, doubled, needed + _extra_games(rng))


def _extra_games(rng: random.Random) -> int:
    """Bonus Games a plan adds beyond the ones it needs: 1 in 8 plays gets one, 1 in 100 two,
    0.14 a play, close to natural plays (0.146 a losing play, 0.122 a £5 play: the table in
    docs/generator.md)."""
    draw = rng.randrange(100)
    return 0 if draw < 87 else 1 if draw < 99 else 2
