"""Audit checkpoints kept as files in a directory of the operator's choosing (another disk, a
mount of another machine, a directory a write-once store syncs): ``checkpoint-<seq>-<time>.json``.
Implements ``service.ports.CheckpointStore``."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from pathlib import Path

from colour_collector.service.audit import canonical_time
from colour_collector.service.errors import AuditChainBrokenError
from colour_collector.service.models import AuditCheckpoint
from colour_collector.whole_files import write_whole


class CheckpointDirectory:
    """Checkpoints as JSON files in ``directory``, which must exist: it is not made, so that a
    mount of another machine that is not mounted is not quietly replaced by a local folder."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def add(self, checkpoint: AuditCheckpoint) -> None:
        stamp = checkpoint.taken_at.strftime("%Y%m%dT%H%M%S%fZ")
        path = self.directory / f"checkpoint-{checkpoint.seq:012d}-{stamp}.json"
        body = {
            "seq": checkpoint.seq,
            "hash": checkpoint.hash,
            "taken_at": canonical_time(checkpoint.taken_at),
            "signature": checkpoint.signature,
        }
        write_whole(path, (json.dumps(body, indent=2) + "\n").encode("utf-8"))

    def all(self) -> Sequence[AuditCheckpoint]:
        found = []
        for path in sorted(self.directory.glob("checkpoint-*.json")):
            try:
                body = json.loads(path.read_text(encoding="utf-8"))
                found.append(
                    AuditCheckpoint(
                        seq=int(body["seq"]),
                        hash=str(body["hash"]),
                        taken_at=dt.datetime.fromisoformat(body["taken_at"]),
                        signature=str(body["signature"]),
                    )
                )
            except (ValueError, KeyError, TypeError) as error:
                raise AuditChainBrokenError(
                    None, f"checkpoint file {path.name} cannot be read ({error}): it was altered"
                ) from None
        return sorted(found, key=lambda c: (c.seq, c.taken_at))
