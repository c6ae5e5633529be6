"""Free Try plays: the same rules and odds as a purchase, no account, never touching a wallet.

A Try play is found by a secret token (given to the browser once; only its SHA-256 is stored).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import random
import secrets
from dataclasses import dataclass, replace

from colour_collector.game.generator import generate
from colour_collector.game.progress import expected_step
from colour_collector.game.replay import replay
from colour_collector.service import exclusions, records
from colour_collector.service.accounts import hash_token
from colour_collector.service.clients import counted_client
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    PlayNotFoundError,
    PlayNotOverError,
    TooManyTriesError,
)
from colour_collector.service.outcomes import DealMovedError, OutcomeSource
from colour_collector.service.play_models import TryPlay
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory
from colour_collector.service.reveal import advance, check_retry, parse_step_request

TOKEN_BYTES = 24
"""Random bytes in a Try token."""
KEEP_FOR = dt.timedelta(days=2)
"""How long an abandoned Try play is kept."""
RATE_WINDOW = dt.timedelta(hours=1)
"""The window the Try rate limit counts over."""


@dataclass(frozen=True, slots=True)
class TryFinished:
    """The Try end screen."""

    play: TryPlay
    """The Try play."""
    tier: str | None
    """What it would have won."""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def start(
    factory: UnitOfWorkFactory,
    outcomes: OutcomeSource,
    rng: random.Random,
    *,
    client: str,
    per_hour: int,
    session_token: str | None = None,
    now: dt.datetime | None = None,
) -> tuple[str, TryPlay]:
    """A new Try play and its secret token; at most ``per_hour`` an hour from one client.

    A Try needs no account, but a player logged in (``session_token`` of a live session) during
    a time-out or self-exclusion is refused one (:class:`ExcludedError`), as a purchase is: the
    break is from the game, not only from its stakes. As for a purchase, the play is generated
    with no unit of work open (``service.outcomes``), after the checks have let it through."""
    at = now or utcnow()
    client = counted_client(client)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    # A Try's source is an independent draw (or a test's script), whose deal another Try takes
    # only in a race that one of them wins: this ends.
    while True:
        with factory() as uow:
            _check_start(uow, client, per_hour, session_token, at)
            expected = outcomes.expect(uow, rng)
        record = None if expected is None else generate(expected.tier, expected.rng)
        with factory() as uow:
            _check_start(uow, client, per_hour, session_token, at)
            try:
                deal = outcomes.take(uow, expected, at)
            except DealMovedError:
                continue
            if record is None:  # take answers only the deal it was given
                continue
            tier = deal.tier
            play = TryPlay(
                id=0,
                record=records.encode(record),
                revealed=0,
                steps=len(record.steps),
                prize_pence=0 if tier is None else tier.prize_pence,
                created_at=at,
                finished_at=None,
            )
            play = uow.tries.add(_hash(token), play, client)
            uow.tries.remove_before(at - KEEP_FOR)
            uow.commit()
        return token, play


def _check_start(
    uow: UnitOfWork, client: str, per_hour: int, session_token: str | None, at: dt.datetime
) -> None:
    """Refuse a Try play to a player on a break, or over ``per_hour`` from ``client``."""
    session = uow.accounts.session(hash_token(session_token), at) if session_token else None
    if session is not None:
        exclusions.refuse_if_excluded(uow, session.account_id, at)
    if uow.tries.started_after(client, at - RATE_WINDOW) >= per_hour:
        raise TooManyTriesError(
            f"at most {per_hour} Try plays an hour from one address; try again later",
            retry_after_seconds=_retry_after(uow, client, per_hour, at),
        )


def _retry_after(uow: UnitOfWork, client: str, per_hour: int, at: dt.datetime) -> int:
    """Seconds until ``client`` may start a Try play again: until enough of the Try plays it
    started in the window have left it that fewer than ``per_hour`` remain (at least 1)."""
    started = uow.tries.start_times(client, at - RATE_WINDOW)
    if not started:
        return 1
    leaving = started[max(0, len(started) - per_hour)]
    return max(1, math.ceil((leaving + RATE_WINDOW - at).total_seconds()))


def _key(token: str) -> str:
    if not 16 <= len(token) <= 64 or not token.replace("-", "").replace("_", "").isalnum():
        raise PlayNotFoundError(f"{token[:80]!r} is not a Try play id")
    return _hash(token)


def _locked(uow: UnitOfWork, token: str) -> TryPlay:
    play = uow.tries.get_for_update(_key(token))
    if play is None:
        raise PlayNotFoundError("no such Try play (it may have expired)")
    return play


def get(factory: UnitOfWorkFactory, token: str) -> TryPlay:
    """The Try play with this token."""
    key = _key(token)
    with factory() as uow:
        play = uow.tries.get(key)
    if play is None:
        raise PlayNotFoundError("no such Try play (it may have expired)")
    return play


def reveal(
    factory: UnitOfWorkFactory,
    token: str,
    kind: str,
    pick: str | None,
    rng: random.Random,
    *,
    step: int | None = None,
) -> tuple[TryPlay, int, bool]:
    """Reveal the next step of a Try play (``step``: as :func:`.reveal.reveal`); the play as
    saved, the index of the step revealed, and whether it was revealed before (answered again:
    :attr:`.reveal.Revealed.repeated`)."""
    step_kind, parity = parse_step_request(kind, pick)
    with factory() as uow:
        play = _locked(uow, token)
        record = records.decode(play.record)
        if step is not None and step != play.revealed:
            check_retry(record, play.revealed, step, step_kind, parity)
            return play, step, True
        shown = advance(record, play.revealed, step_kind, parity, rng, step=step)
        text = play.record if shown is record else records.encode(shown)
        saved = replace(play, record=text, revealed=play.revealed + 1)
        uow.tries.save(saved, was=play)
        uow.commit()
    return saved, play.revealed, False


def finish(
    factory: UnitOfWorkFactory, token: str, *, now: dt.datetime | None = None
) -> TryFinished:
    """Press FINISH on a Try play: nothing is credited."""
    with factory() as uow:
        play = _locked(uow, token)
        record = records.decode(play.record)
        nxt = expected_step(record, play.revealed)
        if nxt is not None:
            raise PlayNotOverError(
                f"the Try play is not over: the next step is {nxt.value!r}", expected=nxt.value
            )
        if play.finished_at is None:
            closed = replace(play, finished_at=now or utcnow())
            uow.tries.save(closed, was=play)
            play = closed
        uow.commit()
    tier = replay(record).tier
    return TryFinished(play, None if tier is None else tier.name)
