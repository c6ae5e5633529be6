"""Files that appear whole or not at all: the outbox's mails, the audit checkpoints, the
generator's tables and the pool files.

Each is written under a temporary name beside its place, flushed to the disk, then renamed into
place and the folder flushed, so that a reader (or the next start after a power cut) sees the
old file or the whole new one, never half of it, and a file reported written stays written;
when the writing fails (a full disk), the temporary file is removed, so nothing is left
behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

PART_SUFFIX = ".part"
"""The end of a temporary file's name: ``.<name>.<random>.part``, hidden beside ``<name>``."""


def write_whole(path: Path, data: bytes, *, overwrite: bool = True) -> None:
    """Write ``data`` to ``path`` whole or not at all, readable by its owner only.

    With ``overwrite=False`` an existing ``path`` is never replaced: ``FileExistsError``. Any
    ``OSError`` of the writing is raised after the temporary file is removed."""
    handle, temporary = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=PART_SUFFIX, dir=path.parent
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if overwrite:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)  # fails if the path exists, where a rename would replace it
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    # The new name is in the folder's own data: flushed too, or a power cut could lose it.
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
