"""A player's plays, found by Play Number: only the owner's session ever finds one."""

from __future__ import annotations

from colour_collector.service.errors import PlayNotFoundError
from colour_collector.service.models import AccountId
from colour_collector.service.play_models import StoredPlay
from colour_collector.service.play_numbers import PlayNumberError, parse_play_number
from colour_collector.service.ports import UnitOfWork


def play_number(text: str) -> str:
    """The canonical Play Number in ``text``; :class:`PlayNotFoundError` if it cannot be one."""
    try:
        return parse_play_number(text)
    except PlayNumberError as exc:
        raise PlayNotFoundError(str(exc)) from None


def owned(uow: UnitOfWork, account_id: AccountId, text: str, *, lock: bool = False) -> StoredPlay:
    """The account's play with Play Number ``text`` (locked when ``lock``); another player's
    play answers :class:`PlayNotFoundError` exactly as a play that does not exist."""
    number = play_number(text)
    play = uow.plays.get_for_update(number) if lock else uow.plays.get(number)
    if play is None or play.account_id != account_id:
        raise PlayNotFoundError(f"no play {text!r} in your account")
    return play
