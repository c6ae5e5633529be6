"""Purchased plays: purchase, step-by-step reveal, finish, My Games, recall and auto-finish.

A purchase debits the price, draws the outcome, generates the whole play, stores it and appends
to the audit log in one transaction. From then on the stored play decides everything: a reveal
only moves the ``revealed`` counter forward (and records a bonus pick with its reel number), and
the prize is the stored play's, credited once when the play is finished.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from colour_collector.game import codec
from colour_collector.game.errors import RuleError
from colour_collector.game.generator import generate
from colour_collector.game.prize_table import Tier
from colour_collector.game.progress import StepConflictError, StepKind, expected_step, play_out
from colour_collector.game.progress import reveal as reveal_step
from colour_collector.game.record import Parity, PlayRecord
from colour_collector.game.replay import replay
from colour_collector.service import audit, wallet
from colour_collector.service.accounts import (
    Caller,
    SessionToken,
    caller_id,
    hash_token,
    locked_caller_id,
)
from colour_collector.service.audit import JsonValue
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    ConfirmationRequiredError,
    DuplicatePlayError,
    InvalidInputError,
    PlayNotFoundError,
    PlayNotOverError,
    StepOutOfOrderError,
)
from colour_collector.service.models import AccountId, AuditKind, MovementKind, Pence
from colour_collector.service.outcomes import OutcomeSource
from colour_collector.service.play_models import PlayStatus, StoredPlay
from colour_collector.service.play_numbers import (
    PlayNumberError,
    new_play_number,
    parse_play_number,
)
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory
from colour_collector.service.record_cache import RECORDS

log = logging.getLogger(__name__)

MAX_PAGE = 100
"""Most plays one My Games page holds."""
MAX_IDEMPOTENCY_KEY = 255
"""Longest accepted Idempotency-Key."""


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
    record: PlayRecord | None = None
    """The play's record when this request generated it (saves decoding ``play.record``)."""

    def play_record(self) -> PlayRecord:
        """The play's record."""
        return record_of(self.play) if self.record is None else self.record


@dataclass(frozen=True, slots=True)
class Revealed:
    """The answer to a reveal."""

    play: StoredPlay
    """The saved play."""
    index: int
    """The index of the step revealed."""
    record: PlayRecord
    """The play's record as saved (``record_of(play)``, already decoded)."""


@dataclass(frozen=True, slots=True)
class Finished:
    """The end screen."""

    play: StoredPlay
    """The finished play."""
    tier: str | None
    """The prize tier's name (None: no win)."""
    balance_pence: Pence
    """The wallet balance after the prize was credited."""


@dataclass(frozen=True, slots=True)
class PlayPage:
    """One page of My Games."""

    items: Sequence[StoredPlay]
    """Plays, newest first."""
    page: int
    """Page number, from 1."""
    per_page: int
    """Page size."""
    total: int
    """Plays in all."""


def record_of(play: StoredPlay) -> PlayRecord:
    """The stored play record (decoded once per process, see :mod:`record_cache`)."""
    return RECORDS.decode(play.record)


def _encode(record: PlayRecord) -> str:
    text = codec.dumps(record)
    RECORDS.remember(text, record)
    return text


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _play_number(text: str) -> str:
    try:
        return parse_play_number(text)
    except PlayNumberError as exc:
        raise PlayNotFoundError(str(exc)) from None


def _owned(uow: UnitOfWork, account_id: AccountId, play_number: str, *, lock: bool) -> StoredPlay:
    play = uow.plays.get(_play_number(play_number), lock=lock)
    if play is None or play.account_id != account_id:
        raise PlayNotFoundError(f"no play {play_number!r} in your account")
    return play


def _caller_and_play(
    uow: UnitOfWork, caller: Caller, play_number: str, now: dt.datetime
) -> tuple[AccountId, StoredPlay]:
    """The caller's account and its play ``play_number``, locked for update.

    For a session token, the session and the play are found by one statement; only when it finds
    nothing is the session looked up alone, so that a dead session still answers
    ``NotAuthenticatedError`` before an unknown play answers ``PlayNotFoundError``.
    """
    if isinstance(caller, SessionToken):
        try:
            number = parse_play_number(play_number)
        except PlayNumberError:
            number = None
        if number is not None:
            kept = RECORDS.latest(number)
            known = None if kept is None else (kept.revealed, kept.record)
            play = uow.plays.locked_for_session(hash_token(caller.token), number, now, known)
            if play is not None:
                return play.account_id, play
    account_id = caller_id(uow, caller, now)
    return account_id, _owned(uow, account_id, play_number, lock=True)


def check_idempotency_key(key: str | None) -> str | None:
    """The key, if acceptable: 1 to 255 printable ASCII characters."""
    if key is None:
        return None
    if not 0 < len(key) <= MAX_IDEMPOTENCY_KEY or not key.isascii() or not key.isprintable():
        raise InvalidInputError(
            f"Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY} printable ASCII characters",
            field="Idempotency-Key",
        )
    return key


# -- purchase --------------------------------------------------------------------------------------


def quote(factory: UnitOfWorkFactory, account_id: AccountId, policy: PlayPolicy) -> Quote:
    """Price, balance and any unfinished play, for the purchase screen."""
    with factory(write=False) as uow:
        return Quote(
            policy.price_pence, wallet.balance(uow, account_id), uow.plays.unfinished(account_id)
        )


def purchase(
    factory: UnitOfWorkFactory,
    caller: Caller,
    policy: PlayPolicy,
    *,
    confirm: bool,
    idempotency_key: str | None,
    rng: random.Random,
    now: dt.datetime | None = None,
) -> Purchase:
    """Buy a play (or resume the unfinished one) in one transaction.

    When the outcome source depends on nothing stored (independent draws), the outcome is drawn
    and the play generated just before the transaction opens, so that SQLite's single writer is
    not held while a play is built; nothing of it is kept unless the transaction commits (a
    session token that turns out dead inside it, a resumed play: the play is dropped unseen). A
    finite pool is dealt from inside the transaction.
    """
    if confirm is not True:
        raise ConfirmationRequiredError(
            'a purchase must be confirmed: send {"confirm": true}', field="confirm"
        )
    key = check_idempotency_key(idempotency_key)
    at = now or utcnow()
    early = None if policy.outcomes.needs_transaction else _new_play(policy.outcomes, None, rng)
    with factory() as uow:
        account_id = locked_caller_id(uow, caller, at)
        state = uow.plays.before_purchase(account_id, key)  # read under the account's lock
        if state.earlier is not None:
            return Purchase(state.earlier, False, False, state.balance_pence)
        if state.unfinished is not None:
            return Purchase(state.unfinished, False, True, state.balance_pence)
        before = state.balance_pence
        number = new_play_number()
        wallet.debit_locked(
            uow,
            account_id,
            policy.price_pence,
            MovementKind.STAKE,
            balance_pence=before,
            reference=number,
            now=at,
        )
        tier, record, text = early or _new_play(policy.outcomes, uow, rng)
        play = StoredPlay(
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
            balance_before_pence=before,
            balance_after_pence=None,
            purchased_at=at,
            finish_by=at + policy.finish_delay,
            finished_at=None,
        )
        try:
            play = uow.plays.add(play)
        except DuplicatePlayError:
            # A Play Number clash (2^-40 a pair) or a racing Idempotency-Key: nothing is written.
            uow.rollback()
            raise
        audit.append(
            uow,
            AuditKind.PURCHASE,
            account_id,
            {
                "play_number": number,
                "price_pence": policy.price_pence,
                "tier": None if tier is None else tier.name,
                "record_sha256": _digest(text),
                "idempotency_key": key,
            },
            now=at,
        )
        uow.commit()
    RECORDS.note(play)
    # The account stayed locked from the balance read to the debit: nothing else moved.
    return Purchase(play, True, False, before - policy.price_pence, record)


def _new_play(
    outcomes: OutcomeSource, uow: UnitOfWork | None, rng: random.Random
) -> tuple[Tier | None, PlayRecord, str]:
    """Draw an outcome, generate its play, encode the record."""
    tier = outcomes.draw(uow, rng)
    record = generate(tier, rng)
    return tier, record, _encode(record)


# -- reading ---------------------------------------------------------------------------------------


def current(factory: UnitOfWorkFactory, account_id: AccountId) -> StoredPlay:
    """The unfinished play; ``PlayNotFoundError`` if there is none."""
    with factory(write=False) as uow:
        play = uow.plays.unfinished(account_id)
    if play is None:
        raise PlayNotFoundError("you have no unfinished play")
    return play


def get_play(factory: UnitOfWorkFactory, account_id: AccountId, play_number: str) -> StoredPlay:
    """One of the player's plays."""
    with factory(write=False) as uow:
        return _owned(uow, account_id, play_number, lock=False)


def my_games(
    factory: UnitOfWorkFactory, account_id: AccountId, page: int, per_page: int
) -> PlayPage:
    """The player's plays, newest first."""
    if page < 1:
        raise InvalidInputError(f"page must be 1 or more, not {page!r}", field="page")
    if not 1 <= per_page <= MAX_PAGE:
        raise InvalidInputError(
            f"per_page must be 1 to {MAX_PAGE}, not {per_page!r}", field="per_page"
        )
    with factory(write=False) as uow:
        items = uow.plays.page(account_id, (page - 1) * per_page, per_page)
        total = uow.plays.count(account_id)
    return PlayPage(items, page, per_page, total)


# -- reveal and finish -----------------------------------------------------------------------------


def parse_step_request(kind: str, pick: str | None) -> tuple[StepKind, Parity | None]:
    """Check a step request's kind and pick."""
    kinds = [k.value for k in StepKind]
    if kind not in kinds:
        raise InvalidInputError(f"kind must be one of {kinds!r}, not {kind!r}", field="kind")
    step_kind = StepKind(kind)
    if step_kind is StepKind.BONUS_PICK:
        if pick not in ("odd", "even"):
            raise InvalidInputError(
                f"a bonus pick needs pick 'odd' or 'even', not {pick!r}", field="pick"
            )
        return step_kind, Parity(pick)
    if pick is not None:
        raise InvalidInputError(f"only a bonus pick takes a pick, not a {kind!r}", field="pick")
    return step_kind, None


def advance(
    record: PlayRecord, revealed: int, kind: StepKind, pick: Parity | None, rng: random.Random
) -> PlayRecord:
    """Reveal the next step of a stored record, as a service error when out of order."""
    try:
        return reveal_step(record, revealed, kind, pick, rng)
    except StepConflictError as exc:
        expected = None if exc.expected is None else exc.expected.value
        raise StepOutOfOrderError(str(exc), expected=expected) from None


def reveal(
    factory: UnitOfWorkFactory,
    caller: Caller,
    play_number: str,
    kind: str,
    pick: str | None,
    *,
    rng: random.Random,
    now: dt.datetime | None = None,
    step: int | None = None,
) -> Revealed:
    """Reveal the next step; return the saved play, the step's index and the record.

    ``step``, when given, is the index of the step the caller means to reveal: a retry of the
    step just revealed answers it again (writing nothing); another index than the next raises
    :class:`StepOutOfOrderError` naming how far the play is.
    """
    step_kind, parity = parse_step_request(kind, pick)
    at = now or utcnow()
    if isinstance(caller, SessionToken):
        done = _reveal_kept(
            step,
            factory,
            caller,
            play_number,
            kind=kind,
            step_kind=step_kind,
            parity=parity,
            rng=rng,
            at=at,
        )
        if done is not None:
            return done
    with factory() as uow:
        account_id, play = _caller_and_play(uow, caller, play_number, at)
        if step is not None and step != play.revealed:
            record = record_of(play)
            check_retry(record, play.revealed, step, step_kind, parity)
            return Revealed(play, step, record)
        if play.status is not PlayStatus.IN_PROGRESS:
            raise StepOutOfOrderError(f"play {play.play_number} is finished", expected=None)
        record = advance(record_of(play), play.revealed, step_kind, parity, rng)
        text = play.record if parity is None else _encode(record)
        index = play.revealed
        saved = replace(play, record=text, revealed=index + 1)
        if parity is None:  # the record is unchanged: only the counter moves
            uow.plays.advance(play.id, index + 1)
        else:  # a bonus pick records the pick and its reel number
            uow.plays.update(
                play.id,
                record=text,
                revealed=index + 1,
                status=play.status,
                balance_after_pence=None,
                finished_at=None,
            )
        payload = _reveal_payload(play.play_number, index, kind, parity, record)
        audit.append(uow, AuditKind.REVEAL, account_id, payload, now=at)
        uow.commit()
    RECORDS.note(saved)
    return Revealed(saved, index, record)


def check_retry(
    record: PlayRecord, revealed: int, step: int, kind: StepKind, parity: Parity | None
) -> None:
    """For a request naming step ``step`` of a play with ``revealed`` steps shown, when ``step``
    is not the next one: return if it retries the step just revealed (same kind and pick), so
    the caller answers that step again; raise :class:`StepOutOfOrderError` otherwise."""
    if step == revealed - 1 and expected_step(record, step) is kind:
        shown = record.steps[step]
        if parity is None or getattr(shown, "pick", None) is parity:
            return
    nxt = expected_step(record, revealed)
    raise StepOutOfOrderError(
        f"step {step} is not the next step: {revealed} steps of the play are revealed",
        expected=None if nxt is None else nxt.value,
        revealed=revealed,
    )


def _reveal_kept(
    step: int | None,
    factory: UnitOfWorkFactory,
    caller: SessionToken,
    play_number: str,
    *,
    kind: str,
    step_kind: StepKind,
    parity: Parity | None,
    rng: random.Random,
    at: dt.datetime,
) -> Revealed | None:
    """The step written from the play as this process last stored it (``RECORDS.latest``),
    without reading it first: one statement on PostgreSQL. None, with nothing written, when
    the process kept nothing for it, or the stored play has moved on (another process served
    a step or finished it), or the session is not its owner's live session: the full path
    then reads the play and answers."""
    try:
        number = parse_play_number(play_number)
    except PlayNumberError:
        return None
    play = RECORDS.latest(number)
    if play is None or play.status is not PlayStatus.IN_PROGRESS:
        return None
    if step is not None and step != play.revealed:
        return None  # perhaps a retry: the full path answers from the store
    try:
        record = advance(record_of(play), play.revealed, step_kind, parity, rng)
    except StepOutOfOrderError:
        return None  # as kept, perhaps not as stored: the full path answers from the store
    # Kept by the cache only once written: a text never stored must not push others out.
    text = play.record if parity is None else codec.dumps(record)
    index = play.revealed
    payload = _reveal_payload(play.play_number, index, kind, parity, record)
    entry = audit.new_entry(AuditKind.REVEAL, play.account_id, payload, now=at)
    with factory() as uow:
        written = uow.plays.advance_kept(
            play,
            token_hash=hash_token(caller.token),
            now=at,
            record=None if parity is None else text,
            entry=entry,
        )
        if not written:
            return None
        uow.commit()
    if parity is not None:
        RECORDS.remember(text, record)
    saved = replace(play, record=text, revealed=index + 1)
    RECORDS.note(saved)
    return Revealed(saved, index, record)


def _reveal_payload(
    number: str, index: int, kind: str, parity: Parity | None, record: PlayRecord
) -> dict[str, JsonValue]:
    """What the audit log records of a step."""
    payload: dict[str, JsonValue] = {"play_number": number, "step": index, "kind": kind}
    if parity is not None:
        payload["pick"] = parity.value
        payload["number"] = getattr(record.steps[index], "number", None)
    return payload


def finish(
    factory: UnitOfWorkFactory,
    caller: Caller,
    play_number: str,
    *,
    now: dt.datetime | None = None,
) -> Finished:
    """Press FINISH: credit the prize exactly once; repeats answer the same."""
    at = now or utcnow()
    with factory() as uow:
        account_id = locked_caller_id(uow, caller, at)
        play = _owned(uow, account_id, play_number, lock=True)
        record = record_of(play)
        if play.status is PlayStatus.IN_PROGRESS:
            nxt = expected_step(record, play.revealed)
            if nxt is not None:
                raise PlayNotOverError(
                    f"play {play.play_number} is not over: the next step is {nxt.value!r}",
                    expected=nxt.value,
                )
            play, tier = _settle(
                uow,
                play,
                record,
                play.record,
                status=PlayStatus.FINISHED,
                kind=AuditKind.FINISH,
                at=at,
            )
            balance = play.balance_after_pence  # read under the account's lock by _settle
        else:
            tier = _tier_name(record)
            balance = None
        if balance is None:
            balance = wallet.balance(uow, account_id)
        uow.commit()
    return Finished(play, tier, balance)


def _tier_name(record: PlayRecord) -> str | None:
    tier = replay(record).tier
    return None if tier is None else tier.name


def _settle(
    uow: UnitOfWork,
    play: StoredPlay,
    record: PlayRecord,
    text: str,
    *,
    status: PlayStatus,
    kind: AuditKind,
    at: dt.datetime,
) -> tuple[StoredPlay, str | None]:
    """Credit the stored play's prize and close it (inside the caller's unit of work).

    ``text`` is ``record`` encoded. Returns the closed play and its prize tier's name (None:
    no win).
    """
    try:
        result = replay(record)
    except RuleError as exc:  # the stored play was generated and checked at purchase
        raise RuntimeError(f"stored play {play.play_number} does not replay: {exc}") from exc
    if result.prize != play.prize_pence:
        raise RuntimeError(f"stored play {play.play_number} pays {result.prize}, not its prize")
    if play.prize_pence > 0:  # the caller locked the account
        wallet.credit_locked(
            uow,
            play.account_id,
            play.prize_pence,
            MovementKind.PRIZE,
            reference=play.play_number,
            now=at,
        )
    balance = wallet.balance(uow, play.account_id)
    uow.plays.update(
        play.id,
        record=text,
        revealed=len(record.steps),
        status=status,
        balance_after_pence=balance,
        finished_at=at,
    )
    audit.append(
        uow,
        kind,
        play.account_id,
        {
            "play_number": play.play_number,
            "prize_pence": play.prize_pence,
            "tier": None if result.tier is None else result.tier.name,
            "record_sha256": _digest(text),
        },
        now=at,
    )
    tier = None if result.tier is None else result.tier.name
    closed = replace(
        play,
        record=text,
        revealed=len(record.steps),
        status=status,
        balance_after_pence=balance,
        finished_at=at,
    )
    return closed, tier


def auto_finish_due(
    factory: UnitOfWorkFactory,
    rng: random.Random,
    *,
    now: dt.datetime | None = None,
    limit: int = 100,
) -> list[str]:
    """Complete plays left unfinished past their time; return their Play Numbers.

    Remaining bonus rounds get random picks (the picks change nothing); the prize is credited.
    Locks are taken in the order FINISH takes them (account, then play), so the two never
    deadlock. A play that cannot be completed is logged and left for the operator; the others
    are still completed.
    """
    at = now or utcnow()
    with factory(write=False) as uow:
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
        if seen is None:
            return False
        uow.accounts.lock(seen.account_id)
        play = uow.plays.get(number, lock=True)
        if play is None or play.status is not PlayStatus.IN_PROGRESS or play.finish_by > at:
            return False
        record = play_out(record_of(play), play.revealed, rng)
        _settle(
            uow,
            play,
            record,
            _encode(record),
            status=PlayStatus.AUTO_FINISHED,
            kind=AuditKind.AUTO_FINISH,
            at=at,
        )
        uow.commit()
    return True
