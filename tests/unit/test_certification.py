"""Certifying a pool: chunks regenerated and replayed count exactly; a wrong deal, a missing
chunk or a worker of another generator fail the certificate."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from colour_collector.game import certification
from colour_collector.game.certification import Certificate, Chunk, chunks, verify_chunk
from colour_collector.game.generator import generate
from colour_collector.game.pool_deal import categories
from colour_collector.game.versions import Versions
from pool_support import small_pool


def _certificate(pool_size: int = 40) -> tuple[Certificate, list[Chunk]]:
    pool = small_pool(pool_size)
    dealt = categories(pool.secret, pool.parameters, 0, pool_size)
    counted = Counter(dealt)
    certificate = Certificate(
        pool.parameters, 0, pool_size, [counted[c] for c in range(len(pool.parameters.start))]
    )
    return certificate, list(chunks(pool.secret, 0, dealt, size=15))


def test_a_whole_pool_certifies_and_its_digest_does_not_depend_on_the_order() -> None:
    certificate, parts = _certificate()
    assert [p.start for p in parts] == [0, 15, 30]
    tallies = [verify_chunk(p) for p in parts]
    for tally in reversed(tallies):
        certificate.add(tally)
    assert certificate.problems() == []
    assert certificate.whole
    assert certificate.observed == list(certificate.parameters.start)
    digest = certificate.plays_sha256
    again, _ = _certificate()
    for tally in tallies:
        again.add(tally)
    assert again.plays_sha256 == digest
    assert "secret" not in repr(parts[0]) and parts[0].secret.hex() not in repr(parts[0])


def test_a_play_that_replays_to_another_outcome_is_invalid(monkeypatch: pytest.MonkeyPatch) -> None:
    certificate, parts = _certificate()
    # A generator bug: every play comes out a losing play, whatever its outcome.
    monkeypatch.setattr(certification, "generate", lambda tier, rng: generate(None, rng))
    for part in parts:
        certificate.add(verify_chunk(part))
    winners = sum(certificate.parameters.counts)
    assert certificate.invalid == winners
    assert any(e.endswith("replayed no win") for e in certificate.examples)
    assert any(f"{winners} invalid plays" in p for p in certificate.problems())


def test_a_deal_that_does_not_give_the_counts_fails() -> None:
    certificate, parts = _certificate()
    wrong = bytearray(parts[0].categories)
    position = next(i for i, c in enumerate(wrong) if c == 99)
    wrong[position] = 0  # a losing position dealt a £5 play instead
    for part in (replace(parts[0], categories=bytes(wrong)), *parts[1:]):
        certificate.add(verify_chunk(part))
    problems = certificate.problems()
    assert "'£5': 9 plays, the prize structure has 8" in problems
    assert any(p.startswith("'no win'") for p in problems)


def test_a_missing_chunk_or_a_worker_of_another_generator_fails() -> None:
    certificate, parts = _certificate()
    tallies = [verify_chunk(p) for p in parts]
    certificate.add(tallies[0])
    certificate.add(tallies[1])
    assert any("positions were counted" in p for p in certificate.problems())
    other = Versions(
        "9", tallies[2].versions.game_sha256 if tallies[2].versions else "", "1" * 64, "2" * 64
    )
    tallies[2].versions = other
    certificate.add(tallies[2])
    assert any("another version" in p for p in certificate.problems())
