"""Errors the use cases raise. The server maps each to an HTTP status and a stable code in
``colour_collector.server.problems``; nothing here knows about HTTP."""

from __future__ import annotations

import datetime as dt


class ServiceError(Exception):
    """Root of every error a use case raises on purpose. ``str(error)`` is safe to show."""


class InvalidInputError(ServiceError, ValueError):
    """The request is well-formed but a value is not acceptable."""

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        also: tuple[InvalidInputError, ...] = (),
    ) -> None:
        super().__init__(message)
        self.field = field
        """Dotted name of the offending field, if one."""
        self.also = also
        """Other fields of the same request that are not acceptable either."""

    @property
    def problems(self) -> list[tuple[str, str]]:
        """Every ``(field, message)`` of the request found wrong, this one first."""
        found = [(self.field, str(self))] if self.field else []
        return found + [(e.field, str(e)) for e in self.also if e.field]


class UnderageError(InvalidInputError):
    """The player is younger than 18."""


class EmailTakenError(ServiceError):
    """An account with this e-mail exists (the store's refusal of a second one; registration
    answers the same either way, so this never reaches a client)."""


class InvalidTokenError(ServiceError):
    """A mailed link's token is unknown or expired (or, for a password reset, used already), or
    the link is for something else (a reset link given to confirm an account, or the reverse)."""


class AlreadyConfirmedError(ServiceError):
    """The account of a confirmation link is confirmed already (the link was used)."""


class EmailNotConfirmedError(ServiceError):
    """The password was right but the account's e-mail address is not confirmed yet."""


class TooManyMailsError(ServiceError):
    """Too many e-mails were asked for one address recently (registrations, resends and
    password resets)."""

    def __init__(self, message: str, *, retry_after_seconds: int) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds
        """Seconds until the oldest counted request leaves the window."""


class InvalidCredentialsError(ServiceError):
    """Wrong e-mail or password (never says which)."""


class OperatorCredentialsError(InvalidCredentialsError):
    """Wrong operator name or password (never says which)."""


class TooManyAttemptsError(ServiceError):
    """Too many failed logins recently for this e-mail or client."""

    def __init__(self, message: str, *, retry_after_seconds: int) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds
        """Seconds until the oldest counted failure leaves the window."""


class NotAuthenticatedError(ServiceError):
    """No valid session."""


class NotFoundError(ServiceError):
    """The thing asked for does not exist (or is not the caller's)."""


class InsufficientFundsError(ServiceError):
    """A debit would take the balance below zero."""

    def __init__(self, message: str, *, balance_pence: int, wanted_pence: int) -> None:
        super().__init__(message)
        self.balance_pence = balance_pence
        """Balance at the time of the refusal."""
        self.wanted_pence = wanted_pence
        """The amount asked for."""


class TestDepositsDisabledError(ServiceError):
    """Test deposits are turned off (always so in production)."""

    __test__ = False  # not a pytest test class despite the name


class AuditChainBrokenError(ServiceError):
    """The audit log does not verify."""

    def __init__(self, seq: int | None, reason: str) -> None:
        super().__init__(reason if seq is None else f"audit entry seq={seq}: {reason}")
        self.seq = seq
        """The first broken entry (None: what is broken is outside the log, a checkpoint
        file)."""
        self.reason = reason
        """Why it is broken."""


class DuplicatePlayError(ServiceError):
    """A new play clashes with a stored one (Play Number or Idempotency-Key)."""


class PlayNotFoundError(NotFoundError):
    """No such play for this player (another player's play answers the same)."""


class StepOutOfOrderError(ServiceError):
    """The player asked for a step that is not the next one."""

    def __init__(self, message: str, *, expected: str | None, revealed: int | None = None) -> None:
        super().__init__(message)
        self.expected = expected
        """The step the play waits for (None when it is over)."""
        self.revealed = revealed
        """How many steps of the play are revealed (when known)."""


class PlayChangedError(ServiceError):
    """The stored play moved on while this request held an older copy (nothing was written)."""


class PlayNotOverError(ServiceError):
    """FINISH was pressed before every step was revealed."""

    def __init__(self, message: str, *, expected: str | None) -> None:
        super().__init__(message)
        self.expected = expected
        """The step the play waits for."""


class ConfirmationRequiredError(InvalidInputError):
    """A purchase must be confirmed explicitly."""


class TooManyTriesError(ServiceError):
    """A client started too many free Try plays recently."""

    def __init__(self, message: str, *, retry_after_seconds: int) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds
        """Seconds until the client may start another."""


class PoolExhaustedServiceError(ServiceError):
    """No prize pool is on sale: every pool loaded is sold out or closed."""


class SalesStoppedError(ServiceError):
    """An operator has stopped sales of the game: no new plays (plays in progress go on)."""


class ExcludedError(ServiceError):
    """The player is on a time-out or self-excluded: no purchases or deposits until it ends."""

    def __init__(self, message: str, *, until: dt.datetime | None) -> None:
        super().__init__(message)
        self.until = until
        """When the break ends (None: an ended self-exclusion, until the player asks to play
        again)."""


class TimedOutError(ExcludedError):
    """The player is on a time-out."""


class SelfExcludedError(ExcludedError):
    """The player has excluded themselves."""


class RealityCheckDueError(ServiceError):
    """The player's reality check is due: it must be seen before the next purchase."""

    def __init__(
        self, message: str, *, played_seconds: int, net_pence: int, due_at: dt.datetime
    ) -> None:
        super().__init__(message)
        self.played_seconds = played_seconds
        """Time since the session started."""
        self.net_pence = net_pence
        """Prizes minus stakes in the session."""
        self.due_at = due_at
        """When it became due."""


class DepositLimitExceededError(ServiceError):
    """A deposit would take the player over one of their deposit limits."""

    def __init__(
        self,
        message: str,
        *,
        period: str,
        limit_pence: int,
        deposited_pence: int,
        resets_at: dt.datetime | None,
    ) -> None:
        super().__init__(message)
        self.period = period
        """The limit's period (daily, weekly, monthly)."""
        self.limit_pence = limit_pence
        """The limit."""
        self.deposited_pence = deposited_pence
        """Deposited in the period so far."""
        self.resets_at = resets_at
        """When enough of the period's deposits have left it for this deposit to fit (None: the
        deposit is larger than the limit itself)."""


class DepositLimitsUnansweredError(ServiceError):
    """The player has not yet been asked about deposit limits (set one or decline first)."""


class LimitChangeNotDueError(ServiceError):
    """An increase or removal of a deposit limit was confirmed before its cooling-off ended."""

    def __init__(self, message: str, *, period: str, confirmable_at: dt.datetime) -> None:
        super().__init__(message)
        self.period = period
        """The limit's period."""
        self.confirmable_at = confirmable_at
        """When it may be confirmed."""


class NoPendingLimitChangeError(ServiceError):
    """There is no increase or removal of this limit to confirm."""


class ReturnNotAllowedError(ServiceError):
    """There is no ended self-exclusion to ask to play again after (none taken, or its term
    still runs)."""


class PaymentDeclinedError(ServiceError):
    """The payment provider refused the payment (nothing was moved)."""


class PaymentsUnavailableError(ServiceError):
    """No payment provider is configured on this server."""


class OperatorNotAuthenticatedError(ServiceError):
    """No live operator session."""


class OperatorForbiddenError(ServiceError):
    """The operator's role does not allow this."""


class OperatorNameTakenError(ServiceError):
    """An operator with this name exists."""


class OperatorNotFoundError(NotFoundError):
    """No operator has this name."""


class PoolUnavailableError(ServiceError):
    """The pool on sale cannot be dealt from by this server: it was built with another version of
    the game, or its secret cannot be unsealed with this server's key."""


class PoolNotFoundError(NotFoundError):
    """No pool with this id."""


class PoolNotClosedError(ServiceError):
    """The pool's secret is not published yet: its plays cannot be checked."""


class PoolRefusedError(ServiceError):
    """A pool cannot be loaded, or closed: the message says why."""


class DuplicatePoolError(ServiceError):
    """A pool with the same commitment is stored."""


class DamagedRowError(ServiceError):
    """A row of the database cannot be read as what it stores (altered by hand, or damaged): the
    message names the row, for the operator. The server logs it and answers 503 ``unavailable``
    without it; the commands stop on it with exit status 1."""


class PoolSecretError(ServiceError):
    """A pool secret does not match the pool's commitment (or cannot be unsealed)."""
