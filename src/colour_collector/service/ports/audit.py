"""The audit log (a hash chain), the results of verifying it, and its signed checkpoints (kept
outside the database)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from colour_collector.service.models import AuditCheckpoint, AuditEntry, ChainHead, NewAuditEntry
from colour_collector.service.protection_models import AuditCheck


class AuditLog(Protocol):
    """The append-only, hash-chained audit log and its head (the last entry)."""

    def head(self) -> ChainHead:
        """The chain head."""
        ...

    def append(self, entry: NewAuditEntry) -> AuditEntry:
        """Chain ``entry`` after the head and store it as the new head: ``seq`` one more than
        the head's, ``prev_hash`` the head's hash, ``hash`` the SHA-256 (hex) of
        ``'[' + str(seq) + ',' + entry.hashed + ',"' + prev_hash + '"]'`` (which
        ``service.audit.entry_hash`` recomputes from the stored fields). The head stays locked
        until the unit of work ends: appenders serialise here, the last lock a writer takes.
        Return the stored entry."""
        ...

    def entries(self, after_seq: int = 0, limit: int = 1000) -> Sequence[AuditEntry]:
        """Entries with ``seq > after_seq`` in order, at most ``limit``."""
        ...

    def entries_of(self, kind: str, after_seq: int = 0, limit: int = 1000) -> Sequence[AuditEntry]:
        """As :meth:`entries`, only those of this ``kind``."""
        ...

    def last_seq(self) -> int:
        """The highest ``seq`` stored (0 when there is none)."""
        ...


class AuditChecks(Protocol):
    """Results of verifying the audit chain."""

    def add(self, check: AuditCheck) -> None:
        """Store a result."""
        ...

    def last(self) -> AuditCheck | None:
        """The latest result."""
        ...


class CheckpointStore(Protocol):
    """Where checkpoints are kept (outside the database)."""

    def add(self, checkpoint: AuditCheckpoint) -> None:
        """Keep ``checkpoint``."""
        ...

    def all(self) -> Sequence[AuditCheckpoint]:
        """Every checkpoint kept, oldest head first."""
        ...
