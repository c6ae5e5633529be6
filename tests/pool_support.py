"""Small prize pools for the tests: a pool of a few dozen plays is built, verified, sold and
closed in milliseconds (the procedure is the same as for 6,500,000)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path

from colour_collector.game.pool_file import PoolFile, dumps
from colour_collector.game.pool_parameters import PoolParameters
from colour_collector.game.prize_table import load_tiers, tier_by_name
from colour_collector.game.versions import current_versions

SMALL = {"£5": 8, "£10 (£10 Prize Game)": 3, "£2,000": 1, "£1,000,000": 1}
"""A small prize structure: 13 winners, with two top prizes."""
BUILT = dt.datetime(2026, 12, 15, 9, 30, tzinfo=dt.UTC)


def parameters(size: int = 40, counts: Mapping[str, int] = SMALL) -> PoolParameters:
    """A pool of ``size`` plays with these winners (every other tier: none)."""
    values = [0] * len(load_tiers())
    for name, count in counts.items():
        values[tier_by_name(name).index] = count
    return PoolParameters(size, tuple(values), current_versions())


def small_pool(
    size: int = 40, counts: Mapping[str, int] = SMALL, secret: bytes | None = None
) -> PoolFile:
    """A new small pool."""
    return PoolFile.build(parameters(size, counts), BUILT, secret)


def write_pool(path: Path, pool: PoolFile) -> Path:
    """Write ``pool`` to ``path``."""
    path.write_text(dumps(pool), encoding="utf-8")
    return path


def expected_outcomes(pool: PoolFile) -> dict[str | None, int]:
    """Tier name (None: no win) -> plays of it in the pool."""
    found: dict[str | None, int] = {
        tier.name: count
        for tier, count in zip(load_tiers(), pool.parameters.counts, strict=True)
        if count
    }
    found[None] = pool.parameters.start[-1]
    return found
