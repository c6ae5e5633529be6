"""What one natural Bonus Game does to a Main Game's skeleton, and with what chance.

A Bonus Game touches the skeleton (``booster_level``) only through its *effect*: the levels it
awards, the EXTRA SPINS prizes it wins and whether it wins a SYMBOLS or MORE SYMBOLS prize. Its
panel leaves out one of the eight kinds of Bonus Prize, and each round is lost with chance 1/2
or wins one of the seven prizes on the panel with chance 1/14 each, so the chance of each
effect is a sum over the rounds, worked out here once a process for each configuration and
panel.
"""

from __future__ import annotations

from dataclasses import dataclass

from colour_collector.game.config import SYMBOL_KINDS, BonusKind, GameConfig
from colour_collector.game.natural import KINDS

EXTRA_WINS_KNOWN = 12
"""EXTRA SPINS wins in one Bonus Game beyond this many are not told apart."""
BOOSTS_KNOWN = 4
"""Boosts are counted up to this many (4: more than the top level)."""
NEGLIGIBLE = 1e-12
"""Chances below this (of a spin's Bonus symbols, of a Bonus Game's effect) are left out."""


@dataclass(frozen=True, slots=True)
class PanelKind:
    """What of a Bonus Game panel touches the skeleton: the kind left out and the EXTRA SPINS
    prize's number (0 if that prize is left out)."""

    omitted: BonusKind
    """The kind not on the panel."""
    extra: int
    """Spins the EXTRA SPINS prize carries."""


Effect = tuple[int, int, int]
"""What one Bonus Game does to the skeleton: (levels, extra spins or EXTRA SPINS wins, whether
a Symbols prize was won)."""


def effect_of(config: GameConfig, kind: BonusKind) -> Effect:
    """What winning one prize of ``kind`` adds: (levels, EXTRA SPINS wins, Symbols won)."""
    return (
        config.bonus_prizes[kind].boost,
        int(kind is BonusKind.EXTRA_SPINS),
        int(kind in SYMBOL_KINDS),
    )


_effects: dict[tuple[int, BonusKind], tuple[GameConfig, dict[Effect, float]]] = {}


def effect_chances(config: GameConfig, omitted: BonusKind) -> dict[Effect, float]:
    """``_effect_chances``, worked out once a process for each configuration and panel."""
    held = _effects.get((id(config), omitted))
    if held is None or held[0] is not config:  # the entry keeps its config alive: ids stay true
        held = _effects[(id(config), omitted)] = (config, _effect_chances(config, omitted))
    return held[1]


def _effect_chances(config: GameConfig, omitted: BonusKind) -> dict[Effect, float]:
    """For a panel leaving out ``omitted``: the chance a natural Bonus Game wins ``d`` levels (up
    to BOOSTS_KNOWN), ``n`` EXTRA SPINS rounds (up to EXTRA_WINS_KNOWN) and a Symbols prize or
    not."""
    steps = [effect_of(config, k) for k in KINDS if k is not omitted]
    share = 1 / (2 * len(steps))  # a round is won (1/2) and highlights this prize (1/7)
    dist: dict[Effect, float] = {(0, 0, 0): 1.0}
    ended: dict[Effect, float] = {}
    while sum(dist.values()) > NEGLIGIBLE * NEGLIGIBLE:  # the mass still playing halves
        grown: dict[Effect, float] = {}
        for (d, n, s), chance in dist.items():
            ended[(d, n, s)] = ended.get((d, n, s), 0.0) + chance / 2
            for boost, extra, sym in steps:
                key = (min(BOOSTS_KNOWN, d + boost), min(EXTRA_WINS_KNOWN, n + extra), s | sym)
                grown[key] = grown.get(key, 0.0) + chance * share
        dist = grown
    return ended
