"""The play generator's tables, kept on disk so that each process need not work them out again.

Before its first play, a process works out how each outcome's Main Game is drawn
(``generator.prepare``): about 10 s of one core. Every server start, every pool-verify or
simulate worker and every server the browser tests start paid that, which kept the suite over
its 15 minutes and two verify workers at 1.27 times one (issue 15 asks 1.8). The tables are a
function of the generator's source, the game's data files and the Python that runs them (fixed
seeds, ``generator.Tables``), so this module keeps one pickled copy a version in a file named by
a hash of those three, and a process loads it in about 0.06 s. This is a speed trick of our own,
bought for those two floors: measured figures in docs/benchmarks.md ("Generator tables"),
decision 0102.

The file is only a cache: a missing, unreadable or damaged file is worked out again and
replaced, and a directory that cannot be written is left alone. It is loaded with ``pickle``
restricted to the generator's own classes, and should still be trusted like the installed
code: it lives in the user's own cache directory
(``$COLOUR_COLLECTOR_CACHE``, else ``$XDG_CACHE_HOME/colour-collector``, else
``~/.cache/colour-collector``). Only the shipped configuration's tables are kept, and the files
of versions no process has used for ``UNUSED_DAYS`` are deleted (``prune``).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import pickle
import sys
import time
from enum import StrEnum, unique
from pathlib import Path
from typing import Any

from colour_collector.game import generator
from colour_collector.game.config import GameConfig, load_config
from colour_collector.game.versions import (
    GENERATOR_MODULES,
    game_sha256,
    generator_sources_sha256,
)
from colour_collector.whole_files import PART_SUFFIX, write_whole

ENVIRONMENT = "COLOUR_COLLECTOR_CACHE"
"""The environment variable naming the cache directory."""
FORMAT = 2
"""The layout of the file (part of its name): raised when ``Tables`` pickles differently."""
PREFIX = "generator-tables-"
"""How table files' names begin (a save under way: ``.<name>.<random>.part``)."""
UNUSED_DAYS = 30
"""A table file no process has loaded or made for this many days is deleted: each version marks
its own file used whenever a process loads it, so versions run side by side keep theirs."""
PART_DAYS = 1
"""A part of a save older than this was left by a process that stopped during the save."""

_GAME = "colour_collector.game."
_log = logging.getLogger(__name__)


@unique
class Source(StrEnum):
    """Where ``warm`` found the tables."""

    MEMORY = "memory"
    """This process had them already."""
    FILE = "file"
    """Loaded from the cache file."""
    WORKED_OUT = "worked out"
    """Worked out now (and saved, if the directory could be written)."""


def directory() -> Path:
    """The cache directory."""
    named = os.environ.get(ENVIRONMENT)
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "colour-collector"


def path() -> Path:
    """The file for this program's tables."""
    digest = hashlib.sha256()
    for part in (generator_sources_sha256(), game_sha256(), sys.version, str(FORMAT)):
        digest.update(part.encode("utf-8") + b"\0")
    return directory() / f"{PREFIX}{digest.hexdigest()[:32]}.pickle"


def warm() -> Source:
    """Make this process's generator tables for the shipped configuration ready: from memory,
    from the cache file, or worked out now and saved there."""
    config = load_config()
    if generator.prepared(config):
        return Source.MEMORY
    file = path()
    found = load(file, config)
    if found is not None:
        generator.adopt(found, config)
        with contextlib.suppress(OSError):
            os.utime(file)  # used now: see UNUSED_DAYS
        source = Source.FILE
    else:
        started = time.perf_counter()
        made = generator.tables(config)
        _log.info("worked out the generator's tables in %.1f s", time.perf_counter() - started)
        save(file, made, config)
        source = Source.WORKED_OUT
    prune(file.parent, keep=file, now=time.time())
    return source


def prune(folder: Path, *, keep: Path, now: float) -> list[Path]:
    """Delete the table files in ``folder`` that no process has used for ``UNUSED_DAYS``, and parts
    of a save older than ``PART_DAYS``, but never ``keep``; return what was deleted. Other files
    are not touched, and one that cannot be read or deleted is left."""
    deleted: list[Path] = []
    lives = {".pickle": UNUSED_DAYS, PART_SUFFIX: PART_DAYS}
    # Tables are PREFIX..., parts of a save .PREFIX... (whole_files); nothing for a folder it
    # cannot list.
    for found in sorted([*folder.glob(f"{PREFIX}*"), *folder.glob(f".{PREFIX}*")]):
        days = lives.get(found.suffix)
        if days is None or found == keep:
            continue
        try:
            if now - found.stat().st_mtime > days * 86_400:
                found.unlink()
                deleted.append(found)
        except OSError:
            continue
    if deleted:
        _log.info("deleted from %s, unused: %s", folder, ", ".join(f.name for f in deleted))
    return deleted


class _Pickler(pickle.Pickler):
    """Leaves the configuration out of the file: it is this process's own on loading."""

    def __init__(self, file: io.BytesIO, config: GameConfig) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.config = config

    def persistent_id(self, obj: object) -> str | None:
        return "config" if obj is self.config else None


class _Unpickler(pickle.Unpickler):
    """Builds nothing but the generator's own classes (and ``Counter``): a file naming anything
    else is refused as damaged."""

    def __init__(self, file: io.BytesIO, config: GameConfig) -> None:
        super().__init__(file)
        self.config = config

    def find_class(self, module: str, name: str) -> Any:
        game = module.removeprefix(_GAME)
        if (module, name) == ("collections", "Counter") or (
            module != game and game in GENERATOR_MODULES
        ):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not one of the generator's classes")

    def persistent_load(self, pid: object) -> GameConfig:
        if pid != "config":
            raise pickle.UnpicklingError(f"unknown reference {pid!r}")
        return self.config


def dumps(tables: generator.Tables, config: GameConfig) -> bytes:
    """``tables`` as the file's bytes."""
    out = io.BytesIO()
    _Pickler(out, config).dump(tables)
    return out.getvalue()


def loads(data: bytes, config: GameConfig) -> generator.Tables:
    """The tables in ``data``, tied to ``config``."""
    found = _Unpickler(io.BytesIO(data), config).load()
    if not isinstance(found, generator.Tables):
        raise pickle.UnpicklingError(f"the file holds a {type(found).__name__}, not tables")
    if found.calibration.cfg is not config or found.prize_game.config is not config:
        raise pickle.UnpicklingError("the tables are not tied to the configuration")
    return found


def load(file: Path, config: GameConfig) -> generator.Tables | None:
    """The tables kept in ``file`` for ``config``; None if there are none or they are damaged."""
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        _log.warning("cannot read the generator's tables from %s: %s", file, error)
        return None
    try:
        return loads(data, config)
    except Exception as error:  # any damage to a cache file means: work it out again
        _log.warning("the generator's tables in %s are damaged (%r): working them out", file, error)
        return None


def save(file: Path, tables: generator.Tables, config: GameConfig) -> None:
    """Keep ``tables`` in ``file`` whole or not at all (a warning if it cannot be written)."""
    data = dumps(tables, config)
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        write_whole(file, data)  # readers see the old file or the whole new one
    except OSError as error:
        _log.warning("cannot keep the generator's tables in %s: %s", file.parent, error)
