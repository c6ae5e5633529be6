"""A file written whole or not at all, and nothing left behind when the disk is full."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from colour_collector import whole_files
from colour_collector.whole_files import write_whole


def test_a_file_is_written_for_its_owner_only_and_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "mail.eml"
    write_whole(path, b"first")
    write_whole(path, b"second")
    assert path.read_bytes() == b"second"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(tmp_path.iterdir()) == [path]


def test_without_overwrite_an_existing_file_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "pool.json"
    write_whole(path, b"the first pool", overwrite=False)
    with pytest.raises(FileExistsError):
        write_whole(path, b"another pool", overwrite=False)
    assert path.read_bytes() == b"the first pool"
    assert sorted(tmp_path.iterdir()) == [path]


def test_a_full_disk_leaves_the_old_file_and_no_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk cannot be made here without root's mount; the flush fails as it would."""
    path = tmp_path / "checkpoint-000000000001.json"
    write_whole(path, b"the old checkpoint")

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(whole_files.os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        write_whole(path, b"a new checkpoint")
    with pytest.raises(OSError, match="No space left"):
        write_whole(tmp_path / "new.eml", b"a mail")
    assert sorted(tmp_path.iterdir()) == [path]
    assert path.read_bytes() == b"the old checkpoint"
