"""Stored play records, decoded once per process.

Every step of a play reads the same stored record text and decodes it (a JSON parse and a check
of every field). Decoding is a pure function of the text and records are immutable, so a memo
keyed by the text itself is always right: a changed record is a different text. A record this
process encodes is remembered with its text, so the first step after a purchase does not decode
what the purchase just encoded. The memo holds nothing else: every request reads the play it
acts on from the database.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import replace

from colour_collector.game import codec
from colour_collector.game.record import BonusRound, PlayRecord

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


def as_sold(record: PlayRecord) -> PlayRecord:
    """``record`` as it was sold: without the player's Bonus Game picks and reel numbers."""
    return PlayRecord(
        record.grid,
        tuple(
            replace(step, pick=None, number=None) if isinstance(step, BonusRound) else step
            for step in record.steps
        ),
        record.prize_grid,
        record.version,
    )


def record_sha256(text: str) -> str:
    """SHA-256 (hex) of a record's text: the ``record_sha256`` of the audit log's entries."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sold_sha256(text: str) -> str:
    """SHA-256 of the stored play's record as it was sold: the ``record_sha256`` of its purchase
    in the audit log, and of the play its pool's secret regenerates."""
    return record_sha256(codec.dumps(as_sold(decode(text))))
