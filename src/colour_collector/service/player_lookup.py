"""Player look-up for the operator console: a player's account, balance, limits, exclusions,
latest plays and movements. Looking is an action on personal data: it needs the support role and
is audited with the operator's name."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from colour_collector.service import audit, protection
from colour_collector.service.accounts import normalise_email
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import InvalidInputError, NotFoundError
from colour_collector.service.models import Account, AuditKind, Movement, Pence
from colour_collector.service.operators import operator_in
from colour_collector.service.play_models import StoredPlay
from colour_collector.service.ports import UnitOfWorkFactory
from colour_collector.service.protection import LimitStanding
from colour_collector.service.protection_models import (
    Exclusion,
    LimitPeriod,
    OperatorRole,
    ProtectionSettings,
)

SHOWN = 20
"""Latest plays and movements shown."""


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
    """Every time-out and self-exclusion, latest first."""
    plays: Sequence[StoredPlay]
    """Latest plays, newest first."""
    play_count: int
    """Plays in all."""
    movements: Sequence[Movement]
    """Latest wallet movements, newest first."""


def look_up(
    factory: UnitOfWorkFactory,
    token: str | None,
    query: str,
    *,
    now: dt.datetime | None = None,
) -> PlayerFile:
    """Find a player by e-mail address or account number (``#12`` or ``12``)."""
    text = query.strip()
    if not text:
        raise InvalidInputError("give an e-mail address or an account number", field="query")
    number = text.removeprefix("#")
    at = now or utcnow()
    with factory() as uow:
        operator = operator_in(uow, token, OperatorRole.SUPPORT, at)
        if number.isdigit() and len(number) < 12:
            account = uow.accounts.get(int(number))
        else:
            stored = uow.accounts.by_email(normalise_email(text))
            account = None if stored is None else stored.account
        if account is None:
            raise NotFoundError(f"no player {text!r}")
        found = PlayerFile(
            account=account,
            balance_pence=uow.wallets.balance(account.id),
            limits=protection.limit_standings(uow, account.id, at),
            settings=uow.protection.settings(account.id),
            exclusions=tuple(uow.protection.exclusions(account.id)),
            plays=tuple(uow.plays.page(account.id, 0, SHOWN)),
            play_count=uow.plays.count(account.id),
            movements=tuple(uow.wallets.recent(account.id, SHOWN)),
        )
        audit.append(uow, AuditKind.PLAYER_LOOKUP, account.id, {"operator": operator.name}, now=at)
        uow.commit()
    return found
