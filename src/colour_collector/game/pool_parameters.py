"""What a pool's commitment binds besides its secret: its size, its counts of each tier and the
versions of the game and the generator its plays come from, as one canonical JSON text
(``PoolParameters.text``; the procedure is in ``pool_deal`` and ``docs/pools.md``), read back
strictly, and checked against this program's versions before a pool is verified or sold.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass

from colour_collector.game import strict_json
from colour_collector.game.errors import GameError
from colour_collector.game.pool import POOL_SIZE, PoolError, PrizePool, load_pool
from colour_collector.game.prize_table import load_tiers
from colour_collector.game.versions import Versions, current_versions

PROCEDURE = "colour-collector-pool/1"
"""Name and version of this procedure, bound into every commitment."""


class PoolDealError(GameError, ValueError):
    """A pool secret, parameter or position is not acceptable; the message quotes it."""


class PoolVersionError(GameError):
    """A pool was built with another game configuration or play generator than this program's."""


MAX_SIZE = 100_000_000
"""The most plays a pool may have: fifteen times the published pool. Closing a pool checks every
position (about 5 µs each in Python), so this one takes about 8 minutes; a larger size is a
mistake, not a pool."""


@dataclass(frozen=True, slots=True)
class PoolParameters:
    """What a pool's commitment binds besides its secret."""

    size: int
    """Plays in the pool."""
    counts: tuple[int, ...]
    """Winners of each tier, in table order; the other plays win nothing."""
    versions: Versions
    """The game configuration and play generator the plays come from."""

    def __post_init__(self) -> None:
        """Check size and counts as a prize pool."""
        if isinstance(self.size, int) and self.size > MAX_SIZE:
            raise PoolDealError(f"a pool has at most {MAX_SIZE:,} plays, not {self.size:,}")
        try:
            PrizePool(self.size, self.counts)
        except PoolError as error:
            raise PoolDealError(str(error)) from None

    @classmethod
    def published(cls, versions: Versions | None = None) -> PoolParameters:
        """The published 6,500,000-play prize structure with this program's versions."""
        pool = load_pool()
        return cls(pool.size, pool.counts, versions or current_versions())

    @property
    def prize_pool(self) -> PrizePool:
        """The counts as a prize pool."""
        return PrizePool(self.size, self.counts)

    @property
    def is_published(self) -> bool:
        """Whether size and counts are the published prize structure's."""
        pool = load_pool()
        return self.size == pool.size == POOL_SIZE and self.counts == pool.counts

    @property
    def start(self) -> tuple[int, ...]:
        """``remaining`` at position 0: the tier counts, then the plays that win nothing."""
        return (*self.counts, self.size - sum(self.counts))

    @property
    def text(self) -> str:
        """The canonical JSON text the commitment hashes."""
        return _parameters_text(self)

    @classmethod
    def from_text(cls, text: str) -> PoolParameters:
        """Read parameters from their JSON text (strict: every field, nothing else)."""
        return _parameters_from_text(text)


@functools.cache
def _parameters_text(parameters: PoolParameters) -> str:
    versions = parameters.versions
    data = {
        "procedure": PROCEDURE,
        "size": parameters.size,
        "counts": [
            [tier.name, count] for tier, count in zip(load_tiers(), parameters.counts, strict=True)
        ],
        "no_win": parameters.size - sum(parameters.counts),
        "game": {"package": versions.package, "sha256": versions.game_sha256},
        "generator": {
            "sources_sha256": versions.generator_sources_sha256,
            "sample_sha256": versions.generator_sample_sha256,
        },
    }
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _member(data: dict[str, object], name: str, where: str) -> object:
    if name not in data:
        raise PoolDealError(f"{where} lacks {name!r}")
    return data[name]


def _int(data: dict[str, object], name: str, where: str) -> int:
    value = _member(data, name, where)
    if not isinstance(value, int) or isinstance(value, bool):
        raise PoolDealError(f"{where}.{name} must be an integer, not {value!r}")
    return value


def _str(data: dict[str, object], name: str, where: str) -> str:
    value = _member(data, name, where)
    if not isinstance(value, str):
        raise PoolDealError(f"{where}.{name} must be a string, not {value!r}")
    return value


def _hex(data: dict[str, object], name: str, where: str) -> str:
    value = _str(data, name, where)
    if len(value) != 64 or value.strip("0123456789abcdef"):
        raise PoolDealError(f"{where}.{name} must be 64 lower-case hex digits, not {value!r}")
    return value


def _object(value: object, where: str, names: set[str]) -> dict[str, object]:
    if not isinstance(value, dict):
        raise PoolDealError(f"{where} must be an object, not {value!r}")
    missing = sorted(names - set(value))
    if missing:
        raise PoolDealError(f"{where} lacks {', '.join(map(repr, missing))}")
    unknown = sorted(set(value) - names)
    if unknown:
        raise PoolDealError(f"{where} has unknown field(s) {unknown!r}")
    return value


def _counts(value: object) -> tuple[int, ...]:
    tiers = load_tiers()
    if not isinstance(value, list) or len(value) != len(tiers):
        raise PoolDealError(f"parameters.counts must list the {len(tiers)} tiers, not {value!r}")
    counts = []
    for number, (tier, pair) in enumerate(zip(tiers, value, strict=True)):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or pair[0] != tier.name
            or not isinstance(pair[1], int)
            or isinstance(pair[1], bool)
        ):
            raise PoolDealError(
                f"parameters.counts[{number}] must be [{tier.name!r}, a count], not {pair!r}"
            )
        counts.append(pair[1])
    return tuple(counts)


@functools.lru_cache(maxsize=64)
def _parameters_from_text(text: str) -> PoolParameters:
    try:
        data = strict_json.parse(text)
    except strict_json.StrictJsonError as error:
        raise PoolDealError(f"the parameters text {error}") from None
    where = "parameters"
    obj = _object(data, where, {"procedure", "size", "counts", "no_win", "game", "generator"})
    procedure = _str(obj, "procedure", where)
    if procedure != PROCEDURE:
        raise PoolDealError(
            f"parameters.procedure is {procedure!r}; this program deals {PROCEDURE!r}"
        )
    game = _object(obj["game"], "parameters.game", {"package", "sha256"})
    generator = _object(
        obj["generator"], "parameters.generator", {"sources_sha256", "sample_sha256"}
    )
    versions = Versions(
        package=_str(game, "package", "parameters.game"),
        game_sha256=_hex(game, "sha256", "parameters.game"),
        generator_sources_sha256=_hex(generator, "sources_sha256", "parameters.generator"),
        generator_sample_sha256=_hex(generator, "sample_sha256", "parameters.generator"),
    )
    parameters = PoolParameters(_int(obj, "size", where), _counts(obj["counts"]), versions)
    no_win = _int(obj, "no_win", where)
    if no_win != parameters.start[-1]:
        raise PoolDealError(
            f"parameters.no_win must be {parameters.start[-1]!r} (size minus winners),"
            f" not {no_win!r}"
        )
    if parameters.text != text:
        raise PoolDealError("parameters are not in canonical form (sorted keys, no spaces, ASCII)")
    return parameters


def check_versions(parameters: PoolParameters) -> None:
    """Raise ``PoolVersionError`` unless the pool's game and generator are this program's."""
    differences = parameters.versions.differences(current_versions())
    if differences:
        raise PoolVersionError(
            "this pool was built with another version of the game (the pool's hash against"
            " this program's): "
            + "; ".join(differences)
            + f". Verify and sell it with the build it was made with: it recorded colour-collector"
            f" {parameters.versions.package}, and any change to the game's data files or the"
            " generator's modules, even without a new version number, makes another build"
            " (docs/pools.md, 'Versions')"
        )
