"""Buying a play: the quote on the purchase screen, and the purchase itself.

A purchase first reads, in a unit of work it never commits, whether it will deal and which deal it
expects (the outcome drawn, or the next position of the prize pool on sale), and generates the
whole play from that deal with no unit of work open: a rare prize's play can take most of a
second to build, and no other request may wait on a lock for that long, or its wait would tell
what was bought (``service.outcomes``). Then, in one transaction under the lock of the player's
account, it debits the price, takes the deal (starting again if another purchase took it first),
stores the play and appends to the audit log. From then on the stored play decides everything.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from colour_collector.game.generator import generate
from colour_collector.game.record import PlayRecord
from colour_collector.service import audit, records, safeguards
from colour_collector.service.accounts import live_session
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    ConfirmationRequiredError,
    PoolUnavailableError,
    ServiceError,
)
from colour_collector.service.idempotency import check_idempotency_key
from colour_collector.service.models import AuditKind, MovementKind, Pence
from colour_collector.service.outcomes import Deal, DealMovedError, OutcomeSource
from colour_collector.service.play_builds import build_once
from colour_collector.service.play_models import PlayStatus, StoredPlay
from colour_collector.service.play_numbers import new_play_number
from colour_collector.service.ports import UnitOfWorkFactory
from colour_collector.service.records import record_sha256
from colour_collector.service.wallet import debit


@dataclass(frozen=True, slots=True)
class PlayPolicy:
    """What a purchase needs from the settings."""

    price_pence: Pence
    """The price of a play."""
    finish_delay: dt.timedelta
    """How long a play may stay unfinished before the server completes it."""
    outcomes: OutcomeSource
    """Where outcomes come from."""


@dataclass(frozen=True, slots=True)
class Quote:
    """What the purchase screen shows before confirmation."""

    price_pence: Pence
    """The price."""
    balance_pence: Pence
    """The wallet balance now."""
    unfinished: StoredPlay | None
    """A play in progress that a purchase would resume instead."""
    refusal: ServiceError | None
    """What a purchase would be refused with now (sales stopped, a break in force, a reality
    check due, the pools sold out or unusable); None when it would go ahead, or when it would
    resume ``unfinished``. A balance below the price is left to ``balance_pence``."""


@dataclass(frozen=True, slots=True)
class Purchase:
    """The answer to a purchase."""

    play: StoredPlay
    """The new play, or the one resumed."""
    created: bool
    """Whether this request bought it (False: resumed, or an Idempotency-Key repeat)."""
    resumed: bool
    """Whether an unfinished play was returned instead of a purchase."""
    balance_pence: Pence
    """The wallet balance after the request."""

    @property
    def record(self) -> PlayRecord:
        """The play's record."""
        return records.decode(self.play.record)


def quote(
    factory: UnitOfWorkFactory,
    token: str | None,
    policy: PlayPolicy,
    *,
    now: dt.datetime | None = None,
) -> Quote:
    """Price, balance, any unfinished play and what would refuse a purchase now, for the
    purchase screen. The refusal is found by the purchase's own checks, so the screen warns of
    exactly what Confirm would be refused with."""
    at = now or utcnow()
    with factory() as uow:
        session = live_session(uow, token, at)
        unfinished = uow.plays.unfinished(session.account_id)
        refusal = None
        if unfinished is None:
            try:
                safeguards.before_purchase(uow, session, at)
            except ServiceError as error:
                refusal = error
            else:
                refusal = policy.outcomes.refusal(uow)
        return Quote(
            policy.price_pence, uow.wallets.balance(session.account_id), unfinished, refusal
        )


DEAL_ATTEMPTS = 100
"""Times a purchase starts again because other purchases took the deal it expected before it
could (each time one of them was sold); then it is refused as the pool being busy."""


def purchase(
    factory: UnitOfWorkFactory,
    token: str | None,
    policy: PlayPolicy,
    *,
    confirm: bool,
    idempotency_key: str | None,
    rng: random.Random,
    now: dt.datetime | None = None,
) -> Purchase:
    """Buy a play, or answer the play an earlier purchase with the same Idempotency-Key bought,
    or the unfinished play (which must be finished first), in one transaction; the play is
    generated before it, with no unit of work open."""
    if confirm is not True:
        raise ConfirmationRequiredError(
            'a purchase must be confirmed: send {"confirm": true}', field="confirm"
        )
    key = check_idempotency_key(idempotency_key)
    for _ in range(DEAL_ATTEMPTS):
        at = now or utcnow()
        expected = _expected_deal(factory, token, policy, key=key, rng=rng, at=at)
        record = None if expected is None else _build(expected)
        try:
            return _buy(factory, token, policy, key=key, expected=expected, record=record, at=at)
        except DealMovedError:
            continue
    raise PoolUnavailableError("the prize pool is busy just now; try again in a moment")


def _build(deal: Deal) -> PlayRecord:
    """The play of ``deal``; a pool position's built once in this process however many
    purchases expect it at once (``play_builds``)."""
    if deal.seed is None:
        return generate(deal.tier, deal.rng)
    return build_once((deal.seed, deal.tier), lambda: generate(deal.tier, deal.rng))


def _expected_deal(
    factory: UnitOfWorkFactory,
    token: str | None,
    policy: PlayPolicy,
    *,
    key: str | None,
    rng: random.Random,
    at: dt.datetime,
) -> Deal | None:
    """The deal the purchase expects, read in a unit of work that is never committed and locks
    nothing for long; None when the purchase will deal nothing (an Idempotency-Key repeat, a
    play to resume, a refusal, too little money), which its own transaction then answers. So no
    play is generated for a request that buys nothing."""
    with factory() as uow:
        session = live_session(uow, token, at)
        account_id = session.account_id
        if key is not None and uow.plays.by_idempotency_key(account_id, key) is not None:
            return None
        if uow.plays.unfinished(account_id) is not None:
            return None
        try:
            safeguards.before_purchase(uow, session, at)
        except ServiceError:
            return None
        if uow.wallets.balance(account_id) < policy.price_pence:
            return None
        return policy.outcomes.expect(uow, rng)


def _buy(
    factory: UnitOfWorkFactory,
    token: str | None,
    policy: PlayPolicy,
    *,
    key: str | None,
    expected: Deal | None,
    record: PlayRecord | None,
    at: dt.datetime,
) -> Purchase:
    """The purchase's transaction: the play ``record`` of the ``expected`` deal, bought
    (:class:`DealMovedError` if another purchase took that deal first)."""
    with factory() as uow:
        session = live_session(uow, token, at, lock_account=True)
        account_id = session.account_id
        earlier = None if key is None else uow.plays.by_idempotency_key(account_id, key)
        if earlier is not None:
            return Purchase(earlier, False, False, uow.wallets.balance(account_id))
        unfinished = uow.plays.unfinished(account_id)
        if unfinished is not None:
            return Purchase(unfinished, False, True, uow.wallets.balance(account_id))
        safeguards.before_purchase(uow, session, at)
        number = new_play_number()
        balance = debit(
            uow, account_id, policy.price_pence, MovementKind.STAKE, reference=number, now=at
        )
        deal = policy.outcomes.take(uow, expected, at)
        if record is None:  # take answers only the deal it was given
            raise DealMovedError("no play was generated for this purchase")
        tier = deal.tier
        text = records.encode(record)
        play = uow.plays.add(
            StoredPlay(
                id=0,
                play_number=number,
                account_id=account_id,
                status=PlayStatus.IN_PROGRESS,
                record=text,
                revealed=0,
                steps=len(record.steps),
                tier_index=None if tier is None else tier.index,
                prize_pence=0 if tier is None else tier.prize_pence,
                price_pence=policy.price_pence,
                idempotency_key=key,
                balance_before_pence=balance + policy.price_pence,
                balance_after_pence=None,
                purchased_at=at,
                finish_by=at + policy.finish_delay,
                finished_at=None,
                pool_id=deal.pool_id,
                pool_position=deal.position,
            )
        )
        audit.append(
            uow,
            AuditKind.PURCHASE,
            account_id,
            {
                "play_number": number,
                "price_pence": policy.price_pence,
                "tier": None if tier is None else tier.name,
                "record_sha256": record_sha256(text),
                "idempotency_key": key,
                "pool": deal.pool_id,
                "position": deal.position,
            },
            now=at,
        )
        uow.commit()
    return Purchase(play, True, False, balance)
