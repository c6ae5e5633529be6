"""Free Try plays: the same rules and odds as a purchase, no account, never touching a wallet.

A Try play is found by a secret token (given to the browser once; only its SHA-256 is stored).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import secrets
from dataclasses import dataclass, replace

from colour_collector.game import codec
from colour_collector.game.generator import generate
from colour_collector.game.progress import expected_step
from colour_collector.game.replay import replay
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    PlayNotFoundError,
    PlayNotOverError,
    TooManyTriesError,
)
from colour_collector.service.outcomes import OutcomeSource
from colour_collector.service.play_models import TryPlay
from colour_collector.service.plays import advance, check_retry, parse_step_request
from colour_collector.service.ports import UnitOfWorkFactory

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
    now: dt.datetime | None = None,
) -> tuple[str, TryPlay]:
    """A new Try play and its secret token; at most ``per_hour`` an hour from one client."""
    at = now or utcnow()
    token = secrets.token_urlsafe(TOKEN_BYTES)
    with factory() as uow:
        if uow.tries.started_since(client, at - RATE_WINDOW) >= per_hour:
            raise TooManyTriesError(
                f"at most {per_hour} Try plays an hour from one address; try again later",
                retry_after_seconds=int(RATE_WINDOW.total_seconds()),
            )
        tier = outcomes.draw(uow, rng)
        record = generate(tier, rng)
        play = TryPlay(
            id=0,
            record=codec.dumps(record),
            revealed=0,
            steps=len(record.steps),
            prize_pence=0 if tier is None else tier.prize_pence,
            created_at=at,
            finished_at=None,
        )
        play = uow.tries.add(_hash(token), play, client)
        uow.tries.delete_before(at - KEEP_FOR)
        uow.commit()
    return token, play


def _valid(token: str) -> str:
    if not 16 <= len(token) <= 64 or not token.replace("-", "").replace("_", "").isalnum():
        raise PlayNotFoundError(f"{token[:80]!r} is not a Try play id")
    return _hash(token)


def get(factory: UnitOfWorkFactory, token: str) -> TryPlay:
    """The Try play with this token."""
    key = _valid(token)
    with factory(write=False) as uow:
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
) -> tuple[TryPlay, int]:
    """Reveal the next step of a Try play (``step``: as :func:`plays.reveal`)."""
    step_kind, parity = parse_step_request(kind, pick)
    key = _valid(token)
    with factory() as uow:
        play = uow.tries.get(key, lock=True)
        if play is None:
            raise PlayNotFoundError("no such Try play (it may have expired)")
        if step is not None and step != play.revealed:
            check_retry(codec.loads(play.record), play.revealed, step, step_kind, parity)
            return play, step
        record = advance(codec.loads(play.record), play.revealed, step_kind, parity, rng)
        text = play.record if parity is None else codec.dumps(record)
        uow.tries.update(play.id, record=text, revealed=play.revealed + 1, finished_at=None)
        uow.commit()
    return replace(play, record=text, revealed=play.revealed + 1), play.revealed


def finish(
    factory: UnitOfWorkFactory, token: str, *, now: dt.datetime | None = None
) -> TryFinished:
    """Press FINISH on a Try play: nothing is credited."""
    key = _valid(token)
    with factory() as uow:
        play = uow.tries.get(key, lock=True)
        if play is None:
            raise PlayNotFoundError("no such Try play (it may have expired)")
        record = codec.loads(play.record)
        nxt = expected_step(record, play.revealed)
        if nxt is not None:
            raise PlayNotOverError(
                f"the Try play is not over: the next step is {nxt.value!r}", expected=nxt.value
            )
        if play.finished_at is None:
            play = replace(play, finished_at=now or utcnow())
            uow.tries.update(
                play.id, record=play.record, revealed=play.revealed, finished_at=play.finished_at
            )
        uow.commit()
    tier = replay(record).tier
    return TryFinished(play, None if tier is None else tier.name)
