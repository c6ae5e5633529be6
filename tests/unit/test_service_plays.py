"""Purchase, reveal, FINISH, auto-finish, My Games and Try plays: the use cases' rules on
in-memory fakes of the ports (no SQL), each with outcomes and a clock the test controls."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
from collections.abc import Iterable

import pytest

from colour_collector.game.draw import IndependentDraw
from colour_collector.game.generator import generate
from colour_collector.game.pool import load_pool
from colour_collector.game.prize_table import tier_by_name
from colour_collector.game.progress import expected_step
from colour_collector.game.record import BonusRound
from colour_collector.game.replay import replay
from colour_collector.service import accounts, my_games, records, reveal, settle, try_plays, wallet
from colour_collector.service import purchase as buying
from colour_collector.service.accounts import AccountPolicy, Passwords
from colour_collector.service.errors import (
    ConfirmationRequiredError,
    InsufficientFundsError,
    InvalidInputError,
    NotAuthenticatedError,
    PlayNotFoundError,
    PlayNotOverError,
    StepOutOfOrderError,
    TooManyTriesError,
)
from colour_collector.service.outcomes import IndependentSource, ScriptedSource
from colour_collector.service.play_models import PlayStatus
from colour_collector.service.purchase import PlayPolicy
from fakes import FakeDatabase
from support import register_and_confirm

T0 = dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC)
PRICE = 500
PASSWORDS = AccountPolicy(passwords=Passwords(time_cost=1, memory_kib=8, parallelism=1))


def policy(outcomes: Iterable[str | None] = ()) -> PlayPolicy:
    return PlayPolicy(
        PRICE, dt.timedelta(hours=24), ScriptedSource(outcomes, IndependentSource(load_pool()))
    )


def player(db: FakeDatabase, email: str = "p@example.com", pence: int = 5000) -> str:
    """A registered, logged-in player with ``pence`` of test funds; their session token."""
    register_and_confirm(
        db, PASSWORDS, email=email, password="correct horse battery",
        date_of_birth=dt.date(1990, 1, 1), now=T0,
    )  # fmt: skip
    token = accounts.login(
        db, PASSWORDS, email=email, password="correct horse battery", client="c", now=T0
    ).token
    if pence:
        wallet.test_deposit(db, token, pence, enabled=True, now=T0)
    return token


def buy(
    db: FakeDatabase, token: str, rules: PlayPolicy, key: str | None = None, rng_seed: int = 1
) -> buying.Purchase:
    return buying.purchase(
        db, token, rules, confirm=True, idempotency_key=key, rng=random.Random(rng_seed), now=T0
    )


def step_kind(play: buying.StoredPlay) -> str:
    kind = expected_step(records.decode(play.record), play.revealed)
    assert kind is not None
    return kind.value


def reveal_all(db: FakeDatabase, token: str, number: str, pick: str = "odd") -> list[int]:
    """Reveal every step in order; the indices revealed."""
    shown = []
    while True:
        play = my_games.get_play(db, token, number, now=T0)
        if play.revealed == play.steps:
            return shown
        kind = step_kind(play)
        done = reveal.reveal(
            db, token, number, kind, pick if kind == "bonus_pick" else None,
            rng=random.Random(7), step=play.revealed, now=T0,
        )  # fmt: skip
        shown.append(done.index)


def kinds(db: FakeDatabase, number: str) -> list[str]:
    return [e.kind for e in db.state.audit if json.loads(e.payload).get("play_number") == number]


def test_a_purchase_debits_stores_and_audits_in_one_unit_of_work() -> None:
    db = FakeDatabase()
    token = player(db)
    commits = db.commits
    done = buy(db, token, policy(["£5"]))
    assert db.commits == commits + 1
    assert done.created and not done.resumed
    assert done.balance_pence == 5000 - PRICE
    play = done.play
    assert play.status is PlayStatus.IN_PROGRESS and play.revealed == 0
    assert (play.prize_pence, play.balance_before_pence) == (500, 5000)
    assert replay(done.record).tier == tier_by_name("£5")
    (entry,) = [e for e in db.state.audit if e.kind == "purchase"]
    payload = json.loads(entry.payload)
    assert payload["play_number"] == play.play_number and payload["tier"] == "£5"
    assert payload["record_sha256"] == hashlib.sha256(play.record.encode()).hexdigest()
    stakes = [m for m in db.state.movements if m.kind.value == "stake"]
    assert [(m.amount_pence, m.reference) for m in stakes] == [(-PRICE, play.play_number)]


def test_a_purchase_must_be_confirmed_and_paid_for() -> None:
    db = FakeDatabase()
    token = player(db, pence=PRICE - 1)
    before = db.commits
    with pytest.raises(ConfirmationRequiredError):
        buying.purchase(
            db, token, policy(), confirm=False, idempotency_key=None, rng=random.Random(1)
        )
    with pytest.raises(InsufficientFundsError) as short:
        buy(db, token, policy())
    assert (short.value.balance_pence, short.value.wanted_pence) == (PRICE - 1, PRICE)
    with pytest.raises(NotAuthenticatedError):
        buy(db, "not a session", policy())
    for key in ("", "x" * 256, "tab\there", "é"):
        with pytest.raises(InvalidInputError):
            buy(db, token, policy(), key=key)
    assert db.commits == before and db.state.plays == {}


def test_an_idempotency_key_answers_the_same_play_and_an_unfinished_play_is_resumed() -> None:
    db = FakeDatabase()
    token = player(db)
    rules = policy()
    first = buy(db, token, rules, key="k1")
    again = buy(db, token, rules, key="k1", rng_seed=2)
    assert not again.created and not again.resumed and again.play == first.play
    resumed = buy(db, token, rules, key="k2")
    assert resumed.resumed and resumed.play == first.play
    assert wallet.statement(db, token, now=T0).balance_pence == 5000 - PRICE  # debited once


def test_steps_reveal_the_stored_play_in_order_and_are_audited() -> None:
    db = FakeDatabase()
    token = player(db)
    play = buy(db, token, policy(["£6"])).play  # a £6 play wins a booster in a Bonus Game
    number = play.play_number
    record = records.decode(play.record)
    wrong = "prize_spin"
    with pytest.raises(StepOutOfOrderError) as out_of_order:
        reveal.reveal(db, token, number, wrong, None, rng=random.Random(1), now=T0)
    assert out_of_order.value.expected == "spin"
    with pytest.raises(InvalidInputError):
        reveal.reveal(db, token, number, "spin", "odd", rng=random.Random(1), now=T0)
    shown = reveal_all(db, token, number, pick="even")
    assert shown == list(range(len(record.steps)))
    stored = records.decode(my_games.get_play(db, token, number, now=T0).record)
    for before, after in zip(record.steps, stored.steps, strict=True):
        if isinstance(before, BonusRound):  # the pick and a reel number of the fixed parity
            assert isinstance(after, BonusRound) and after.pick is not None
            assert after.pick.value == "even" and after.number is not None
            assert (after.number % 2 == 0) == after.won
            assert (after.won, after.prize) == (before.won, before.prize)
        else:
            assert after == before
    assert replay(stored).tier == tier_by_name("£6")  # the picks changed nothing
    assert kinds(db, number) == ["purchase"] + ["reveal"] * len(shown)
    with pytest.raises(StepOutOfOrderError) as over:
        reveal.reveal(db, token, number, "spin", None, rng=random.Random(1), now=T0)
    assert over.value.expected is None


def test_a_retried_step_answers_the_same_step_and_writes_nothing() -> None:
    db = FakeDatabase()
    token = player(db)
    number = buy(db, token, policy(["£6"])).play.play_number
    first = reveal.reveal(db, token, number, "spin", None, rng=random.Random(1), step=0, now=T0)
    commits, entries = db.commits, len(db.state.audit)
    again = reveal.reveal(db, token, number, "spin", None, rng=random.Random(2), step=0, now=T0)
    assert (again.index, again.play) == (first.index, first.play)
    assert (first.repeated, again.repeated) == (False, True)
    assert (db.commits, len(db.state.audit)) == (commits, entries)
    for stale in (5, 2, -1):
        with pytest.raises(StepOutOfOrderError) as told:
            reveal.reveal(db, token, number, "spin", None, rng=random.Random(1), step=stale, now=T0)
        assert told.value.revealed == 1
    with pytest.raises(StepOutOfOrderError):  # the step just revealed, asked as another kind
        reveal.reveal(db, token, number, "prize_spin", None, rng=random.Random(1), step=0, now=T0)


def test_another_players_play_is_not_found() -> None:
    db = FakeDatabase()
    owner, other = player(db), player(db, "q@example.com")
    number = buy(db, owner, policy()).play.play_number
    for call in (
        lambda n: my_games.get_play(db, other, n, now=T0),
        lambda n: reveal.reveal(db, other, n, "spin", None, rng=random.Random(1), now=T0),
        lambda n: settle.finish(db, other, n, now=T0),
    ):
        for asked in (number, "CC-0000-0000-0", "not a number"):
            with pytest.raises(PlayNotFoundError):
                call(asked)
    assert my_games.get_play(db, owner, number.lower(), now=T0).revealed == 0


def test_finish_credits_the_stored_prize_exactly_once() -> None:
    db = FakeDatabase()
    token = player(db)
    number = buy(db, token, policy(["£10 (£10 Prize Game)"])).play.play_number
    with pytest.raises(PlayNotOverError) as early:
        settle.finish(db, token, number, now=T0)
    assert early.value.expected == "spin"
    reveal_all(db, token, number)
    assert wallet.statement(db, token, now=T0).balance_pence == 5000 - PRICE  # not before FINISH
    done = settle.finish(db, token, number, now=T0)
    assert (done.tier, done.play.prize_pence) == ("£10 (£10 Prize Game)", 1000)
    assert done.balance_pence == 5000 - PRICE + 1000 == done.play.balance_after_pence
    again = settle.finish(db, token, number, now=T0 + dt.timedelta(minutes=1))
    assert (again.play, again.balance_pence, again.tier) == (
        done.play,
        done.balance_pence,
        done.tier,
    )
    prizes = [m for m in db.state.movements if m.kind.value == "prize"]
    assert [(m.amount_pence, m.reference) for m in prizes] == [(1000, number)]
    assert kinds(db, number)[-1] == "finish" and kinds(db, number).count("finish") == 1


def test_plays_left_unfinished_are_completed_once_when_due() -> None:
    db = FakeDatabase()
    token = player(db)
    number = buy(db, token, policy(["£6"])).play.play_number
    reveal.reveal(db, token, number, "spin", None, rng=random.Random(1), now=T0)
    rng = random.Random(3)
    assert settle.auto_finish_due(db, rng, now=T0 + dt.timedelta(hours=23)) == []
    due = T0 + dt.timedelta(hours=24)
    assert settle.auto_finish_due(db, rng, now=due) == [number]
    assert settle.auto_finish_due(db, rng, now=due + dt.timedelta(hours=1)) == []
    play = my_games.get_play(db, token, number, now=T0)
    assert play.status is PlayStatus.AUTO_FINISHED and play.revealed == play.steps
    assert play.finished_at == due
    assert replay(records.decode(play.record)).tier == tier_by_name("£6")
    assert wallet.statement(db, token, now=T0).balance_pence == 5000 - PRICE + 600
    assert kinds(db, number)[-1] == "auto_finish"
    with pytest.raises(PlayNotFoundError):  # nothing unfinished any more
        my_games.current(db, token, now=T0)


def test_my_games_pages_newest_first() -> None:
    db = FakeDatabase()
    token = player(db)
    numbers = []
    for _ in range(3):
        number = buy(db, token, policy()).play.play_number
        reveal_all(db, token, number)
        settle.finish(db, token, number, now=T0)
        numbers.append(number)
    first = my_games.my_games(db, token, 1, 2, now=T0)
    second = my_games.my_games(db, token, 2, 2, now=T0)
    assert [p.play_number for p in (*first.items, *second.items)] == numbers[::-1]
    assert first.total == second.total == 3
    for page, per_page in ((0, 10), (1, 0), (1, 101)):
        with pytest.raises(InvalidInputError):
            my_games.my_games(db, token, page, per_page, now=T0)


def test_independent_draws_come_from_the_prize_structure_and_nothing_else() -> None:
    """The purchase takes its outcome from the source it is given, nothing else: the same seed
    gives the same tier as a bare draw from the pool."""
    db = FakeDatabase()
    token = player(db, pence=50 * PRICE)
    draw = IndependentDraw(load_pool())
    rules = PlayPolicy(PRICE, dt.timedelta(hours=24), IndependentSource(load_pool()))
    for seed in range(20):
        done = buy(db, token, rules, rng_seed=seed)
        expected = draw.draw(random.Random(seed))
        assert done.play.tier_index == (None if expected is None else expected.index)
        reveal_all(db, token, done.play.play_number)
        settle.finish(db, token, done.play.play_number, now=T0)


def test_try_plays_are_free_limited_per_client_and_finished_only_at_the_end() -> None:
    db = FakeDatabase()
    source = ScriptedSource(["£5"], IndependentSource(load_pool()))
    rng = random.Random(4)
    token, play = try_plays.start(db, source, rng, client="a", per_hour=2, now=T0)
    assert play.prize_pence == 500 and db.state.movements == []
    with pytest.raises(PlayNotOverError):
        try_plays.finish(db, token, now=T0)
    record = records.decode(play.record)
    for index in range(len(record.steps)):
        current = try_plays.get(db, token)
        kind = expected_step(records.decode(current.record), index)
        assert kind is not None
        pick = "odd" if kind.value == "bonus_pick" else None
        saved, shown, repeated = try_plays.reveal(db, token, kind.value, pick, rng, step=index)
        assert shown == index and saved.revealed == index + 1 and not repeated
        again = try_plays.reveal(db, token, kind.value, pick, rng, step=index)
        assert again == (saved, index, True)  # asked again: the same step, answered again
    done = try_plays.finish(db, token, now=T0)
    assert done.tier == "£5" and db.state.movements == []
    try_plays.start(db, source, rng, client="a", per_hour=2, now=T0)
    with pytest.raises(TooManyTriesError):
        try_plays.start(db, source, rng, client="a", per_hour=2, now=T0)
    try_plays.start(db, source, rng, client="b", per_hour=2, now=T0)  # another address
    try_plays.start(db, source, rng, client="a", per_hour=2, now=T0 + dt.timedelta(hours=1))
    for bad in ("short", "x" * 100, "bad token with spaces!!"):
        with pytest.raises(PlayNotFoundError):
            try_plays.get(db, bad)


def test_too_many_tries_say_when_the_next_one_is_allowed() -> None:
    db = FakeDatabase()
    source, rng = IndependentSource(load_pool()), random.Random(6)

    def start(at: dt.datetime, per_hour: int = 3) -> None:
        try_plays.start(db, source, rng, client="a", per_hour=per_hour, now=at)

    minute = dt.timedelta(minutes=1)
    for at in (T0, T0 + 10 * minute, T0 + 20 * minute):
        start(at)
    with pytest.raises(TooManyTriesError) as refused:
        start(T0 + 30 * minute + dt.timedelta(seconds=0.5))
    # The first Try play leaves the hour at T0 + 60 min: 29 min 59.5 s from now, rounded up.
    assert refused.value.retry_after_seconds == 30 * 60
    with pytest.raises(TooManyTriesError) as refused:
        start(T0 + 60 * minute - dt.timedelta(milliseconds=1))
    assert refused.value.retry_after_seconds == 1  # a whole second, never 0
    start(T0 + 60 * minute)  # it has left the hour: one more may start
    # With the limit lowered below the Try plays in the hour (those of T0 + 10, 20 and 60 min),
    # the wait is until enough have left: the one of T0 + 20 min leaves at T0 + 80 min.
    with pytest.raises(TooManyTriesError) as refused:
        start(T0 + 61 * minute, per_hour=2)
    assert refused.value.retry_after_seconds == 19 * 60


def test_the_record_memo_gives_back_what_was_encoded_and_stays_bounded() -> None:
    rng = random.Random(5)
    played = generate(tier_by_name("£6"), rng)
    text = records.encode(played)
    assert records.decode(text) is played  # the same object: no decode of a text just encoded
    assert records.decode(text) == played
    for n in range(records.MEMO_SIZE + 1):
        records.encode(generate(None, random.Random(n)))
    assert records.decode(text) == played and records.decode(text) is not played  # decoded again
    assert len(records._memo) <= records.MEMO_SIZE
