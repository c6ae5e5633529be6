"""The append-only, hash-chained audit log.

Each entry's hash is SHA-256 over a canonical JSON serialisation of
``(seq, created_at, kind, account_id, payload, prev_hash)`` (see :func:`entry_hash`), and each
entry names the hash of the one before, so editing, removing or reordering any entry breaks the
chain from that point. :func:`append` runs inside the caller's unit of work, as its last write:
the store chains the entry after the head in one statement (locking the head, computing the hash
in the database: ``store.audit_log``), so the entry commits (or not) together with the action it
records and two concurrent appends can never both claim the same ``seq``. :func:`check_entry`
recomputes every hash independently, in Python, as a verifier should.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass

from colour_collector.service.clock import utcnow
from colour_collector.service.errors import AuditChainBrokenError
from colour_collector.service.models import AccountId, AuditEntry, AuditKind, NewAuditEntry
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory

GENESIS_HASH = "0" * 64
"""The ``prev_hash`` of the first entry."""

JsonValue = None | bool | int | str | list["JsonValue"] | Mapping[str, "JsonValue"]
"""What a payload may hold. No floats: they do not serialise canonically."""


def canonical_time(at: dt.datetime) -> str:
    """``created_at`` as hashed: UTC, microseconds, ``Z`` suffix (naive means UTC)."""
    if at.tzinfo is None:
        at = at.replace(tzinfo=dt.UTC)
    return at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical_payload(payload: Mapping[str, JsonValue]) -> str:
    """Payload JSON text: sorted keys, no spaces, ASCII only."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def entry_hash(
    *,
    seq: int,
    created_at: dt.datetime,
    kind: str,
    account_id: AccountId | None,
    payload: str,
    prev_hash: str,
) -> str:
    """SHA-256 (hex) over the canonical serialisation of an entry's fields."""
    canonical = json.dumps(
        [seq, canonical_time(created_at), kind, account_id, payload, prev_hash],
        separators=(",", ":"),
        ensure_ascii=True,
    )
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def hashed_fields(
    *, created_at: dt.datetime, kind: str, account_id: AccountId | None, payload: str
) -> str:
    """The middle of :func:`entry_hash`'s canonical text: the fields known before the chain head.

    ``entry_hash(seq=s, prev_hash=p, ...)`` is the SHA-256 of
    ``'[' + str(s) + ',' + hashed_fields(...) + ',"' + p + '"]'``: the store chains an entry
    after the head it locks without knowing how the fields are serialised.
    """
    return json.dumps(
        [canonical_time(created_at), kind, account_id, payload],
        separators=(",", ":"),
        ensure_ascii=True,
    )[1:-1]


def append(
    uow: UnitOfWork,
    kind: AuditKind,
    account_id: AccountId | None,
    payload: Mapping[str, JsonValue],
    *,
    now: dt.datetime | None = None,
) -> AuditEntry:
    """Append an entry inside the caller's unit of work, as its last write (the caller
    commits): the store chains it after the head, which stays locked until the unit of work
    ends."""
    at = (now or utcnow()).astimezone(dt.UTC)
    text = canonical_payload(payload)
    fields = hashed_fields(created_at=at, kind=str(kind), account_id=account_id, payload=text)
    return uow.audit.append(NewAuditEntry(at, str(kind), account_id, text, fields))


@dataclass(frozen=True, slots=True)
class ChainReport:
    """The result of checking the whole chain."""

    entries: int
    """How many entries were checked."""
    last_hash: str
    """Hash of the last entry (the genesis hash when empty)."""


def check_entry(entry: AuditEntry, expected_seq: int, prev_hash: str) -> None:
    """Raise :class:`AuditChainBrokenError` if ``entry`` does not continue the chain."""
    if entry.seq != expected_seq:
        raise AuditChainBrokenError(
            expected_seq, f"missing entry: next stored entry has seq={entry.seq}"
        )
    if entry.prev_hash != prev_hash:
        raise AuditChainBrokenError(
            entry.seq,
            f"prev_hash {entry.prev_hash!r} does not match the previous entry's hash {prev_hash!r}",
        )
    try:
        json.loads(entry.payload)
    except ValueError:
        raise AuditChainBrokenError(entry.seq, "payload is not valid JSON") from None
    recomputed = entry_hash(
        seq=entry.seq,
        created_at=entry.created_at,
        kind=entry.kind,
        account_id=entry.account_id,
        payload=entry.payload,
        prev_hash=entry.prev_hash,
    )
    if recomputed != entry.hash:
        raise AuditChainBrokenError(
            entry.seq,
            f"stored hash {entry.hash!r} does not match the recomputed hash {recomputed!r}"
            " (the entry was altered)",
        )


def verify_chain(uow_factory: UnitOfWorkFactory, *, batch: int = 1000) -> ChainReport:
    """Check every entry in order, that they end exactly at the chain head, and that nothing is
    stored after it; raise :class:`AuditChainBrokenError` at the first break.

    Entries are read in batches, each in a short unit of work of its own (an entry never changes
    once written), so a server may go on appending meanwhile: when the head has moved on by the
    end, the check goes on to the new head.
    """
    expected, prev_hash = 1, GENESIS_HASH
    with uow_factory() as uow:
        head = uow.audit.head()
    while True:
        while expected <= head.seq:
            with uow_factory() as uow:
                entries = uow.audit.entries(
                    after_seq=expected - 1, limit=min(batch, head.seq - expected + 1)
                )
            if not entries:
                break
            for entry in entries:
                check_entry(entry, expected, prev_hash)
                expected, prev_hash = expected + 1, entry.hash
        count = expected - 1
        if head.seq != count or head.hash != prev_hash:
            raise AuditChainBrokenError(
                min(head.seq, count) + 1,
                f"chain head says seq={head.seq} hash={head.hash!r} but the log ends at"
                f" seq={count} hash={prev_hash!r} (entries were removed or added)",
            )
        with uow_factory() as uow:
            last = uow.audit.last_seq()  # read before the head: an append moves both at once
            latest = uow.audit.head()
        if latest.seq == head.seq:
            if last > head.seq:
                raise AuditChainBrokenError(
                    head.seq + 1,
                    f"entries up to seq={last} are stored after the chain head seq={head.seq}"
                    " (entries were added outside the chain)",
                )
            return ChainReport(entries=count, last_hash=prev_hash)
        head = latest  # appended meanwhile: check on to the new head
