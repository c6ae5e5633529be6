"""What a player can look at: the unfinished play, one play, and My Games, page by page."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from colour_collector.service.accounts import live_session
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import InvalidInputError, PlayNotFoundError
from colour_collector.service.play_models import StoredPlay
from colour_collector.service.plays import owned
from colour_collector.service.ports import UnitOfWorkFactory

MAX_PAGE = 100
"""Most plays one My Games page holds."""


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


def current(
    factory: UnitOfWorkFactory, token: str | None, *, now: dt.datetime | None = None
) -> StoredPlay:
    """The player's unfinished play; :class:`PlayNotFoundError` if there is none."""
    with factory() as uow:
        session = live_session(uow, token, now or utcnow())
        play = uow.plays.unfinished(session.account_id)
    if play is None:
        raise PlayNotFoundError("you have no unfinished play")
    return play


def get_play(
    factory: UnitOfWorkFactory,
    token: str | None,
    play_number: str,
    *,
    now: dt.datetime | None = None,
) -> StoredPlay:
    """One of the player's plays."""
    with factory() as uow:
        session = live_session(uow, token, now or utcnow())
        return owned(uow, session.account_id, play_number)


def my_games(
    factory: UnitOfWorkFactory,
    token: str | None,
    page: int,
    per_page: int,
    *,
    now: dt.datetime | None = None,
) -> PlayPage:
    """The player's plays, newest first."""
    if page < 1:
        raise InvalidInputError(f"page must be 1 or more, not {page!r}", field="page")
    if not 1 <= per_page <= MAX_PAGE:
        raise InvalidInputError(
            f"per_page must be 1 to {MAX_PAGE}, not {per_page!r}", field="per_page"
        )
    with factory() as uow:
        account_id = live_session(uow, token, now or utcnow()).account_id
        items = uow.plays.page(account_id, (page - 1) * per_page, per_page)
        total = uow.plays.count(account_id)
    return PlayPage(items, page, per_page, total)
