"""The audit hash in two pieces (what the store chains in SQL) equals the hash over all fields
(what the verifier recomputes in Python)."""

from __future__ import annotations

import datetime as dt
import hashlib

from hypothesis import given
from hypothesis import strategies as st

from colour_collector.service import audit

texts = st.text(max_size=40)
times = st.datetimes(
    min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1), timezones=st.just(dt.UTC)
)


@given(
    seq=st.integers(min_value=1, max_value=2**62),
    created_at=times,
    kind=texts,
    account_id=st.none() | st.integers(min_value=1, max_value=2**31 - 1),
    payload=texts,
    prev_hash=st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
)
def test_chained_text_matches_entry_hash(
    *, seq: int, created_at: dt.datetime, kind: str, account_id: int | None, payload: str,
    prev_hash: str,
) -> None:  # fmt: skip
    fields = audit.hashed_fields(
        created_at=created_at, kind=kind, account_id=account_id, payload=payload
    )
    chained = f'[{seq},{fields},"{prev_hash}"]'
    assert chained.isascii()
    assert hashlib.sha256(chained.encode("ascii")).hexdigest() == audit.entry_hash(
        seq=seq, created_at=created_at, kind=kind, account_id=account_id, payload=payload,
        prev_hash=prev_hash,
    )  # fmt: skip
