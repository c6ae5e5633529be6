"""Stored play records, decoded once per process.

Every step of a play reads the same stored record text and decodes it (a JSON parse and a check
of every field). Decoding is a pure function of the text and records are immutable, so a
memo keyed by the text itself is always right: a changed record is a different text. It holds
nothing else: every request reads the play it acts on from the database.
"""

from __future__ import annotations

import functools

from colour_collector.game import codec
from colour_collector.game.record import PlayRecord

MEMO_SIZE = 1024
"""Decoded records kept per process: well above the plays in progress at once on one server."""


@functools.lru_cache(maxsize=MEMO_SIZE)
def decode(text: str) -> PlayRecord:
    """``codec.loads(text)``, remembered."""
    return codec.loads(text)


def encode(record: PlayRecord) -> str:
    """``codec.dumps(record)``."""
    return codec.dumps(record)
