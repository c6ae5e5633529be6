"""What a prize pool is tied to: the game's configuration and the play generator, by hash.

A pool fixes each play as ``generate(outcome, random.Random(seed))``: the same secret gives the same
plays only with the same generator and the same game configuration. A pool therefore records both,
and a pool whose generator or configuration differs from this program's is neither verified nor
sold (``pool_parameters.check_versions``).

- ``game_sha256``: the SHA-256 of the game's data files (``game.toml``, ``prize_table.tsv``,
  ``pool_counts.json``), each as ``name NUL length NUL bytes``.
- ``generator_sources_sha256``: the same over the source of every module ``generate`` runs
  (``GENERATOR_MODULES``; ``tests/unit/test_pool_versions.py`` checks the list is complete).
- ``generator_sample_sha256``: the SHA-256 of one generated play per outcome at fixed seeds. The
  source hash misses what lies outside the package (the interpreter's ``random`` module); the
  sample catches that.

All three are worked out once a process. The sample is never taken from a file (such as the
generator's tables' cache): it is worth something only as what this process's own interpreter
generates (decision 0102, "Later").
"""

from __future__ import annotations

import functools
import hashlib
import random
from dataclasses import dataclass
from importlib import metadata, resources

from colour_collector.game import codec
from colour_collector.game.generator import generate
from colour_collector.game.prize_table import load_tiers

GENERATOR_MODULES = (
    "bonus_effects",
    "booster_level",
    "config",
    "errors",
    "generator",
    "layout",
    "main_game_sampler",
    "natural",
    "other_items",
    "outcome",
    "placement_lean",
    "prize_game",
    "prize_table",
    "record",
    "sampling",
    "skeleton",
    "skeleton_chain",
    "without_bonus",
)
"""Modules of ``colour_collector.game`` that ``generator.generate`` runs."""
GAME_DATA = ("game.toml", "prize_table.tsv", "pool_counts.json")
"""Files of ``colour_collector.game.data`` that make the game."""
SAMPLE_SEED = 20261215
"""Seed of the generator's sample plays."""


@dataclass(frozen=True, slots=True)
class Versions:
    """The game configuration and play generator a pool was built with."""

    package: str
    """The ``colour-collector`` version (recorded for people; not compared)."""
    game_sha256: str
    """SHA-256 of the game's data files."""
    generator_sources_sha256: str
    """SHA-256 of the generator's source files."""
    generator_sample_sha256: str
    """SHA-256 of the generator's sample plays."""

    def differences(self, other: Versions) -> tuple[str, ...]:
        """What differs from ``other`` (the package version aside), one phrase each: "game
        configuration <self's hash>... against <other's>..."."""
        found = []
        if self.game_sha256 != other.game_sha256:
            found.append(
                f"game configuration {self.game_sha256[:12]}... against {other.game_sha256[:12]}..."
            )
        if self.generator_sources_sha256 != other.generator_sources_sha256:
            found.append(
                f"play generator {self.generator_sources_sha256[:12]}... against"
                f" {other.generator_sources_sha256[:12]}..."
            )
        elif self.generator_sample_sha256 != other.generator_sample_sha256:
            found.append(
                f"play generator sample {self.generator_sample_sha256[:12]}... against"
                f" {other.generator_sample_sha256[:12]}... (same source, another Python?)"
            )
        return tuple(found)


def _files_sha256(named: list[tuple[str, bytes]]) -> str:
    digest = hashlib.sha256()
    for name, data in named:
        digest.update(name.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0")
        digest.update(data)
    return digest.hexdigest()


@functools.cache
def game_sha256() -> str:
    """SHA-256 of the game's data files."""
    data = resources.files("colour_collector.game.data")
    return _files_sha256([(name, data.joinpath(name).read_bytes()) for name in GAME_DATA])


@functools.cache
def generator_sources_sha256() -> str:
    """SHA-256 of the source of every module the generator runs."""
    game = resources.files("colour_collector.game")
    return _files_sha256(
        [(f"{name}.py", game.joinpath(f"{name}.py").read_bytes()) for name in GENERATOR_MODULES]
    )


@functools.cache
def generator_sample_sha256() -> str:
    """SHA-256 of one play for each outcome (no win, then every tier), generated at fixed seeds."""
    digest = hashlib.sha256()
    for index, tier in enumerate((None, *load_tiers())):
        record = generate(tier, random.Random(SAMPLE_SEED + index))
        digest.update(codec.dumps(record).encode("utf-8") + b"\n")
    return digest.hexdigest()


def package_version() -> str:
    """The installed ``colour-collector`` version ("unknown" when run from an uninstalled tree)."""
    try:
        return metadata.version("colour-collector")
    except metadata.PackageNotFoundError:
        return "unknown"


@functools.cache
def current_versions() -> Versions:
    """This program's versions."""
    return Versions(
        package=package_version(),
        game_sha256=game_sha256(),
        generator_sources_sha256=generator_sources_sha256(),
        generator_sample_sha256=generator_sample_sha256(),
    )
