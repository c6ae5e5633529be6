"""Decoded play records, kept by their stored text.

Every step of a play reads the same stored record text and decodes it (a JSON parse and a check
of every field: the largest piece of a step's own work). Decoding is a pure function of the
text and records are immutable, so a small cache keyed by the text itself is always right: a
changed record is a different text, and a text never decodes to two records.

The cache also keeps, by Play Number, the last state this process stored of a play in progress
(at its purchase, or with a step: :meth:`RecordCache.latest`), so that a step need not read the
play again. A step then writes only if the stored play is still in progress at the kept
``revealed`` count, and that is always right too: while a play is in progress, only its record
and ``revealed`` change, the record only in the same update that moves ``revealed`` on (a bonus
pick), and ``revealed`` only ever grows, under the play's lock, so a Play Number and a
``revealed`` count of a play in progress name exactly one stored play. Another process moving
the play on moves ``revealed`` past what this one kept, and the play is read again. (So whatever
changes a play in progress outside the server, an operator's edit or a restored backup, must
move ``revealed`` too, or be followed by a restart of the server processes.)
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from colour_collector.game import codec
from colour_collector.game.record import PlayRecord
from colour_collector.game.view import Continuations
from colour_collector.service.play_models import StoredPlay

CACHE_SIZE = 1024
"""Records kept per process: well above the plays in progress at one time on one server."""


class RecordCache:
    """A thread-safe least-recently-used map from record text to the decoded record."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        if size < 1:
            raise ValueError(f"cache size must be at least 1, not {size!r}")
        self._size = size
        self._records: OrderedDict[str, PlayRecord] = OrderedDict()
        self._latest: OrderedDict[str, StoredPlay] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._records)

    def decode(self, text: str) -> PlayRecord:
        """``codec.loads(text)``, from the cache when the same text was seen."""
        with self._lock:
            found = self._records.get(text)
            if found is not None:
                self._records.move_to_end(text)
                return found
        record = codec.loads(text)
        self.remember(text, record)
        return record

    def remember(self, text: str, record: PlayRecord) -> None:
        """Keep ``record`` as the decoding of ``text`` (the caller encoded it from ``record``)."""
        with self._lock:
            self._records[text] = record
            self._records.move_to_end(text)
            while len(self._records) > self._size:
                self._records.popitem(last=False)

    def note(self, play: StoredPlay) -> None:
        """Keep ``play``, just stored, as the latest state of a play in progress."""
        with self._lock:
            self._latest[play.play_number] = play
            self._latest.move_to_end(play.play_number)
            while len(self._latest) > self._size:
                self._latest.popitem(last=False)

    def latest(self, play_number: str) -> StoredPlay | None:
        """The play last noted with this Play Number, if kept."""
        with self._lock:
            return self._latest.get(play_number)


RECORDS = RecordCache()
"""The process's cache."""

CONTINUATIONS = Continuations(CACHE_SIZE)
"""Rules states after the last step shown of recent plays (``game.view.step_and_board``), kept
by the records this cache hands out."""
