"""Player look-up for the operator console: a player's account, balance, limits, exclusions,
latest plays and movements. Looking is an action on personal data: it needs the support role and
is audited with the operator's name."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from colour_collector.service import audit, protection
from colour_collector.service.accounts import normalise_email
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import InvalidInputError, NotFoundError
from colour_collector.service.models import LARGEST_ID, Account, AuditKind, Movement, Pence
from colour_collector.service.operators import operator_in
from colour_collector.service.play_models import StoredPlay
from colour_collector.service.play_numbers import PlayNumberError, parse_play_number
from colour_collector.service.ports import UnitOfWorkFactory
from colour_collector.service.protection import LimitStanding
from colour_collector.service.protection_models import (
    Exclusion,
    ExclusionKind,
    LimitPeriod,
    OperatorRole,
    ProtectionSettings,
)

SHOWN = 20
"""Latest plays and movements shown."""
LARGEST_ACCOUNT_NUMBER = LARGEST_ID
"""Account numbers are the accounts' integer ids."""


@dataclass(frozen=True, slots=True)
class PlayerFile:
    """What the console shows of a player."""

    account: Account
    """The account."""
    balance_pence: Pence
    """The wallet balance."""
    limits: Mapping[LimitPeriod, LimitStanding]
    """Deposit limits, with what was deposited in each window and changes waiting."""
    settings: ProtectionSettings
    """Reality check interval and whether limits were answered."""
    exclusions: Sequence[Exclusion]
    """Every time-out and self-exclusion, latest first (a self-exclusion with when the player
    asked to play again)."""
    plays: Sequence[StoredPlay]
    """Latest plays, newest first."""
    play_count: int
    """Plays in all."""
    movements: Sequence[Movement]
    """Latest wallet movements, newest first."""
    at: dt.datetime
    """When the player was looked up."""


def look_up(
    factory: UnitOfWorkFactory,
    token: str | None,
    query: str,
    *,
    now: dt.datetime | None = None,
) -> PlayerFile:
    """Find a player by e-mail address, account number (``#12`` or ``12``, digits 0-9) or the
    Play Number of one of their plays (``CC-...``: a player calling about a play)."""
    text = query.strip()
    if not text:
        raise InvalidInputError(
            "give an e-mail address, an account number or a Play Number", field="query"
        )
    at = now or utcnow()
    about: dict[str, str] = {}
    with factory() as uow:
        operator = operator_in(uow, token, OperatorRole.SUPPORT, at)
        number = _account_number(text)
        if number is not None:
            account = uow.accounts.get(number)
            missing = f"no player has the account number {number}"
            sought: dict[str, str | int] = {"account": number}
        elif text[:2].upper() == "CC" and "@" not in text:
            play_number = _play_number(text)
            play = uow.plays.get(play_number)
            account = None if play is None else uow.accounts.get(play.account_id)
            missing = f"no play has the Play Number {play_number}"
            about["play_number"] = play_number
            sought = {"play_number": play_number}
        else:
            email = _email(text)
            stored = uow.accounts.by_email(email)
            account = None if stored is None else stored.account
            missing = f"no player has the e-mail address {email!r}"
            sought = {"email": email}
        if account is None:
            # A probe is recorded too, as the tables record a search that finds nothing: whether
            # an address has an account is itself personal data.
            audit.append(
                uow,
                AuditKind.PLAYER_LOOKUP,
                None,
                {"operator": operator.name, **sought, "found": False},
                now=at,
            )
            uow.commit()
            raise NotFoundError(missing)
        settings = uow.protection.settings(account.id)
        found = PlayerFile(
            account=account,
            balance_pence=uow.wallets.balance(account.id),
            limits=protection.limit_standings(uow, account.id, at),
            settings=settings,
            exclusions=tuple(
                replace(e, return_asked_at=settings.return_asked_at)
                if e.kind is ExclusionKind.SELF_EXCLUSION
                else e
                for e in uow.protection.exclusions(account.id)
            ),
            plays=tuple(uow.plays.page(account.id, 0, SHOWN)),
            play_count=uow.plays.count(account.id),
            movements=tuple(uow.wallets.recent(account.id, SHOWN)),
            at=at,
        )
        audit.append(
            uow,
            AuditKind.PLAYER_LOOKUP,
            account.id,
            {"operator": operator.name, **about},
            now=at,
        )
        uow.commit()
    return found


def _account_number(text: str) -> int | None:
    """The account number ``text`` gives (``12`` or ``#12``), or ``None`` if it gives none.

    Only the digits 0-9 make a number: ``str.isdigit`` also takes superscripts and other
    scripts' digits, which ``int`` refuses or reads as another number."""
    digits = text.removeprefix("#")
    if not digits or not (digits.isascii() and digits.isdigit()):
        return None
    significant = digits.lstrip("0") or "0"
    if len(significant) > len(str(LARGEST_ACCOUNT_NUMBER)) or (
        int(significant) > LARGEST_ACCOUNT_NUMBER
    ):
        raise InvalidInputError(
            f"{_shown(text)} is too large to be an account number (at most"
            f" {LARGEST_ACCOUNT_NUMBER:,})",
            field="query",
        )
    return int(significant)


def _play_number(text: str) -> str:
    """``text`` as a Play Number, or :class:`InvalidInputError` on ``query`` saying why not."""
    try:
        return parse_play_number(text)
    except PlayNumberError as error:
        raise InvalidInputError(str(error), field="query") from None


def _email(text: str) -> str:
    """``text`` as an e-mail address is stored, or :class:`InvalidInputError` on ``query``."""
    try:
        return normalise_email(text)
    except InvalidInputError as error:
        if "@" in text:  # meant as an address: say what is wrong with it
            raise InvalidInputError(str(error), field="query") from None
        raise InvalidInputError(
            f"{_shown(text)} is neither an e-mail address, nor an account number (the digits 0-9,"
            " as 12 or #12), nor a Play Number (CC-7K3-D9Q-XM4)",
            field="query",
        ) from None


def _shown(text: str) -> str:
    """``text`` quoted for a message, cut short if long."""
    return repr(text) if len(text) <= 40 else repr(text[:40]) + "..."
