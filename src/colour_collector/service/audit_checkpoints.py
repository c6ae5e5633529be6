"""Signed checkpoints of the audit chain's head, kept outside the database.

The chain alone cannot tell a log that was wiped, or cut back and its head moved back with it,
from a log that was always that short: whoever can write the database can do either. A
checkpoint records the head (``seq`` and hash) at a moment, signed with HMAC-SHA256 under a key
the database never holds (a file of the operator's), and is written where the operator chooses
(a directory: another disk, a mount of another machine, a write-once bucket's sync). Verifying
the chain then also checks that every checkpoint is genuine and that the log still holds, at
each checkpoint's ``seq``, the entry with that hash: an entry removed, a head moved back or a
chain rewritten since any checkpoint is found.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
from collections.abc import Sequence
from pathlib import Path

from colour_collector.service.audit import canonical_time
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import AuditChainBrokenError, InvalidInputError
from colour_collector.service.models import AuditCheckpoint
from colour_collector.service.ports import CheckpointStore, UnitOfWorkFactory

MIN_KEY_BYTES = 32
"""A checkpoint key has at least this many bytes (256 bits)."""


def signed_text(seq: int, hash_: str, taken_at: dt.datetime) -> bytes:
    """What a checkpoint's signature covers: ``{"hash":...,"seq":...,"taken_at":...}``, keys
    sorted, no spaces, ASCII."""
    fields = {"hash": hash_, "seq": seq, "taken_at": canonical_time(taken_at)}
    return json.dumps(fields, sort_keys=True, separators=(",", ":")).encode("ascii")


def signature(key: bytes, seq: int, hash_: str, taken_at: dt.datetime) -> str:
    """The signature of a checkpoint of ``(seq, hash_)`` taken at ``taken_at``."""
    return hmac.new(key, signed_text(seq, hash_, taken_at), hashlib.sha256).hexdigest()


def read_key(path: Path) -> bytes:
    """The checkpoint key in the file ``path``; :class:`InvalidInputError` if it is missing or
    too short to be a key."""
    try:
        key = path.read_bytes().strip()
    except OSError as error:
        raise InvalidInputError(
            f"cannot read the checkpoint key file {str(path)!r}: {error.strerror}"
        ) from None
    if len(key) < MIN_KEY_BYTES:
        raise InvalidInputError(
            f"the checkpoint key file {str(path)!r} holds {len(key)} bytes; a key has at least"
            f" {MIN_KEY_BYTES} (make one with: head -c 48 /dev/urandom | base64 > FILE)"
        )
    return key


def take(
    factory: UnitOfWorkFactory,
    store: CheckpointStore,
    key: bytes,
    *,
    now: dt.datetime | None = None,
) -> AuditCheckpoint:
    """Sign the chain's head as it is now and keep the checkpoint."""
    at = (now or utcnow()).astimezone(dt.UTC)
    with factory() as uow:
        head = uow.audit.head()
    checkpoint = AuditCheckpoint(head.seq, head.hash, at, signature(key, head.seq, head.hash, at))
    store.add(checkpoint)
    return checkpoint


def check(factory: UnitOfWorkFactory, checkpoints: Sequence[AuditCheckpoint], key: bytes) -> int:
    """Raise :class:`AuditChainBrokenError` unless every checkpoint is signed with ``key`` and
    the log still holds, at each one's ``seq``, the entry with its hash (and the head is at or
    past the last of them); how many checkpoints were checked."""
    for checkpoint in checkpoints:
        expected = signature(key, checkpoint.seq, checkpoint.hash, checkpoint.taken_at)
        if not hmac.compare_digest(expected, checkpoint.signature):
            raise AuditChainBrokenError(
                checkpoint.seq,
                f"the checkpoint of seq={checkpoint.seq} taken at"
                f" {canonical_time(checkpoint.taken_at)} is not signed with this key (forged or"
                " altered)",
            )
    with factory() as uow:
        head = uow.audit.head()
        for checkpoint in checkpoints:
            if checkpoint.seq == 0:
                continue
            found = uow.audit.entries(after_seq=checkpoint.seq - 1, limit=1)
            stored = found[0] if found and found[0].seq == checkpoint.seq else None
            if stored is None or stored.hash != checkpoint.hash:
                what = "is missing" if stored is None else f"has hash {stored.hash!r}"
                raise AuditChainBrokenError(
                    checkpoint.seq,
                    f"the checkpoint taken at {canonical_time(checkpoint.taken_at)} recorded"
                    f" entry seq={checkpoint.seq} with hash {checkpoint.hash!r}; the log's entry"
                    f" {what} (entries were removed or the chain rewritten since)",
                )
    last = max((c.seq for c in checkpoints), default=0)
    if head.seq < last:
        raise AuditChainBrokenError(
            head.seq + 1,
            f"the chain head is at seq={head.seq} but a checkpoint recorded seq={last}"
            " (the head was moved back)",
        )
    return len(checkpoints)
