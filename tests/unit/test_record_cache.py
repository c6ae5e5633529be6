"""The per-process cache of decoded play records, and which outcome sources draw outside the
purchase transaction."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from hypothesis import given, settings

from colour_collector.game.codec import dumps, loads
from colour_collector.game.errors import RecordFormatError
from colour_collector.game.generator import generate
from colour_collector.game.pool import load_pool
from colour_collector.game.prize_table import load_tiers
from colour_collector.game.record import PlayRecord
from colour_collector.service.models import AccountId, Pence
from colour_collector.service.outcomes import FinitePoolSource, IndependentSource, ScriptedSource
from colour_collector.service.play_models import PlayStatus, StoredPlay
from colour_collector.service.record_cache import RecordCache
from strategies import records


@settings(max_examples=30, deadline=None)
@given(records())
def test_decode_is_codec_loads(record: PlayRecord) -> None:
    cache = RecordCache(size=4)
    text = dumps(record)
    assert cache.decode(text) == loads(text) == record
    assert cache.decode(text) is cache.decode(text)  # the second time from the cache


def _in_progress(number: str, revealed: int, record: str) -> StoredPlay:
    at = dt.datetime(2026, 12, 3, 9, 0, tzinfo=dt.UTC)
    return StoredPlay(
        id=1, play_number=number, account_id=AccountId(7), status=PlayStatus.IN_PROGRESS,
        record=record, revealed=revealed, steps=9, tier_index=None, prize_pence=Pence(0),
        price_pence=Pence(500), idempotency_key=None, balance_before_pence=Pence(1000),
        balance_after_pence=None, purchased_at=at, finish_by=at, finished_at=None,
    )  # fmt: skip


def test_latest_state_of_a_play_is_kept_by_play_number() -> None:
    cache = RecordCache(size=2)
    assert cache.latest("CC-A") is None
    a0, b0, a1, c0 = (
        _in_progress("CC-A", 0, "a0"),
        _in_progress("CC-B", 0, "b0"),
        _in_progress("CC-A", 1, "a1"),
        _in_progress("CC-C", 0, "c0"),
    )
    cache.note(a0)
    cache.note(b0)
    cache.note(a1)  # moved on: replaces, and is now the most recent
    assert cache.latest("CC-A") is a1
    cache.note(c0)  # evicts CC-B, the least recently noted
    assert cache.latest("CC-B") is None
    assert (cache.latest("CC-A"), cache.latest("CC-C")) == (a1, c0)


def test_least_recently_used_record_goes_first() -> None:
    rng = random.Random(3)
    texts = [dumps(generate(None, rng)) for _ in range(3)]
    cache = RecordCache(size=2)
    first = cache.decode(texts[0])
    cache.decode(texts[1])
    assert cache.decode(texts[0]) is first  # texts[0] is now the most recent
    cache.decode(texts[2])  # evicts texts[1]
    assert len(cache) == 2
    assert cache.decode(texts[0]) is first


def test_remembered_record_is_returned_for_its_text() -> None:
    record = generate(load_tiers()[0], random.Random(4))
    text = dumps(record)
    cache = RecordCache()
    cache.remember(text, record)
    assert cache.decode(text) is record


def test_bad_text_is_refused_and_not_kept() -> None:
    cache = RecordCache()
    with pytest.raises(RecordFormatError):
        cache.decode("{not json")
    assert len(cache) == 0


def test_cache_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RecordCache(size=0)


def test_only_independent_draws_happen_outside_the_transaction() -> None:
    pool = load_pool()
    independent = IndependentSource(pool)
    assert independent.needs_transaction is False
    assert FinitePoolSource(pool).needs_transaction is True
    assert ScriptedSource([None], independent).needs_transaction is True
    with pytest.raises(ValueError, match="unit of work"):
        FinitePoolSource(pool).draw(None, random.Random(1))
