"""Records of purchased and Try plays, as the play use cases see them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum, unique

from colour_collector.service.models import AccountId, Pence


@unique
class PlayStatus(StrEnum):
    """Where a purchased play is. A play is finished in either of the two last (:attr:`finished`:
    the player's FINISH or the auto-finish; its prize is credited); in SQL, ``status !=
    'in_progress'``."""

    IN_PROGRESS = "in_progress"
    """Bought; the player is revealing it."""
    FINISHED = "finished"
    """The player pressed FINISH; the prize is credited."""
    AUTO_FINISHED = "auto_finished"
    """Left unfinished too long: the server completed it and credited the prize."""

    @property
    def finished(self) -> bool:
        """Whether the play is over, by the player or the auto-finish: its prize is credited."""
        return self is not PlayStatus.IN_PROGRESS


@dataclass(frozen=True, slots=True)
class StoredPlay:
    """A purchased play as stored."""

    id: int
    """Database id."""
    play_number: str
    """The player-facing Play Number."""
    account_id: AccountId
    """Whose play."""
    status: PlayStatus
    """Where it is."""
    record: str
    """The play record's JSON (bonus picks filled in as the player makes them)."""
    revealed: int
    """Steps the player has revealed."""
    steps: int
    """Steps in the play."""
    tier_index: int | None
    """The prize tier drawn at purchase (None: no win)."""
    prize_pence: Pence
    """The prize the play pays (credited when finished)."""
    price_pence: Pence
    """What the player paid."""
    idempotency_key: str | None
    """The ``Idempotency-Key`` of the purchase, if one was sent."""
    balance_before_pence: Pence
    """Wallet balance before the purchase."""
    balance_after_pence: Pence | None
    """Wallet balance after the prize was credited (None until finished)."""
    purchased_at: dt.datetime
    """When it was bought."""
    finish_by: dt.datetime
    """When the server completes it if the player has not."""
    finished_at: dt.datetime | None
    """When it was finished."""
    pool_id: int | None = None
    """The prize pool it was dealt from; None for an independent draw."""
    pool_position: int | None = None
    """Its position in that pool (from 0)."""


@dataclass(frozen=True, slots=True)
class TryPlay:
    """A free Try play as stored."""

    id: int
    """Database id."""
    record: str
    """The play record's JSON."""
    revealed: int
    """Steps revealed."""
    steps: int
    """Steps in the play."""
    prize_pence: Pence
    """What it would have paid (never credited)."""
    created_at: dt.datetime
    """When it was started."""
    finished_at: dt.datetime | None
    """When FINISH was pressed."""


@dataclass(frozen=True, slots=True)
class PurchaseState:
    """What a purchase reads once the account is locked, before it buys anything."""

    earlier: StoredPlay | None
    """The play an earlier purchase with the same Idempotency-Key made, if any."""
    unfinished: StoredPlay | None
    """The account's play in progress, if any."""
    balance_pence: Pence
    """The account's balance: the sum of its ledger rows."""
