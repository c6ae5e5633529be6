"""Stored play records, decoded once per process.

Every step of a play reads the same stored record text and decodes it (a JSON parse and a check
of every field). Decoding is a pure function of the text and records are immutable, so a memo
keyed by the text itself is always right: a changed record is a different text. A record this
process encodes is remembered with its text, so the first step after a purchase does not decode
what the purchase just encoded. The memo holds nothing else: every request reads the play it
acts on from the database.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from colour_collector.game import codec
from colour_collector.game.record import PlayRecord

MEMO_SIZE = 1024
"""Decoded records kept per process: well above the plays in progress at once on one server."""

_memo: OrderedDict[str, PlayRecord] = OrderedDict()
_lock = threading.Lock()


def _remember(text: str, record: PlayRecord) -> None:
    with _lock:
        _memo[text] = record
        _memo.move_to_end(text)
        while len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)


def decode(text: str) -> PlayRecord:
    """``codec.loads(text)``, remembered."""
    with _lock:
        found = _memo.get(text)
        if found is not None:
            _memo.move_to_end(text)
            return found
    record = codec.loads(text)
    _remember(text, record)
    return record


def encode(record: PlayRecord) -> str:
    """``codec.dumps(record)``, remembered as the decoding of the text it returns."""
    text = codec.dumps(record)
    _remember(text, record)
    return text
