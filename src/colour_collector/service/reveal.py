"""Revealing a purchased play one step at a time.

A step locks the play by the player's session and its Play Number, reveals through the pure core
(``game.progress``), and writes the new ``revealed`` count (and, for a Bonus Game pick, the pick
and its reel number) together with its audit entry in one transaction. Nothing the player does
changes the outcome: every step was fixed at purchase.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, replace

from colour_collector.game.progress import StepConflictError, StepKind, expected_step
from colour_collector.game.progress import reveal as reveal_step
from colour_collector.game.record import Parity, PlayRecord
from colour_collector.service import audit, plays, records
from colour_collector.service.accounts import hash_token, live_session
from colour_collector.service.audit import JsonValue
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    InvalidInputError,
    PlayNotFoundError,
    StepOutOfOrderError,
)
from colour_collector.service.models import AuditKind
from colour_collector.service.play_models import PlayStatus, StoredPlay
from colour_collector.service.play_numbers import PlayNumberError, parse_play_number
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory


@dataclass(frozen=True, slots=True)
class Revealed:
    """The answer to a step."""

    play: StoredPlay
    """The play as saved."""
    index: int
    """The index of the step revealed."""
    repeated: bool = False
    """The step was revealed before: this answers it again (a retry, or another tab's step)."""

    @property
    def record(self) -> PlayRecord:
        """The play's record as saved."""
        return records.decode(self.play.record)


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
    record: PlayRecord,
    revealed: int,
    kind: StepKind,
    pick: Parity | None,
    rng: random.Random,
    *,
    step: int | None = None,
) -> PlayRecord:
    """Reveal the next step of a stored record, as a service error when out of order (naming
    how many steps are revealed when the request named its ``step``)."""
    try:
        return reveal_step(record, revealed, kind, pick, rng)
    except StepConflictError as exc:
        expected = None if exc.expected is None else exc.expected.value
        raise StepOutOfOrderError(
            str(exc), expected=expected, revealed=None if step is None else revealed
        ) from None


def check_retry(
    record: PlayRecord, revealed: int, step: int, kind: StepKind, parity: Parity | None
) -> None:
    """For a request naming step ``step`` of a play with ``revealed`` steps shown, when ``step``
    is not the next one: return if it retries the step just revealed (same kind and pick), so
    the caller answers that step again; raise :class:`StepOutOfOrderError` otherwise."""
    nxt = expected_step(record, revealed)
    why = f"step {step} is not the next step: {revealed} steps of the play are revealed"
    if step == revealed - 1 and expected_step(record, step) is kind:
        chosen = getattr(record.steps[step], "pick", None)
        if parity is None or chosen is parity:
            return
        # A retry of the Bonus Game pick just revealed, with the other pick: it stands as made.
        why = f"step {step} is revealed already, with the pick {chosen}, not {parity}"
    raise StepOutOfOrderError(why, expected=None if nxt is None else nxt.value, revealed=revealed)


def reveal(
    factory: UnitOfWorkFactory,
    token: str | None,
    play_number: str,
    kind: str,
    pick: str | None,
    *,
    rng: random.Random,
    step: int | None = None,
    now: dt.datetime | None = None,
) -> Revealed:
    """Reveal the next step of the player's play.

    ``step``, when given, is the index of the step the player means to reveal: a retry of the
    step just revealed answers it again (writing nothing); another index than the next raises
    :class:`StepOutOfOrderError` naming how far the play is.
    """
    step_kind, parity = parse_step_request(kind, pick)
    at = now or utcnow()
    with factory() as uow:
        play = _session_play(uow, token, play_number, at)
        record = records.decode(play.record)
        if step is not None and step != play.revealed:
            check_retry(record, play.revealed, step, step_kind, parity)
            return Revealed(play, step, repeated=True)
        if play.status is not PlayStatus.IN_PROGRESS:
            raise StepOutOfOrderError(
                f"play {play.play_number} is finished",
                expected=None,
                revealed=None if step is None else play.revealed,
            )
        shown = advance(record, play.revealed, step_kind, parity, rng, step=step)
        text = play.record if shown is record else records.encode(shown)
        saved = replace(play, record=text, revealed=play.revealed + 1)
        uow.plays.save(saved, was=play)
        audit.append(
            uow,
            AuditKind.REVEAL,
            play.account_id,
            _payload(play.play_number, play.revealed, step_kind, parity, shown),
            now=at,
        )
        uow.commit()
    return Revealed(saved, play.revealed)


def _session_play(uow: UnitOfWork, token: str | None, text: str, at: dt.datetime) -> StoredPlay:
    """The play with Play Number ``text`` of the account of the live session ``token``, locked,
    read with the session in one statement. When that finds nothing, a dead session answers
    :class:`NotAuthenticatedError` before the play answers :class:`PlayNotFoundError`."""
    try:
        number: str | None = parse_play_number(text)
    except PlayNumberError:
        number = None
    found = None
    if token and number is not None:
        found = uow.plays.session_play_for_update(hash_token(token), number, at)
    if found is None:
        live_session(uow, token, at)
        plays.play_number(text)  # a malformed Play Number says what is wrong with it
        raise PlayNotFoundError(f"no play {text!r} in your account")
    return found


def _payload(
    number: str, index: int, kind: StepKind, parity: Parity | None, record: PlayRecord
) -> dict[str, JsonValue]:
    """What the audit log records of a step."""
    payload: dict[str, JsonValue] = {"play_number": number, "step": index, "kind": kind.value}
    if parity is not None:
        payload["pick"] = parity.value
        payload["number"] = getattr(record.steps[index], "number", None)
    return payload
