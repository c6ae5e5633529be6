"""The operator's side: operator accounts and console sessions, the sales switch, and the
figures of what the game has sold and paid."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol

from colour_collector.service.protection_models import Operator as OperatorAccount
from colour_collector.service.protection_models import (
    OperatorRole,
    OperatorSession,
    OutcomeFigures,
    SalesState,
    StoredOperator,
)


class Operators(Protocol):
    """Operator accounts and their console sessions."""

    def add(
        self, *, name: str, password_hash: str, role: OperatorRole, created_at: dt.datetime
    ) -> OperatorAccount:
        """Store a new operator; raise ``OperatorNameTakenError`` if the name is taken."""
        ...

    def by_name(self, name: str) -> StoredOperator | None:
        """The operator with this name, with the password hash."""
        ...

    def get(self, operator_id: int) -> OperatorAccount | None:
        """The operator with this id."""
        ...

    def all(self) -> Sequence[OperatorAccount]:
        """Every operator, by name."""
        ...

    def add_session(self, session: OperatorSession) -> None:
        """Store a console login."""
        ...

    def session(self, token_hash: str, now: dt.datetime) -> OperatorSession | None:
        """The console session with this token hash if it is live at ``now``."""
        ...

    def remove_session(self, token_hash: str) -> OperatorSession | None:
        """End a console session; the session ended, if there was one."""
        ...

    def disable(self, operator_id: int, at: dt.datetime) -> int:
        """Mark the operator disabled at ``at`` and end every console session of theirs; how
        many sessions ended."""
        ...


class SalesSwitch(Protocol):
    """Whether the game is on sale: one switch shared by every server process."""

    def state(self) -> SalesState:
        """The switch (on sale when never changed)."""
        ...

    def state_for_sale(self) -> SalesState:
        """The switch as a purchase reads it: a change of the switch waits until this unit of
        work ends, so a purchase that found sales on is committed before they are stopped."""
        ...

    def state_for_update(self) -> SalesState:
        """The switch, locked until the unit of work ends (operators change it one at a time),
        once the purchases that read it (``state_for_sale``) have ended."""
        ...

    def save(self, state: SalesState) -> None:
        """Store a new position of the switch."""
        ...


class SalesFigures(Protocol):
    """What the game has sold and paid, for the operator's live monitoring."""

    def finished_by_outcome(self) -> Sequence[OutcomeFigures]:
        """Finished plays and their prizes (credited), per outcome. The plays in progress are
        left out: their prizes are not told before the reveal (decision 0151)."""
        ...

    def in_progress(self) -> int:
        """Plays bought and not yet finished."""
        ...
