"""The operator's side on fakes: operator accounts and roles, the sales switch (plays in progress
still finish and pay), player look-up, audit verification, the live figures with their 99%
control bands, and the bands themselves."""

from __future__ import annotations

import datetime as dt
import json
import random
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binom, binomtest
from test_service_plays import PRICE, buy, player, policy

from colour_collector.game.control_bands import count_band, payout_band
from colour_collector.game.pool import load_pool
from colour_collector.game.progress import expected_step
from colour_collector.service import (
    audit_checks,
    monitoring,
    operators,
    player_lookup,
    reveal,
    sales,
    settle,
    wallet,
)
from colour_collector.service import purchase as buying
from colour_collector.service.accounts import Passwords
from colour_collector.service.errors import (
    InvalidCredentialsError,
    InvalidInputError,
    NotFoundError,
    OperatorForbiddenError,
    OperatorNameTakenError,
    OperatorNotAuthenticatedError,
    SalesStoppedError,
    TooManyAttemptsError,
)
from colour_collector.service.play_numbers import new_play_number
from colour_collector.service.protection_models import OperatorRole, OutcomeFigures
from fakes import FakeDatabase

T0 = dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC)
PASSWORDS = Passwords(time_cost=1, memory_kib=8, parallelism=1)
RULES = operators.OperatorPolicy(passwords=PASSWORDS)
SECRET = "a long operator password"


def operator(db: FakeDatabase, name: str, role: OperatorRole) -> str:
    """An operator logged in to the console; their token."""
    operators.add(db, PASSWORDS, name=name, password=SECRET, role=role, now=T0)
    return operators.login(db, RULES, name=name, password=SECRET, client="c", now=T0).token


def test_operators_are_made_once_log_in_and_are_audited() -> None:
    db = FakeDatabase()
    made = operators.add(
        db, PASSWORDS, name=" Alice ", password=SECRET, role=OperatorRole.MANAGER, now=T0
    )
    assert made.name == "alice"
    with pytest.raises(OperatorNameTakenError):
        operators.add(db, PASSWORDS, name="alice", password=SECRET, role=OperatorRole.VIEWER)
    for name, password, field in (("x", SECRET, "name"), ("bob", "short", "password")):
        with pytest.raises(InvalidInputError) as bad:
            operators.add(db, PASSWORDS, name=name, password=password, role=OperatorRole.VIEWER)
        assert bad.value.field == field
    with pytest.raises(InvalidCredentialsError):
        operators.login(db, RULES, name="alice", password="wrong password!", client="c", now=T0)
    done = operators.login(db, RULES, name="alice", password=SECRET, client="c", now=T0)
    assert operators.current(db, done.token, now=T0) == made
    assert operators.logout(db, done.token, now=T0)
    with pytest.raises(OperatorNotAuthenticatedError):
        operators.current(db, done.token, now=T0)
    kinds = [e.kind for e in db.state.audit]
    assert kinds == ["operator_added", "operator_login", "operator_logout"]
    assert json.loads(db.state.audit[1].payload)["operator"] == "alice"


def test_a_disabled_operator_is_logged_out_and_cannot_log_in_again() -> None:
    db = FakeDatabase()
    token = operator(db, "bob", OperatorRole.MANAGER)
    other = operators.login(db, RULES, name="bob", password=SECRET, client="d", now=T0).token
    stays = operator(db, "alice", OperatorRole.VIEWER)
    later = T0 + dt.timedelta(minutes=5)
    done = operators.disable(db, " Bob ", now=later)
    assert (done.name, done.disabled_at) == ("bob", later)
    for ended in (token, other):  # every session of theirs ends at once
        with pytest.raises(OperatorNotAuthenticatedError):
            operators.current(db, ended, now=later)
    assert operators.current(db, stays, now=later).name == "alice"
    with pytest.raises(OperatorForbiddenError, match="'bob' is disabled"):
        operators.login(db, RULES, name="bob", password=SECRET, client="c", now=later)
    with pytest.raises(InvalidCredentialsError):  # a wrong password is told as before
        operators.login(db, RULES, name="bob", password="not the password", client="c", now=later)
    assert operators.disable(db, "bob", now=later + dt.timedelta(hours=1)) == done  # once
    disabled = [json.loads(e.payload) for e in db.state.audit if e.kind == "operator_disabled"]
    assert disabled == [{"operator": "bob", "operator_id": done.id, "sessions_ended": 2}]
    with pytest.raises(NotFoundError, match="no operator named 'carol'"):
        operators.disable(db, "carol")
    with pytest.raises(InvalidInputError):
        operators.disable(db, "no such name!")


def test_console_logins_are_throttled_by_name() -> None:
    db = FakeDatabase()
    operators.add(db, PASSWORDS, name="alice", password=SECRET, role=OperatorRole.VIEWER, now=T0)
    for _ in range(RULES.max_failures):
        with pytest.raises(InvalidCredentialsError):
            operators.login(db, RULES, name="alice", password="nope nope nope", client="c", now=T0)
    with pytest.raises(TooManyAttemptsError):
        operators.login(db, RULES, name="alice", password=SECRET, client="c", now=T0)
    later = T0 + RULES.window
    assert operators.login(db, RULES, name="alice", password=SECRET, client="c", now=later)


def test_console_logins_are_throttled_by_client_address() -> None:
    """One address spraying a password over many names is stopped as a player's is: the per-name
    count alone would let it try every name five times a window."""
    db = FakeDatabase()
    operators.add(db, PASSWORDS, name="alice", password=SECRET, role=OperatorRole.VIEWER, now=T0)
    for n in range(RULES.max_client_failures):
        with pytest.raises(InvalidCredentialsError):
            operators.login(db, RULES, name=f"guess{n}", password=SECRET, client="c", now=T0)
    with pytest.raises(TooManyAttemptsError) as refused:
        operators.login(db, RULES, name="alice", password=SECRET, client="c", now=T0)
    assert refused.value.retry_after_seconds == int(RULES.window.total_seconds())
    assert operators.login(db, RULES, name="alice", password=SECRET, client="d", now=T0)


def test_a_console_login_with_a_name_no_operator_can_have_is_a_failure_of_its_client() -> None:
    """A name no operator can have is not looked up (one cut to 64 characters could name one)
    and is counted against its client, under its printable characters (PostgreSQL stores no
    NUL)."""
    db = FakeDatabase()
    operators.add(db, PASSWORDS, name="a" * 64, password=SECRET, role=OperatorRole.VIEWER, now=T0)
    audited = len(db.state.audit)
    for name in ("mia\x00", "x", "a" * 65, "bob smith"):
        with pytest.raises(InvalidCredentialsError):
            operators.login(db, RULES, name=name, password=SECRET, client="c", now=T0)
    assert len(db.state.audit) == audited
    keys = [key for key, _, _ in db.state.failures]
    assert keys == ["operator:mia", "operator:x", "operator:" + "a" * 64, "operator:bob smith"]
    assert all(client == "c" for _, client, _ in db.state.failures)


def test_a_reason_for_the_sales_switch_has_no_control_characters() -> None:
    # Bidirectional overrides and zero-width marks too: the audit log and the console would
    # show another text than the one stored.
    db = FakeDatabase()
    token = operator(db, "mia", OperatorRole.MANAGER)
    for reason in ("pool\x00check", "pool\ncheck", "pool\tcheck", "pool \u202echeck", "done\u200b"):
        with pytest.raises(InvalidInputError, match="control or format characters") as bad:
            sales.switch(db, token, on_sale=False, reason=reason, now=T0)
        assert bad.value.field == "reason"
    assert db.state.sales.on_sale
    assert [e.kind for e in db.state.audit] == ["operator_added", "operator_login"]
    assert not sales.switch(db, token, on_sale=False, reason="pool check: été 🎲", now=T0).on_sale


def test_players_sessions_do_not_open_the_console() -> None:
    db = FakeDatabase()
    token = player(db)
    with pytest.raises(OperatorNotAuthenticatedError):
        operators.current(db, token, now=T0)


def test_stopping_sales_refuses_purchases_while_a_play_in_progress_finishes_and_pays() -> None:
    db = FakeDatabase()
    manager = operator(db, "mia", OperatorRole.MANAGER)
    viewer = operator(db, "vic", OperatorRole.VIEWER)
    token = player(db)
    rules = policy(["£10", None])
    bought = buying.purchase(db, token, rules, confirm=True, idempotency_key="k1",
                             rng=random.Random(3), now=T0)  # fmt: skip
    with pytest.raises(OperatorForbiddenError):
        sales.switch(db, viewer, on_sale=False, reason="no", now=T0)
    with pytest.raises(InvalidInputError):
        sales.switch(db, manager, on_sale=False, reason="   ", now=T0)
    stopped = sales.switch(db, manager, on_sale=False, reason="prize pool check", now=T0)
    assert (stopped.on_sale, stopped.changed_by) == (False, "mia")
    # The purchase screen offers to continue the play in progress, which the stop allows.
    assert buying.quote(db, token, rules, now=T0).refusal is None
    # A retry of the purchase made before the stop still answers its play...
    assert buying.purchase(db, token, rules, confirm=True, idempotency_key="k1",
                           rng=random.Random(3), now=T0).play == bought.play  # fmt: skip
    # ... which finishes and pays.
    number = bought.play.play_number
    while (kind := expected_step(bought.record, db.state.plays[number].revealed)) is not None:
        pick = "odd" if kind.value == "bonus_pick" else None
        reveal.reveal(db, token, number, kind.value, pick, rng=random.Random(2), now=T0)
    finished = settle.finish(db, token, number, now=T0)
    assert finished.play.prize_pence == 1000
    # Now it warns of the stop before Confirm is pressed.
    assert isinstance(buying.quote(db, token, rules, now=T0).refusal, SalesStoppedError)
    assert wallet.statement(db, token, now=T0).balance_pence == 5000 - PRICE + 1000
    with pytest.raises(SalesStoppedError):
        buying.purchase(db, token, rules, confirm=True, idempotency_key="k2",
                        rng=random.Random(3), now=T0)  # fmt: skip
    assert wallet.statement(db, token, now=T0).balance_pence == 5000 - PRICE + 1000
    restarted = sales.switch(db, manager, on_sale=True, reason="checked", now=T0)
    assert restarted.on_sale
    assert buying.quote(db, token, rules, now=T0).refusal is None
    assert buying.purchase(db, token, rules, confirm=True, idempotency_key="k3",
                           rng=random.Random(3), now=T0).created  # fmt: skip
    # Setting the switch where it is writes nothing.
    entries = len(db.state.audit)
    sales.switch(db, manager, on_sale=True, reason="again", now=T0)
    assert len(db.state.audit) == entries
    switched = [json.loads(e.payload) for e in db.state.audit if e.kind.startswith("sales_")]
    assert [p["reason"] for p in switched] == ["prize pool check", "checked"]


def test_player_look_up_needs_support_and_is_audited() -> None:
    db = FakeDatabase()
    viewer = operator(db, "vic", OperatorRole.VIEWER)
    helper = operator(db, "sam", OperatorRole.SUPPORT)
    player(db, email="found@example.com")
    with pytest.raises(OperatorForbiddenError):
        player_lookup.look_up(db, viewer, "found@example.com", now=T0)
    by_email = player_lookup.look_up(db, helper, " FOUND@example.com", now=T0)
    by_number = player_lookup.look_up(db, helper, f"#{by_email.account.id}", now=T0)
    assert by_email.account == by_number.account and by_email.balance_pence == 5000
    assert [m.amount_pence for m in by_email.movements] == [5000]
    looked = [e for e in db.state.audit if e.kind == "player_lookup"]
    assert len(looked) == 2 and looked[0].account_id == by_email.account.id
    # A look-up that finds no one is recorded too: whether an address plays is personal data.
    unsold = new_play_number()
    for query, sought in (
        ("999", {"account": 999}),
        (" Nobody@Example.com", {"email": "nobody@example.com"}),
        (unsold.lower(), {"play_number": unsold}),
    ):
        with pytest.raises(NotFoundError):
            player_lookup.look_up(db, helper, query, now=T0)
        probe = db.state.audit[-1]
        assert (probe.kind, probe.account_id) == ("player_lookup", None)
        assert json.loads(probe.payload) == {"operator": "sam", **sought, "found": False}


def test_a_player_is_found_by_the_play_number_of_one_of_their_plays() -> None:
    """A player calls about a play: the Play Number finds them (as typed by hand: lower case,
    spaces or no separators, O for 0), and the audit entry names the play."""
    db = FakeDatabase()
    helper = operator(db, "sam", OperatorRole.SUPPORT)
    token = player(db, email="caller@example.com")
    bought = buy(db, token, policy()).play
    typed = bought.play_number.lower().replace("-", " ").replace("0", "o")
    found = player_lookup.look_up(db, helper, typed, now=T0)
    assert found.account.email == "caller@example.com"
    assert [p.play_number for p in found.plays] == [bought.play_number]
    entry = [e for e in db.state.audit if e.kind == "player_lookup"][-1]
    assert json.loads(entry.payload) == {"operator": "sam", "play_number": bought.play_number}
    compact = bought.play_number.replace("-", "")  # read out over the phone, typed in one go
    assert player_lookup.look_up(db, helper, compact, now=T0).account.email == "caller@example.com"
    other = new_play_number()
    with pytest.raises(NotFoundError, match=f"no play has the Play Number {other}"):
        player_lookup.look_up(db, helper, other, now=T0)
    player(db, email="ccarter@example.com")
    found = player_lookup.look_up(db, helper, "ccarter@example.com", now=T0)  # an address
    assert found.account.email == "ccarter@example.com"
    wrong = bought.play_number[:-1] + ("A" if bought.play_number[-1] != "A" else "B")
    with pytest.raises(InvalidInputError, match="check character is wrong") as bad:
        player_lookup.look_up(db, helper, wrong, now=T0)
    assert bad.value.field == "query"


def test_audit_verification_is_kept_and_audited() -> None:
    db = FakeDatabase()
    manager = operator(db, "mia", OperatorRole.MANAGER)
    check = audit_checks.verify(db, manager, now=T0)
    assert check.problem is None and check.entries == 2 and check.operator == "mia"
    assert db.state.audit[-1].kind == "audit_verified"
    state = monitoring.game_state(db, manager, load_pool(), PRICE, now=T0)
    assert state.last_audit_check == check
    assert state.sales.on_sale and state.pool is None


def test_figures_follow_the_finished_plays_with_an_alert_when_outside_a_band() -> None:
    pool = load_pool()
    plain = monitoring.figures_of(
        [OutcomeFigures(None, 64, 0), OutcomeFigures(0, 36, 18_000)], pool, PRICE, in_progress=5
    )
    assert (plain.plays, plain.finished, plain.stakes_pence) == (105, 100, 52_500)
    assert (plain.paid_plays, plain.paid_pence) == (36, 18_000)
    assert plain.payout.observed == pytest.approx(0.36)  # the finished plays'
    assert [line.band.observed for line in plain.prizes][:1] == [64]
    no_win = plain.prizes[0]
    assert no_win.prize_pence == 0 and no_win.probability == Fraction(pool.no_win_count, pool.size)
    assert not no_win.band.outside
    top = next(t for t in pool.tiers if t.prize_pence == 100_000_000)
    lucky = monitoring.figures_of(
        [OutcomeFigures(None, 99, 0), OutcomeFigures(top.index, 1, top.prize_pence)], pool, PRICE
    )
    assert lucky.payout.outside
    assert any(alert.startswith("prize £1,000,000: 1 play, outside") for alert in lucky.alerts)
    assert monitoring.figures_of([], pool, PRICE).alerts == []


def test_count_bands_hold_99_percent_of_a_binomial_count() -> None:

    for n, p in ((100, Fraction(1, 10)), (40, Fraction(1, 3)), (5000, Fraction(1, 2000))):
        band = count_band(n, p, 0)
        assert (band.low, band.high) == (
            binom.ppf(0.005, n, float(p)),
            binom.ppf(0.995, n, float(p)),
        )
    exact = count_band(100, Fraction(1, 10), 10)
    assert not exact.outside and count_band(100, Fraction(1, 10), 19).outside
    big = count_band(100_000, Fraction(1, 2), 50_000)
    assert big.low == 49_592 and big.high == 50_408  # 50,000 ± 2.5758 x 158.1
    rare = count_band(1000, Fraction(1, 6_500_000), 1)
    assert (rare.low, rare.high) == (0, 0) and rare.outside


def test_the_payout_band_narrows_as_plays_add_up() -> None:
    # Half the plays win 1,000p: the prizes are 1,000p times a Binomial(n, 1/2) count, whose
    # 0.5% and 99.5% quantiles the simulated band finds within a play.
    outcomes = [(Fraction(1, 2), 0), (Fraction(1, 2), 1000)]
    small = payout_band(16, outcomes, 500, 8 * 1000)
    large = payout_band(1600, outcomes, 500, 800 * 1000)
    assert small.expected == large.expected == 1.0
    for n, band in ((16, small), (1600, large)):
        wins = (band.low * n * 500 / 1000, band.high * n * 500 / 1000)
        exact = (binom.ppf(0.005, n, 0.5), binom.ppf(0.995, n, 0.5))
        assert wins == pytest.approx(exact, abs=1), (n, wins, exact)
    assert large.high - large.low == pytest.approx((small.high - small.low) / 10, rel=0.2)
    assert not large.outside and payout_band(1600, outcomes, 500, 0).outside


def published_outcomes() -> list[tuple[Fraction, int]]:
    pool = load_pool()
    chances = {0: Fraction(pool.no_win_count, pool.size)}
    for tier, count in zip(pool.tiers, pool.counts, strict=True):
        chances[tier.prize_pence] = chances.get(tier.prize_pence, 0) + Fraction(count, pool.size)
    return [(chance, prize) for prize, chance in chances.items()]


def test_the_payout_band_holds_99_percent_of_the_payouts_of_published_play() -> None:
    # A lab found the normal approximation's band for 100,000 plays (about 10% to 137%) let a
    # game paying 60% through, and flagged one that won a top prize early (3 chances in 100).
    outcomes = published_outcomes()
    n = 100_000
    band = payout_band(n, outcomes, PRICE, 0)
    assert 0.68 < band.low < 0.71 and band.high > 2.5
    assert payout_band(n, outcomes, PRICE, int(0.60 * n * PRICE)).outside
    top_won_early = int(0.70 * n * PRICE) + 100_000_000
    assert not payout_band(n, outcomes, PRICE, top_won_early).outside
    # Independent sets of 100,000 plays (numpy's multinomial draws) fall inside 99% of the time.
    chances = np.array([float(c) for c, _ in outcomes])
    prizes = np.array([prize for _, prize in outcomes], dtype=np.float64)
    sets = np.random.default_rng(11).multinomial(n, chances / chances.sum(), size=4_000)
    payouts = sets @ prizes / (n * PRICE)
    inside = int(np.count_nonzero((payouts >= band.low) & (payouts <= band.high)))
    assert binomtest(inside, len(payouts), 0.99).pvalue > 0.001, inside
