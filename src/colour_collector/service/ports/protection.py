"""Players' protection: deposit limits, breaks and self-exclusions, reality checks."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol

from colour_collector.service.models import AccountId
from colour_collector.service.protection_models import (
    DepositLimit,
    Exclusion,
    ExclusionKind,
    ProtectionSettings,
)


class PlayerProtections(Protocol):
    """A player's protection: deposit limits, time-outs and self-exclusions, reality checks.

    Writers lock the account first (as for the wallet)."""

    def settings(self, account_id: AccountId) -> ProtectionSettings:
        """The player's settings (the defaults when none were stored)."""
        ...

    def save_settings(self, settings: ProtectionSettings) -> None:
        """Store the player's settings."""
        ...

    def limits(self, account_id: AccountId) -> Sequence[DepositLimit]:
        """The player's deposit limits that are set or have a change waiting, by period."""
        ...

    def save_limit(self, limit: DepositLimit) -> None:
        """Store one period's limit (a limit with no amount and nothing waiting is removed)."""
        ...

    def add_exclusion(
        self,
        *,
        account_id: AccountId,
        kind: ExclusionKind,
        starts_at: dt.datetime,
        ends_at: dt.datetime,
    ) -> Exclusion:
        """Store a time-out or self-exclusion."""
        ...

    def exclusions(self, account_id: AccountId) -> Sequence[Exclusion]:
        """Every exclusion the player took, latest first."""
        ...

    def exclusions_to_check(self, account_id: AccountId, now: dt.datetime) -> Sequence[Exclusion]:
        """The breaks a purchase or deposit at ``now`` is checked against, in one read, at most
        two: the break whose term runs at ``now`` that ends last (``Exclusion.active``: any one
        stored that has not ended, whatever time it was taken at) and the player's last
        self-exclusion, with ``return_asked_at`` from their settings (it stays in force after
        its term: ``Exclusion.in_force``). The service picks the one in force that lets go last
        (``protection_models.longest_in_force``)."""
        ...

    def last_reality_check(self, token_hash: str) -> dt.datetime | None:
        """When the player last continued after a reality check in this login session."""
        ...

    def record_reality_check(self, token_hash: str, at: dt.datetime) -> None:
        """Remember that the player continued after a reality check at ``at``."""
        ...
