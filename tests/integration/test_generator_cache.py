"""The generator's tables kept on disk: a second process loads what the first worked out and
generates exactly the same plays; a damaged, foreign or unwritable cache costs time, never a play.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from colour_collector import generator_cache
from colour_collector.game.config import load_config
from colour_collector.game.generator import Tables
from colour_collector.game.main_game_sampler import Calibration
from colour_collector.game.prize_game import PrizeGameOdds
from colour_collector.game.prize_table import load_tiers

WARM_AND_SAMPLE = """
import json
from colour_collector import generator_cache
from colour_collector.game.config import load_config
from colour_collector.game.prize_game import prize_game_odds
from colour_collector.game.versions import generator_sample_sha256
source = generator_cache.warm()
grown = len(prize_game_odds(load_config()).spin)  # before any play could grow them
print(json.dumps({"source": str(source), "grown": grown, "sample": generator_sample_sha256()}))
"""


ANOTHER_RANDOM = """
import json, random
draw = random.Random.random
random.Random.random = lambda self: draw(self) * 0.999999  # another build, the same sys.version
from colour_collector import generator_cache
from colour_collector.game.versions import current_versions
source = generator_cache.warm()
print(json.dumps({"source": str(source), "versions": current_versions().generator_sample_sha256}))
"""


def _warm_in_a_new_process(cache: Path, script: str = WARM_AND_SAMPLE) -> dict[str, Any]:
    env = {**os.environ, generator_cache.ENVIRONMENT: str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    answer: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return answer


def test_a_second_process_loads_the_tables_and_makes_the_same_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(generator_cache.ENVIRONMENT, str(tmp_path))
    file = generator_cache.path()
    file.write_bytes(b"not a pickle at all")  # a damaged file is worked out again and replaced
    another_version = _aged(tmp_path / "generator-tables-0123.pickle", days=40)

    first = _warm_in_a_new_process(tmp_path)
    assert not another_version.exists()  # no process had used it for 40 days
    _aged(file, days=40)  # and then a process of this version loads it: used again
    second = _warm_in_a_new_process(tmp_path)
    assert time.time() - file.stat().st_mtime < 600

    assert first["source"] == generator_cache.Source.WORKED_OUT
    assert second["source"] == generator_cache.Source.FILE
    # one play of every outcome at fixed seeds: the loaded tables draw what worked-out ones do
    assert second["sample"] == first["sample"]
    # the Prize Game's chances come with the file, as far as the largest Prize Game prize
    top = max(tier.prize_game for tier in load_tiers())
    odds = PrizeGameOdds(load_config())
    assert second["grown"] == first["grown"] == top // odds.unit + 1
    assert generator_cache.load(file, load_config()) is not None
    # The sample is worked out by each process with its own interpreter, never taken from the
    # file: a process whose ``random`` draws otherwise, under the same ``sys.version`` (so the
    # same file), reports a sample of its own, so it refuses a pool the file's writer built.
    another = _warm_in_a_new_process(tmp_path, ANOTHER_RANDOM)
    assert another["source"] == generator_cache.Source.FILE
    assert another["versions"] != first["sample"]
    assert [p.name for p in tmp_path.iterdir()] == [file.name]  # no partial file left behind


def test_the_file_is_named_by_the_generator_the_game_and_the_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(generator_cache.ENVIRONMENT, str(tmp_path / "a"))
    in_a = generator_cache.path()
    monkeypatch.setenv(generator_cache.ENVIRONMENT, str(tmp_path / "b"))
    assert generator_cache.path().parent == tmp_path / "b"
    assert generator_cache.path().name == in_a.name
    monkeypatch.setattr(generator_cache.sys, "version", "3.99.0 (another interpreter)")
    assert generator_cache.path().name != in_a.name


def test_the_cache_directory_defaults_to_the_users_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(generator_cache.ENVIRONMENT, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert generator_cache.directory() == tmp_path / "colour-collector"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert generator_cache.directory() == tmp_path / "home" / ".cache" / "colour-collector"


def _aged(file: Path, days: float) -> Path:
    """``file`` (made if missing) as last used ``days`` ago."""
    if not file.exists():
        file.write_bytes(b"tables")
    then = time.time() - days * 86_400
    os.utime(file, (then, then))
    return file


def test_files_of_versions_unused_for_a_month_are_deleted(tmp_path: Path) -> None:
    """Each version marks its own file used when a process loads it, so versions run side by
    side keep theirs; a file no process has used for ``UNUSED_DAYS`` is a version no longer run."""
    assert generator_cache.UNUSED_DAYS == 30
    current = _aged(tmp_path / "generator-tables-current.pickle", days=90)
    kept = [
        current,  # this process's own, however old
        _aged(tmp_path / "generator-tables-recent.pickle", days=29),
        _aged(
            tmp_path / ".generator-tables-current.pickle.k3x9q1.part", days=0.5
        ),  # a save under way
        _aged(tmp_path / "notes.pickle", days=400),  # not the cache's
        _aged(tmp_path / "generator-tables-readme.txt", days=400),
    ]
    gone = [
        _aged(tmp_path / "generator-tables-old.pickle", days=31),
        _aged(tmp_path / ".generator-tables-old.pickle.z8w2e4.part", days=2),
    ]
    deleted = generator_cache.prune(tmp_path, keep=current, now=time.time())
    assert sorted(deleted) == sorted(gone)
    assert sorted(tmp_path.iterdir()) == sorted(kept)


def test_a_folder_that_cannot_be_listed_is_left_alone(tmp_path: Path) -> None:
    missing = tmp_path / "no such folder"
    assert generator_cache.prune(missing, keep=missing / "x.pickle", now=time.time()) == []


def _small_tables() -> Tables:
    config = load_config()
    return Tables(Calibration(config), {}, PrizeGameOdds(config))


def test_tables_come_back_tied_to_this_process_configuration() -> None:
    config = load_config()
    found = generator_cache.loads(generator_cache.dumps(_small_tables(), config), config)
    assert isinstance(found, Tables)
    assert found.calibration.cfg is config  # the configuration is not copied into the file


def test_a_file_naming_anything_but_the_generators_classes_is_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    file = tmp_path / "tables.pickle"
    file.write_bytes(pickle.dumps(os.getcwd))  # would call os.getcwd on loading
    with caplog.at_level(logging.WARNING, logger=generator_cache.__name__):
        assert generator_cache.load(file, load_config()) is None
    assert "posix.getcwd is not one of the generator's classes" in caplog.text
    with pytest.raises(pickle.UnpicklingError, match="not tables"):
        generator_cache.loads(pickle.dumps({"tables": 1}), load_config())


def test_a_directory_that_cannot_be_written_is_left_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("in the way")
    file = blocker / "cache" / "tables.pickle"
    with caplog.at_level(logging.WARNING, logger=generator_cache.__name__):
        generator_cache.save(file, _small_tables(), load_config())
    assert "cannot keep the generator's tables" in caplog.text
    assert generator_cache.load(file, load_config()) is None
    assert blocker.read_text() == "in the way"
