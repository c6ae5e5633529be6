"""A pool records the game's and the generator's versions: the list of generator modules is
complete, and any change to them changes the version."""

from __future__ import annotations

import subprocess
import sys

from colour_collector.game import versions


def test_the_generator_modules_are_every_game_module_the_generator_loads() -> None:
    script = (
        "import sys, colour_collector.game.generator\n"
        "print(' '.join(sorted(m.rsplit('.', 1)[1] for m in sys.modules"
        " if m.startswith('colour_collector.game.'))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    ).stdout.split()
    assert sorted(versions.GENERATOR_MODULES) == loaded


def test_versions_are_hashes_and_differences_are_named() -> None:
    mine = versions.current_versions()
    for value in (mine.game_sha256, mine.generator_sources_sha256, mine.generator_sample_sha256):
        assert len(value) == 64 and not value.strip("0123456789abcdef")
    assert mine.differences(mine) == ()
    other = versions.Versions("2.0", "0" * 64, "1" * 64, "2" * 64)
    found = mine.differences(other)
    assert any("game configuration" in d for d in found)
    assert any("play generator" in d for d in found)
    same_source = versions.Versions(
        "2.0", mine.game_sha256, mine.generator_sources_sha256, "3" * 64
    )
    assert mine.differences(same_source) == (
        f"play generator sample {mine.generator_sample_sha256[:12]}... against 333333333333..."
        " (same source, another Python?)",
    )
    assert versions.package_version() == mine.package
