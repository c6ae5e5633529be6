"""A play is generated with no unit of work open, and bought only with the deal it was made
from (``service.outcomes``): a rare prize's play takes most of a second to build, and a lock
held that long would tell everyone waiting on it what was bought. On in-memory fakes; on the
real databases, ``tests/integration/test_deals_unlocked.py``."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from test_service_plays import PRICE, T0, buy, player, policy
from test_service_pools import POLICY, load

from colour_collector.game import codec
from colour_collector.game.generator import generate
from colour_collector.game.pool import load_pool
from colour_collector.game.pool_deal import categories, outcome_of, play_at, play_seed
from colour_collector.game.record import PlayRecord
from colour_collector.service import purchase as buying
from colour_collector.service import try_plays
from colour_collector.service.errors import InsufficientFundsError, NotAuthenticatedError
from colour_collector.service.outcomes import IndependentSource, ScriptedSource
from colour_collector.service.purchase import PlayPolicy
from fakes import FakeDatabase
from pool_support import small_pool


def watch_generation(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, db: FakeDatabase
) -> list[int]:
    """Make ``module.generate`` record how many units of work are open each time it runs; the
    list it fills."""
    open_at: list[int] = []

    def generating(*args: Any) -> PlayRecord:
        open_at.append(db.open_units)
        return generate(*args)

    monkeypatch.setattr(module, "generate", generating)
    return open_at


def before_the_first_transaction(
    monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[], object]
) -> None:
    """Run ``meanwhile`` once, after the first purchase built its play and before its
    transaction: another purchase racing it."""
    real = buying._buy
    calls: list[int] = []

    def racing(*args: Any, **kwargs: Any) -> buying.Purchase:
        calls.append(1)
        if len(calls) == 1:
            meanwhile()
        return real(*args, **kwargs)

    monkeypatch.setattr(buying, "_buy", racing)


def test_a_purchase_generates_its_play_with_no_unit_of_work_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = FakeDatabase()
    token = player(db)
    open_at = watch_generation(monkeypatch, buying, db)
    bought = buy(db, token, policy(["£1,000,000"]))
    assert bought.created and bought.play.prize_pence == 100_000_000
    assert open_at == [0]
    assert db.open_units == 0


def test_a_try_play_is_generated_with_no_unit_of_work_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = FakeDatabase()
    open_at = watch_generation(monkeypatch, try_plays, db)
    source = ScriptedSource(["£750"], IndependentSource(load_pool()))
    _, play = try_plays.start(db, source, random.Random(1), client="a", per_hour=5, now=T0)
    assert play.prize_pence == 75_000
    assert open_at == [0]


def test_a_request_that_buys_nothing_generates_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    db = FakeDatabase()
    open_at = watch_generation(monkeypatch, buying, db)
    rules = policy()
    with pytest.raises(NotAuthenticatedError):
        buy(db, "no-such-session", rules)
    poor = player(db, "poor@example.com", pence=PRICE - 1)
    with pytest.raises(InsufficientFundsError):
        buy(db, poor, rules)
    assert open_at == []
    token = player(db)
    first = buy(db, token, rules, key="k1")
    assert first.created and len(open_at) == 1
    again = buy(db, token, rules, key="k1")
    resumed = buy(db, token, rules, key="k2")
    assert not again.created and not resumed.created and resumed.resumed
    assert len(open_at) == 1


def test_a_pool_position_taken_meanwhile_is_not_sold_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While the first buyer's play is being generated, a second buyer takes the position it
    expected: the first is sold the next position, with that position's play."""
    db = FakeDatabase()
    pool = small_pool()
    stored = load(db, pool).pool
    first, second = player(db, "first@example.com"), player(db, "second@example.com")
    later: list[buying.Purchase] = []
    open_at = watch_generation(monkeypatch, buying, db)
    before_the_first_transaction(
        monkeypatch, lambda: later.append(buy(db, second, POLICY, rng_seed=2))
    )
    bought = buy(db, first, POLICY).play
    taken = later[0].play
    assert (taken.pool_id, taken.pool_position) == (stored.id, 0)
    assert (bought.pool_id, bought.pool_position) == (stored.id, 1)
    dealt = categories(pool.secret, pool.parameters, 0, 2)
    assert taken.record == codec.dumps(play_at(pool.secret, 0, dealt[0]))
    assert bought.record == codec.dumps(play_at(pool.secret, 1, dealt[1]))
    tier = outcome_of(dealt[1])
    assert bought.tier_index == (None if tier is None else tier.index)
    # the first buyer's play for position 0 (which the second is given: ``play_builds``), then
    # the first's for position 1
    assert open_at == [0, 0]
    assert sum(1 for m in db.state.movements if m.kind.value == "stake") == 2
    assert db.state.pools[stored.id].dealt == 2


def test_a_scripted_outcome_taken_meanwhile_goes_to_one_purchase(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = FakeDatabase()
    rules = PlayPolicy(
        PRICE,
        dt.timedelta(hours=24),
        ScriptedSource(["£750", "£5"], IndependentSource(load_pool())),
    )
    first, second = player(db, "first@example.com"), player(db, "second@example.com")
    later: list[buying.Purchase] = []
    before_the_first_transaction(monkeypatch, lambda: later.append(buy(db, second, rules)))
    bought = buy(db, first, rules).play
    assert later[0].play.prize_pence == 75_000
    assert bought.prize_pence == 500


def test_a_try_takes_a_scripted_outcome_from_the_purchases_instead_of_showing_it() -> None:
    """A test server's script (``OUTCOME_SCRIPT``) is one list: each outcome goes to one play,
    a purchase or a Try, so a free Try cannot preview what the next purchase will win."""
    db = FakeDatabase()
    purchases = ScriptedSource(["£750", None], IndependentSource(load_pool()))
    tries = purchases.sharing(IndependentSource(load_pool()))
    _, tried = try_plays.start(db, tries, random.Random(1), client="a", per_hour=5, now=T0)
    assert tried.prize_pence == 75_000
    rules = PlayPolicy(PRICE, dt.timedelta(hours=24), purchases)
    bought = buy(db, player(db), rules).play
    assert bought.prize_pence == 0 and bought.tier_index is None


def test_a_pool_positions_play_is_built_through_the_shared_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Purchases of one process expecting the same position share its build
    (``play_builds``), named by the position's seed and outcome."""
    db = FakeDatabase()
    pool = small_pool()
    load(db, pool)
    names: list[object] = []
    real = buying.build_once

    def shared(position: Any, build: Callable[[], PlayRecord]) -> PlayRecord:
        names.append(position)
        return real(position, build)

    monkeypatch.setattr(buying, "build_once", shared)
    bought = buy(db, player(db), POLICY).play
    dealt = categories(pool.secret, pool.parameters, 0, 1)
    assert names == [(play_seed(pool.secret, 0), outcome_of(dealt[0]))]
    assert bought.record == codec.dumps(play_at(pool.secret, 0, dealt[0]))
    independent = buy(db, player(db, "other@example.com"), policy()).play
    assert independent.pool_id is None and len(names) == 1  # a drawn play is not shared
