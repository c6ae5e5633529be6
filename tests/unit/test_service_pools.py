"""Prize pools in the use cases, on in-memory fakes: load (sealed, refused when altered or of
another structure), sell in order from the pool on sale, roll to the next pool, sold out, close
and publish, regenerate a sold play from the published secret."""

from __future__ import annotations

import datetime as dt
import logging
import random
from collections import Counter
from dataclasses import replace

import pytest
from test_service_plays import PRICE, T0, player, reveal_all

from colour_collector.game import codec
from colour_collector.game.pool_deal import categories, outcome_of, play_at, remaining_at
from colour_collector.game.pool_file import PoolFile
from colour_collector.game.pool_parameters import PoolParameters
from colour_collector.game.prize_table import load_tiers
from colour_collector.game.versions import Versions
from colour_collector.service import audit, pool_views, pools, records, settle
from colour_collector.service import purchase as buying
from colour_collector.service.errors import (
    PoolExhaustedServiceError,
    PoolNotClosedError,
    PoolNotFoundError,
    PoolRefusedError,
    PoolSecretError,
    PoolUnavailableError,
)
from colour_collector.service.models import AuditKind
from colour_collector.service.outcomes import PoolSource
from colour_collector.service.play_models import PlayStatus
from colour_collector.service.pool_models import PoolStatus
from colour_collector.service.purchase import PlayPolicy
from fakes import FakeDatabase
from pool_support import expected_outcomes, small_pool

KEY = pools.seal_key("the server's secret key, for these tests")
SALE = pools.Sale(KEY, published_only=False)
PRODUCTION = pools.Sale(KEY, published_only=True)
POLICY = PlayPolicy(PRICE, dt.timedelta(hours=24), PoolSource(SALE))


def load(db: FakeDatabase, pool: PoolFile, *, published_only: bool = False) -> pools.Loaded:
    return pools.load(db, pool, KEY, published_only=published_only, now=T0)


def buy_one(db: FakeDatabase, n: int) -> buying.Purchase:
    return buy_with_token(db, n)[1]


def buy_with_token(db: FakeDatabase, n: int) -> tuple[str, buying.Purchase]:
    token = player(db, f"buyer{n}@example.com", pence=PRICE)
    return token, buying.purchase(
        db, token, POLICY, confirm=True, idempotency_key=None, rng=random.Random(n), now=T0
    )


def test_a_loaded_pool_keeps_its_secret_sealed() -> None:
    db = FakeDatabase()
    pool = small_pool()
    loaded = load(db, pool)
    assert loaded.created and loaded.ahead == 0
    stored = loaded.pool
    assert stored.sealed_secret != pool.secret.hex()
    assert pool.secret.hex() not in repr(db.state)
    assert stored.secret is None and stored.dealt == 0
    assert pools.unseal(stored, pool.parameters, KEY) == pool.secret
    with pytest.raises(PoolSecretError, match="cannot be unsealed"):
        pools.unseal(stored, pool.parameters, pools.seal_key("another key"))
    second = load(db, small_pool())
    assert second.ahead == 1
    entries = [e for e in db.state.audit if e.kind == AuditKind.POOL_LOADED]
    assert len(entries) == 2 and pool.commitment in entries[0].payload
    assert pool.secret.hex() not in "".join(e.payload for e in db.state.audit)


def test_loading_again_seals_with_the_key_in_use_and_changes_nothing_else() -> None:
    db = FakeDatabase()
    pool = small_pool()
    first = pools.load(db, pool, pools.seal_key("old key"), published_only=False, now=T0)
    again = load(db, pool)
    assert not again.created and again.pool.id == first.pool.id
    stored = db.state.pools[first.pool.id]
    assert pools.unseal(stored, pool.parameters, KEY) == pool.secret
    assert len(db.state.pools) == 1


def test_loading_again_counts_only_the_pools_loaded_before_it_as_ahead() -> None:
    db = FakeDatabase()
    first, second, third = small_pool(), small_pool(), small_pool()
    assert [load(db, p).ahead for p in (first, second, third)] == [0, 1, 2]
    # the pool on sale is on sale now, whatever is queued behind it
    assert [load(db, p).ahead for p in (first, second, third)] == [0, 1, 2]
    for n in range(40):  # sell the first out: the second goes on sale
        buy_one(db, n)
    assert [load(db, p).ahead for p in (first, second, third)] == [0, 0, 1]
    assert load(db, first).pool.sold_out


def test_an_altered_pool_or_another_structure_or_generator_is_refused() -> None:
    db = FakeDatabase()
    pool = small_pool()
    with pytest.raises(PoolRefusedError, match="altered"):
        load(db, replace(pool, secret=bytes(32)))
    with pytest.raises(PoolRefusedError, match="published prize structure"):
        load(db, pool, published_only=True)
    versions = pool.parameters.versions
    other = Versions("9.9", versions.game_sha256, "0" * 64, versions.generator_sample_sha256)
    stale = PoolFile.build(PoolParameters(40, pool.parameters.counts, other), T0)
    with pytest.raises(PoolRefusedError, match="another version of the game"):
        load(db, stale)
    assert db.state.pools == {}
    published = PoolFile.build(PoolParameters.published(), T0)
    assert load(db, published, published_only=True).created


def test_a_pool_this_server_refuses_to_sell_is_not_shown_on_sale() -> None:
    """A pool loaded before the game changed version (or, in production, of a test structure)
    answers purchases 503: the public is not told it is on sale."""
    db = FakeDatabase()
    pool = small_pool()
    stored = load(db, pool).pool
    assert pool_views.current(db, SALE).on_sale is not None
    assert pool_views.current(db, PRODUCTION) == pool_views.Current(None, 0)
    assert pool_views.view(db, stored.id, PRODUCTION).status is PoolStatus.QUEUED
    versions = pool.parameters.versions
    other = Versions("9.9", versions.game_sha256, "0" * 64, versions.generator_sample_sha256)
    stale = PoolParameters(40, pool.parameters.counts, other)
    db.state.pools[stored.id] = replace(db.state.pools[stored.id], parameters=stale.text)
    assert pool_views.current(db, SALE) == pool_views.Current(None, 0)
    assert [v.status for v in pool_views.newest(db, SALE)] == [PoolStatus.QUEUED]
    assert pool_views.newest(db, None)[0].status is PoolStatus.QUEUED


def test_purchases_take_the_positions_in_order_and_the_plays_are_the_pools() -> None:
    db = FakeDatabase()
    pool = small_pool()
    stored = load(db, pool).pool
    dealt = categories(pool.secret, pool.parameters, 0, pool.parameters.size)
    for n in range(5):
        bought = buy_one(db, n).play
        assert (bought.pool_id, bought.pool_position) == (stored.id, n)
        tier = outcome_of(dealt[n])
        assert bought.tier_index == (None if tier is None else tier.index)
        assert bought.record == codec.dumps(play_at(pool.secret, n, dealt[n]))
    on_sale = pool_views.current(db, SALE).on_sale
    assert on_sale is not None and on_sale.pool.dealt == 5
    assert on_sale.status is PoolStatus.ON_SALE
    purchases = [e for e in db.state.audit if e.kind == AuditKind.PURCHASE]
    assert '"pool":1,"position":4' in purchases[-1].payload


def test_a_sold_out_pool_rolls_to_the_next_then_purchases_are_refused() -> None:
    db = FakeDatabase()
    first, second = small_pool(20, {"£5": 4}), small_pool(15, {"£7": 2, "£1,000": 1})
    load(db, first)
    load(db, second)
    sold = [buy_one(db, n).play for n in range(35)]
    assert [(p.pool_id, p.pool_position) for p in sold] == [(1, k) for k in range(20)] + [
        (2, k) for k in range(15)
    ]
    names = Counter(
        (p.pool_id, None if p.tier_index is None else load_tiers()[p.tier_index].name) for p in sold
    )
    assert {n: c for (pid, n), c in names.items() if pid == 1} == expected_outcomes(first)
    assert {n: c for (pid, n), c in names.items() if pid == 2} == expected_outcomes(second)
    assert pool_views.current(db, SALE) == pool_views.Current(None, 0)
    token = player(db, "late@example.com", pence=PRICE)
    assert isinstance(buying.quote(db, token, POLICY, now=T0).refusal, PoolExhaustedServiceError)
    with pytest.raises(PoolExhaustedServiceError, match="sold out"):
        buying.purchase(
            db, token, POLICY, confirm=True, idempotency_key=None, rng=random.Random(1), now=T0
        )
    late = next(a.account.id for a in db.state.accounts.values() if a.account.email[0] == "l")
    with db() as uow:
        assert uow.wallets.balance(late) == PRICE  # nothing debited
    views = pool_views.newest(db, SALE)
    assert [v.status for v in views] == [PoolStatus.SOLD_OUT, PoolStatus.SOLD_OUT]
    assert all(v.pool.sold_out_at == T0 for v in views)


def test_a_pool_that_cannot_be_unsealed_sells_nothing(caplog: pytest.LogCaptureFixture) -> None:
    db = FakeDatabase()
    pools.load(db, small_pool(), pools.seal_key("another key"), published_only=False, now=T0)
    token = player(db, pence=PRICE)
    with caplog.at_level(logging.ERROR, logger="colour_collector.service.outcomes"):
        quoted = buying.quote(db, token, POLICY, now=T0).refusal
    assert isinstance(quoted, PoolUnavailableError) and not caplog.records
    with (
        caplog.at_level(logging.ERROR, logger="colour_collector.service.outcomes"),
        pytest.raises(PoolUnavailableError) as refused,
    ):
        buying.purchase(
            db, token, POLICY, confirm=True, idempotency_key=None, rng=random.Random(1), now=T0
        )
    # The player is told to come back; the operator's log says why and what to do.
    assert str(refused.value) == "the prize pool cannot be used just now; try again later"
    assert "cannot be unsealed" in caplog.text and "pool load" in caplog.text
    assert db.state.pools[1].dealt == 0
    # The public is not told it is on sale (a purchase would be refused); the console says why.
    assert pool_views.current(db, SALE) == pool_views.Current(None, 0)
    assert pool_views.view(db, 1, SALE).status is PoolStatus.QUEUED
    assert [v.status for v in pool_views.newest(db, SALE)] == [PoolStatus.QUEUED]
    sealing = pools.Sale(pools.seal_key("another key"), published_only=False)
    assert pool_views.current(db, sealing).on_sale is not None  # the key it was sealed with
    with db() as uow:
        assert uow.wallets.balance(db.state.accounts[1].account.id) == PRICE


def test_a_production_server_sells_no_pool_of_another_structure(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Only ``pool load`` run with the production settings refused such a pool; the server now
    refuses to sell from one, however it was loaded, and the console says why."""
    db = FakeDatabase()
    load(db, small_pool())  # loaded as a test server would
    token = player(db, pence=PRICE)
    production = PlayPolicy(PRICE, dt.timedelta(hours=24), PoolSource(PRODUCTION))
    with (
        caplog.at_level(logging.ERROR, logger="colour_collector.service.outcomes"),
        pytest.raises(PoolUnavailableError, match="try again later"),
    ):
        buying.purchase(
            db, token, production, confirm=True, idempotency_key=None, rng=random.Random(1), now=T0
        )
    assert "does not have the published prize structure" in caplog.text
    assert "pool close 1 --withdraw" in caplog.text
    assert db.state.pools[1].dealt == 0 and not db.state.plays
    with db() as uow:
        assert uow.wallets.balance(db.state.accounts[1].account.id) == PRICE
    problem = pools.sale_problem(db, PRODUCTION)
    assert problem is not None and "published prize structure" in problem
    assert pools.sale_problem(db, SALE) is None
    assert buy_one(db, 1).play.pool_position == 0  # a test server sells it


def test_the_console_is_told_why_nothing_is_sold_from_the_pools() -> None:
    db = FakeDatabase()
    assert pools.sale_problem(db, SALE) is None  # none loaded
    pools.load(db, small_pool(), pools.seal_key("another key"), published_only=False, now=T0)
    load(db, small_pool(10, {"£5": 2}))
    assert pools.sale_problem(db, None) == (
        "2 prize pools loaded and not sold out, but this server draws every play independently"
        " (COLOUR_COLLECTOR_DRAW_MODE is not pool): nothing is sold from them"
    )
    problem = pools.sale_problem(db, SALE)
    assert problem is not None
    assert problem.startswith("no play can be sold: pool 1's secret cannot be unsealed")
    pools.close(db, 1, pools.seal_key("another key"), withdraw=True, now=T0)
    assert pools.sale_problem(db, SALE) is None
    # A pool queued behind the one on sale is told of before its turn comes.
    third = small_pool(12, {"£5": 2})
    loaded = pools.load(db, third, pools.seal_key("another key"), published_only=False, now=T0)
    assert loaded.other_keys == (2,)  # pool 2 was sealed with KEY
    problem = pools.sale_problem(db, SALE)
    assert problem is not None
    assert problem.startswith(
        "pool 3, queued, will not sell when its turn comes: pool 3's secret cannot be unsealed"
    )
    assert load(db, third).other_keys == (3,)  # sealed again with KEY: told it was not before
    assert pools.sale_problem(db, SALE) is None


def test_top_prizes_left_are_shown_most_valuable_first() -> None:
    db = FakeDatabase()
    load(db, small_pool(pool_views.FIGURES_MIN_OPEN))
    on_sale = pool_views.current(db, SALE).on_sale
    assert on_sale is not None
    tops = [(t.tier.name, t.total, t.left) for t in on_sale.top_prizes]
    assert tops == [("£1,000,000", 1, 1), ("£2,000", 1, 1)]


def test_top_prizes_left_are_withheld_near_the_end_of_a_pool() -> None:
    """The figure counts the top prizes among the open plays (not sold, or not finished): over
    fewer than FIGURES_MIN_OPEN of them it would tell something of their prizes, to a holder
    (with the pool sold out, all of theirs) or to whoever buys next (plays are sold in the order
    of their positions), so it is withheld until none is open."""
    db = FakeDatabase()
    load(db, small_pool(2, {"£1,000": 1}))
    assert [t.left for t in pool_views.view(db, 1, SALE).top_prizes] == [None]
    token, bought = buy_with_token(db, 0)
    shown = pool_views.view(db, 1, SALE)
    assert shown.figures_withheld and [t.left for t in shown.top_prizes] == [None]
    reveal_all(db, token, bought.play.play_number)
    settle.finish(db, token, bought.play.play_number, now=T0)
    # Nothing in progress, one play left to sell: the figure would be that play's prize.
    assert [t.left for t in pool_views.view(db, 1, SALE).top_prizes] == [None]
    other, last = buy_with_token(db, 1)  # sold out: the last open play is this one
    assert [t.left for t in pool_views.view(db, 1, SALE).top_prizes] == [None]
    assert pool_views.view(db, 1, SALE).status is PoolStatus.SOLD_OUT
    reveal_all(db, other, last.play.play_number)
    settle.finish(db, other, last.play.play_number, now=T0)
    assert [t.left for t in pool_views.view(db, 1, SALE).top_prizes] == [0]  # nothing in progress


def test_top_prizes_left_are_shown_over_enough_open_plays() -> None:
    db = FakeDatabase()
    load(db, small_pool(pool_views.FIGURES_MIN_OPEN, {"£1,000": 1}))
    token, bought = buy_with_token(db, 0)  # in progress, one of FIGURES_MIN_OPEN open plays
    shown = pool_views.current(db, SALE).on_sale
    assert shown is not None and shown.in_progress == 1 and not shown.figures_withheld
    assert [(t.total, t.left) for t in shown.top_prizes] == [(1, 1)]
    reveal_all(db, token, bought.play.play_number)
    settle.finish(db, token, bought.play.play_number, now=T0)  # finishing closes a play
    assert [t.left for t in pool_views.view(db, 1, SALE).top_prizes] == [None]


def test_closing_publishes_the_secret_and_any_sold_play_can_be_regenerated() -> None:
    db = FakeDatabase()
    pool = small_pool(12, {"£5": 2, "£14 (£6 + £8)": 2, "£10 (£10 Prize Game)": 1})
    load(db, pool)
    bought = [buy_with_token(db, n) for n in range(12)]
    sold = [purchase for _, purchase in bought]
    # The players play them out: their Bonus Game picks (every £14 play has a Bonus Game)
    # change the stored record, not the play as sold.
    for token, purchase in bought:
        reveal_all(db, token, purchase.play.play_number)
        settle.finish(db, token, purchase.play.play_number, now=T0)
    assert any(records.decode(db.state.plays[p.play.play_number].record) != p.record for p in sold)
    closed = pools.close(db, 1, KEY, withdraw=False, now=T0)
    assert closed.secret == pool.secret.hex()
    assert pool_views.view(db, 1, SALE).status is PoolStatus.CLOSED
    for purchase in sold:
        play = db.state.plays[purchase.play.play_number]
        assert play.pool_position is not None
        again = pool_views.regenerate(db, 1, play.pool_position)
        assert again.sha256 == records.sold_sha256(play.record)
        assert again.tier == (None if play.tier_index is None else load_tiers()[play.tier_index])
    entry = next(e for e in db.state.audit if e.kind == AuditKind.POOL_CLOSED)
    assert pool.secret.hex() in entry.payload
    assert pools.close(db, 1, KEY, withdraw=False) == closed  # closing again changes nothing
    audit.verify_chain(db)


def test_a_pool_is_closed_before_it_sells_out_only_when_withdrawn() -> None:
    db = FakeDatabase()
    pool = small_pool()
    load(db, pool)
    load(db, small_pool(10, {"£5": 2}))
    token, bought = buy_with_token(db, 0)
    reveal_all(db, token, bought.play.play_number)
    settle.finish(db, token, bought.play.play_number, now=T0)
    with pytest.raises(PoolRefusedError, match="39 of 40 plays unsold"):
        pools.close(db, 1, KEY, withdraw=False)
    with pytest.raises(PoolNotClosedError, match="not published yet"):
        pool_views.regenerate(db, 1, 0)
    closed = pools.close(db, 1, KEY, withdraw=True, now=T0)
    assert closed.dealt == 1 and closed.closed_at == T0
    assert buy_one(db, 1).play.pool_id == 2  # the next pool goes on sale
    assert pool_views.regenerate(db, 1, 39).position == 39  # unsold positions can be looked at too


def test_closing_with_the_pool_file_when_the_key_changed() -> None:
    db = FakeDatabase()
    pool = small_pool(10, {"£5": 2})
    pools.load(db, pool, pools.seal_key("old key"), published_only=False, now=T0)
    with pytest.raises(PoolSecretError, match="cannot be unsealed"):
        pools.close(db, 1, KEY, withdraw=True)
    with pytest.raises(PoolSecretError, match="does not match"):
        pools.close(db, 1, KEY, withdraw=True, secret=bytes(32))
    assert pools.close(db, 1, KEY, withdraw=True, secret=pool.secret).secret == pool.secret.hex()


def test_a_sale_that_does_not_follow_the_secret_is_not_published() -> None:
    db = FakeDatabase()
    load(db, small_pool(10, {"£5": 2}))
    stored = db.state.pools[1]
    # One play dealt, but nothing taken from the remaining counts: the deal never gave that.
    db.state.pools[1] = replace(stored, dealt=1)
    with pytest.raises(PoolRefusedError, match="does not follow its secret"):
        pools.close(db, 1, KEY, withdraw=True)
    assert db.state.pools[1].secret is None


def test_a_sale_steered_through_the_remaining_counts_is_not_published() -> None:
    """Someone able to write to the database sets the remaining counts so that the next
    purchase is dealt the top prize, then puts back the counts the honest deal would leave. The
    counts then agree with the secret; the sold play does not, and the close says which."""
    db = FakeDatabase()
    pool = small_pool(12, {"£5": 2, "£2,000": 1})
    load(db, pool)
    honest = categories(pool.secret, pool.parameters, 0, 12)
    top = next(t.index for t in load_tiers() if t.name == "£2,000")
    position = next(k for k in range(1, 12) if outcome_of(honest[k]) is None)  # a no win
    for n in range(position):
        buy_one(db, n)
    stored = db.state.pools[1]
    db.state.pools[1] = replace(
        stored, remaining=tuple(int(i == top) for i in range(len(stored.remaining)))
    )
    steered = buy_one(db, position).play
    assert (steered.pool_position, steered.tier_index) == (position, top)
    db.state.pools[1] = replace(
        db.state.pools[1], remaining=remaining_at(pool.secret, pool.parameters, position + 1)
    )
    with pytest.raises(PoolRefusedError) as refused:
        pools.close(db, 1, KEY, withdraw=True)
    assert str(refused.value) == (
        f"pool 1's sale does not follow its secret: the play at position {position}"
        f" ({steered.play_number}) was sold as prize tier £2,000 paying £2,000 where the"
        " secret deals no win; nothing was published"
    )
    assert db.state.pools[1].secret is None


def test_a_sold_position_without_its_play_or_a_play_beyond_the_sale_is_not_published() -> None:
    db = FakeDatabase()
    load(db, small_pool(10, {"£5": 2}))
    first, second = buy_one(db, 0).play, buy_one(db, 1).play
    for play in (first, second):  # finished: the secret may be published
        db.state.plays[play.play_number] = replace(play, status=PlayStatus.FINISHED)
    gone = db.state.plays.pop(first.play_number)
    with pytest.raises(PoolRefusedError, match="no play holds position 0; nothing was published"):
        pools.close(db, 1, KEY, withdraw=True)
    db.state.plays[gone.play_number] = gone
    extra = replace(db.state.plays[second.play_number], play_number="CC-EXT-RAP-LAY", id=99)
    db.state.plays[extra.play_number] = replace(extra, pool_position=2)
    with pytest.raises(PoolRefusedError, match="CC-EXT-RAP-LAY holds position 2, but only 2"):
        pools.close(db, 1, KEY, withdraw=True)
    for nowhere in (None, -1):  # a play naming the pool at no position, or at one below 0
        db.state.plays[extra.play_number] = replace(extra, pool_position=nowhere)
        with pytest.raises(PoolRefusedError, match="3 plays name the pool, but 2 were dealt"):
            pools.close(db, 1, KEY, withdraw=True)
    assert db.state.pools[1].secret is None
    del db.state.plays[extra.play_number]
    assert pools.close(db, 1, KEY, withdraw=True).secret is not None


def test_a_closed_pool_without_checkpoints_tells_the_operator_not_the_public(
    caplog: pytest.LogCaptureFixture,
) -> None:
    db = FakeDatabase()
    load(db, small_pool(10, {"£5": 2}))
    pools.close(db, 1, KEY, withdraw=True, now=T0)
    del db.state.checkpoints[1]
    with (
        caplog.at_level(logging.ERROR, logger="colour_collector.service.pool_views"),
        pytest.raises(PoolUnavailableError) as refused,
    ):
        pool_views.regenerate(db, 1, 0)
    assert "close it again" not in str(refused.value)
    assert "try again later" in str(refused.value)
    assert "pool 1 has no checkpoints: close it again" in caplog.text


def test_unknown_pools_and_positions() -> None:
    db = FakeDatabase()
    with pytest.raises(PoolNotFoundError):
        pool_views.view(db, 1, SALE)
    with pytest.raises(PoolNotFoundError):
        pools.close(db, 1, KEY, withdraw=True)
    with pytest.raises(PoolNotFoundError):
        pool_views.regenerate(db, 1, 0)
    load(db, small_pool(10, {"£5": 2}))
    pools.close(db, 1, KEY, withdraw=True)
    with pytest.raises(ValueError, match="position must be 0 to 9"):
        pool_views.regenerate(db, 1, 10)
