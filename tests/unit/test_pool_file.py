"""The pool file: written and read back whole, strict about its fields, and an altered file
(secret, counts or commitment) is caught."""

from __future__ import annotations

import json

import pytest

from colour_collector.game.pool_file import PoolFileError, dumps, loads
from pool_support import SMALL, parameters, small_pool


def test_a_pool_file_round_trips_and_checks() -> None:
    pool = small_pool()
    text = dumps(pool)
    again = loads(text)
    assert again == pool
    again.check()
    assert len(text) < 8_000  # derived, not stored: a few kilobytes
    assert pool.secret.hex() not in repr(pool)  # a repr ends up in logs
    assert pool.commitment in repr(pool)


def _altered(**changes: object) -> str:
    data = json.loads(dumps(small_pool()))
    data.update(changes)
    return json.dumps(data)


def test_an_altered_pool_file_is_caught() -> None:
    pool = small_pool()
    data = json.loads(dumps(pool))
    other_secret = ("1" if data["secret"][0] != "1" else "2") + data["secret"][1:]
    more_winners = json.loads(dumps(small_pool()))["parameters"]
    more_winners["counts"][0][1] += 1
    more_winners["no_win"] -= 1
    for change in (
        {"secret": other_secret},
        {"parameters": more_winners},
        {"commitment": "0" * 64},
    ):
        altered = loads(json.dumps({**data, **change}))
        with pytest.raises(PoolFileError, match="the file was altered"):
            altered.check()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other"}, "field 'format'"),
        ({"version": 2}, "field 'version'"),
        ({"version": 1.0}, "field 'version'"),
        ({"created_at": "yesterday"}, "created_at"),
        ({"secret": "xyz"}, "field 'secret'"),
        ({"secret": 5}, "field 'secret'"),
        ({"commitment": "ABC"}, "field 'commitment'"),
        ({"parameters": {"size": 40}}, "field 'parameters'"),
        ({"extra": True}, "unknown field"),
    ],
)
def test_a_bad_pool_file_is_refused_naming_the_field(
    change: dict[str, object], message: str
) -> None:
    with pytest.raises(PoolFileError, match=message):
        loads(_altered(**change))


def test_what_is_not_a_pool_file_is_refused() -> None:
    for text, message in [
        ("", "not valid JSON"),
        ("[]", "JSON object"),
        ("{}", "lacks"),
        (" " * (2 << 20), "a few kilobytes"),
        ('{"format": "colour-collector-pool", "format": "x"}', "gives the name 'format' twice"),
    ]:
        with pytest.raises(PoolFileError, match=message):
            loads(text)
    assert parameters(40, SMALL).size == 40
