"""Settling a play: FINISH, which credits the stored prize exactly once, and the auto-finisher,
which completes plays left unfinished past their time."""

from __future__ import annotations

import datetime as dt
import logging
import random
from dataclasses import dataclass, replace

from colour_collector.game.errors import RuleError
from colour_collector.game.prize_table import Tier
from colour_collector.game.progress import expected_step, play_out
from colour_collector.game.record import PlayRecord
from colour_collector.game.replay import replay
from colour_collector.service import audit, records
from colour_collector.service.accounts import live_session
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import PlayNotOverError
from colour_collector.service.models import AuditKind, MovementKind, Pence
from colour_collector.service.play_models import PlayStatus, StoredPlay
from colour_collector.service.plays import owned
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory
from colour_collector.service.records import record_sha256
from colour_collector.service.wallet import credit

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Finished:
    """The end screen."""

    play: StoredPlay
    """The finished play."""
    tier: str | None
    """The prize tier's name (None: no win)."""
    balance_pence: Pence
    """The wallet balance after the prize was credited."""


def finish(
    factory: UnitOfWorkFactory,
    token: str | None,
    play_number: str,
    *,
    now: dt.datetime | None = None,
) -> Finished:
    """Press FINISH: credit the prize exactly once; repeats answer the same."""
    at = now or utcnow()
    with factory() as uow:
        account_id = live_session(uow, token, at, lock_account=True).account_id
        play = owned(uow, account_id, play_number, lock=True)
        record = records.decode(play.record)
        if play.status is PlayStatus.IN_PROGRESS:
            nxt = expected_step(record, play.revealed)
            if nxt is not None:
                raise PlayNotOverError(
                    f"play {play.play_number} is not over: the next step is {nxt.value!r}",
                    expected=nxt.value,
                )
            play, tier = _settle(uow, play, record, status=PlayStatus.FINISHED, at=at)
            balance = play.balance_after_pence  # read under the account's lock
        else:
            tier = replay(record).tier
            balance = None
        if balance is None:
            balance = uow.wallets.balance(account_id)
        uow.commit()
    return Finished(play, None if tier is None else tier.name, balance)


def _settle(
    uow: UnitOfWork, play: StoredPlay, record: PlayRecord, *, status: PlayStatus, at: dt.datetime
) -> tuple[StoredPlay, Tier | None]:
    """Credit the play's prize and close it, inside ``uow`` (the account is locked); the closed
    play and its prize tier (None: no win)."""
    try:
        result = replay(record)
    except RuleError as exc:  # the stored play was generated and checked at purchase
        raise RuntimeError(f"stored play {play.play_number} does not replay: {exc}") from exc
    if result.prize != play.prize_pence:
        raise RuntimeError(f"stored play {play.play_number} pays {result.prize}, not its prize")
    if play.prize_pence > 0:
        credit(
            uow,
            play.account_id,
            play.prize_pence,
            MovementKind.PRIZE,
            reference=play.play_number,
            now=at,
        )
    text = records.encode(record)
    closed = replace(
        play,
        record=text,
        revealed=len(record.steps),
        status=status,
        balance_after_pence=uow.wallets.balance(play.account_id),
        finished_at=at,
    )
    uow.plays.save(closed, was=play)
    audit.append(
        uow,
        AuditKind.FINISH if status is PlayStatus.FINISHED else AuditKind.AUTO_FINISH,
        play.account_id,
        {
            "play_number": play.play_number,
            "prize_pence": play.prize_pence,
            "tier": None if result.tier is None else result.tier.name,
            "record_sha256": record_sha256(text),
        },
        now=at,
    )
    return closed, result.tier


def auto_finish_due(
    factory: UnitOfWorkFactory,
    rng: random.Random,
    *,
    now: dt.datetime | None = None,
    limit: int = 100,
) -> list[str]:
    """Complete plays left unfinished past their time; their Play Numbers.

    Remaining bonus rounds get random picks (the picks change nothing); the prize is credited.
    Locks are taken in the order FINISH takes them (account, then play). A play that cannot be
    completed is logged and left for the operator; the others are still completed.
    """
    at = now or utcnow()
    with factory() as uow:
        due = list(uow.plays.due(at, limit))
    done = []
    for number in due:
        try:
            if _auto_finish_one(factory, number, rng, at):
                done.append(number)
        except Exception:  # one broken play must not stop the others
            log.exception("auto-finish of play %s failed", number)
    return done


def _auto_finish_one(
    factory: UnitOfWorkFactory, number: str, rng: random.Random, at: dt.datetime
) -> bool:
    with factory() as uow:
        seen = uow.plays.get(number)
        if seen is None or uow.accounts.get_for_update(seen.account_id) is None:
            return False
        play = uow.plays.get_for_update(number)
        if play is None or play.status is not PlayStatus.IN_PROGRESS or play.finish_by > at:
            return False
        record = play_out(records.decode(play.record), play.revealed, rng)
        _settle(uow, play, record, status=PlayStatus.AUTO_FINISHED, at=at)
        uow.commit()
    return True
