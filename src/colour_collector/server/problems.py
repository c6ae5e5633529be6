"""What an error answer is: RFC 9457 ``application/problem+json``, its kinds, and the service
errors each kind answers.

Every error body has ``type``, ``title``, ``status``, ``detail`` and a stable ``code``; request
validation errors also list the offending fields in ``errors`` (each with a dotted ``field``).
``problem_handlers`` turns each exception a request raises into one of these answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.responses import Response

from colour_collector.server.problem_schemas import Problem
from colour_collector.service import errors

PROBLEM_JSON = "application/problem+json"
TYPE_PREFIX = "urn:colour-collector:problem:"
"""``type`` of a problem is this prefix followed by its ``code``."""


@dataclass(frozen=True, slots=True)
class ProblemKind:
    """The HTTP face of one error code."""

    status: int
    """HTTP status."""
    code: str
    """Stable machine-readable code."""
    title: str
    """Short human summary, the same for every occurrence."""


INVALID_REQUEST = ProblemKind(422, "invalid_request", "The request is not valid")
MALFORMED_JSON = ProblemKind(400, "invalid_request", "The request body is not valid JSON")
BODY_TOO_LARGE = ProblemKind(413, "body_too_large", "The request body is too large")
NOT_JSON = ProblemKind(415, "unsupported_media_type", "The request body is not sent as JSON")
CSRF_FAILED = ProblemKind(403, "csrf_failed", "CSRF check failed")
NOT_AUTHENTICATED = ProblemKind(401, "not_authenticated", "Not logged in")
INVALID_CREDENTIALS = ProblemKind(401, "invalid_credentials", "Wrong e-mail or password")
OPERATOR_INVALID_CREDENTIALS = ProblemKind(401, "invalid_credentials", "Wrong name or password")
"""``invalid_credentials`` as the console's login answers it: operators log in with a name."""
TOO_MANY_ATTEMPTS = ProblemKind(429, "too_many_attempts", "Too many failed logins")
UNDERAGE = ProblemKind(422, "underage", "Players must be 18 or over")
INVALID_TOKEN = ProblemKind(400, "invalid_token", "The link is unknown or no longer works")
ALREADY_CONFIRMED = ProblemKind(409, "already_confirmed", "The account is confirmed already")
EMAIL_NOT_CONFIRMED = ProblemKind(403, "email_not_confirmed", "The account is not confirmed yet")
TOO_MANY_EMAILS = ProblemKind(429, "too_many_emails", "Too many e-mails asked for this address")
NOT_FOUND = ProblemKind(404, "not_found", "Not found")
METHOD_NOT_ALLOWED = ProblemKind(405, "method_not_allowed", "Method not allowed")
INSUFFICIENT_FUNDS = ProblemKind(409, "insufficient_funds", "Not enough money in the wallet")
TEST_DEPOSITS_DISABLED = ProblemKind(
    403, "test_deposits_disabled", "Test deposits are disabled on this server"
)
UNAVAILABLE = ProblemKind(503, "unavailable", "Service unavailable")
PLAY_NOT_FOUND = ProblemKind(404, "play_not_found", "No such play")
STEP_OUT_OF_ORDER = ProblemKind(409, "step_out_of_order", "That is not the next step")
PLAY_NOT_OVER = ProblemKind(409, "play_not_over", "The play is not over")
PLAY_CHANGED = ProblemKind(409, "play_changed", "The play changed meanwhile; reload it")
CONFIRMATION_REQUIRED = ProblemKind(422, "confirmation_required", "Confirmation required")
DUPLICATE_PLAY = ProblemKind(409, "duplicate_play", "The play clashed with another; try again")
SOLD_OUT = ProblemKind(503, "sold_out", "The prize pools are sold out")
POOL_UNAVAILABLE = ProblemKind(503, "pool_unavailable", "The prize pool cannot be used")
POOL_NOT_FOUND = ProblemKind(404, "pool_not_found", "No such prize pool")
POOL_NOT_CLOSED = ProblemKind(
    409, "pool_not_closed", "The prize pool's secret is not published yet"
)
"""Its code predates the pools closed with plays in progress (closed, the secret not published
until they are finished): clients depend on it, so it stays."""
TOO_MANY_TRIES = ProblemKind(429, "too_many_tries", "Too many Try plays from this address")
INTERNAL_ERROR = ProblemKind(500, "internal_error", "Internal server error")
SALES_STOPPED = ProblemKind(503, "sales_stopped", "Sales of the game are stopped")
TIMED_OUT = ProblemKind(403, "timed_out", "You are taking a time-out")
SELF_EXCLUDED = ProblemKind(403, "self_excluded", "You have excluded yourself")
REALITY_CHECK_DUE = ProblemKind(409, "reality_check_due", "Time for a reality check")
DEPOSIT_LIMIT_EXCEEDED = ProblemKind(
    409, "deposit_limit_exceeded", "The deposit would go over your deposit limit"
)
DEPOSIT_LIMITS_UNANSWERED = ProblemKind(
    409, "deposit_limits_unanswered", "Set a deposit limit, or decline to, first"
)
LIMIT_CHANGE_NOT_DUE = ProblemKind(
    409, "limit_change_not_due", "The limit change cannot be confirmed yet"
)
NO_PENDING_LIMIT_CHANGE = ProblemKind(
    409, "no_pending_limit_change", "There is no limit change to confirm"
)
RETURN_NOT_ALLOWED = ProblemKind(
    409, "return_not_allowed", "There is no ended self-exclusion to return from"
)
PAYMENT_DECLINED = ProblemKind(402, "payment_declined", "The payment was declined")
PAYMENTS_UNAVAILABLE = ProblemKind(503, "payments_unavailable", "Payments are not available")
OPERATOR_NOT_AUTHENTICATED = ProblemKind(
    401, "operator_not_authenticated", "Not logged in to the console"
)
OPERATOR_FORBIDDEN = ProblemKind(403, "operator_forbidden", "Your role does not allow this")
OPERATOR_NAME_TAKEN = ProblemKind(409, "operator_name_taken", "Operator name already taken")

# Most specific first: the first isinstance match wins.
SERVICE_ERRORS: Sequence[tuple[type[errors.ServiceError], ProblemKind]] = (
    (errors.UnderageError, UNDERAGE),
    (errors.ConfirmationRequiredError, CONFIRMATION_REQUIRED),
    (errors.PlayNotFoundError, PLAY_NOT_FOUND),
    (errors.StepOutOfOrderError, STEP_OUT_OF_ORDER),
    (errors.PlayNotOverError, PLAY_NOT_OVER),
    (errors.PlayChangedError, PLAY_CHANGED),
    (errors.DuplicatePlayError, DUPLICATE_PLAY),
    (errors.PoolExhaustedServiceError, SOLD_OUT),
    (errors.PoolUnavailableError, POOL_UNAVAILABLE),
    (errors.PoolNotFoundError, POOL_NOT_FOUND),
    (errors.PoolNotClosedError, POOL_NOT_CLOSED),
    (errors.DamagedRowError, UNAVAILABLE),
    (errors.TooManyTriesError, TOO_MANY_TRIES),
    (errors.SalesStoppedError, SALES_STOPPED),
    (errors.TimedOutError, TIMED_OUT),
    (errors.SelfExcludedError, SELF_EXCLUDED),
    (errors.RealityCheckDueError, REALITY_CHECK_DUE),
    (errors.DepositLimitExceededError, DEPOSIT_LIMIT_EXCEEDED),
    (errors.DepositLimitsUnansweredError, DEPOSIT_LIMITS_UNANSWERED),
    (errors.LimitChangeNotDueError, LIMIT_CHANGE_NOT_DUE),
    (errors.NoPendingLimitChangeError, NO_PENDING_LIMIT_CHANGE),
    (errors.ReturnNotAllowedError, RETURN_NOT_ALLOWED),
    (errors.PaymentDeclinedError, PAYMENT_DECLINED),
    (errors.PaymentsUnavailableError, PAYMENTS_UNAVAILABLE),
    (errors.OperatorNotAuthenticatedError, OPERATOR_NOT_AUTHENTICATED),
    (errors.OperatorForbiddenError, OPERATOR_FORBIDDEN),
    (errors.OperatorNameTakenError, OPERATOR_NAME_TAKEN),
    (errors.InvalidInputError, INVALID_REQUEST),
    (errors.InvalidTokenError, INVALID_TOKEN),
    (errors.AlreadyConfirmedError, ALREADY_CONFIRMED),
    (errors.EmailNotConfirmedError, EMAIL_NOT_CONFIRMED),
    (errors.TooManyMailsError, TOO_MANY_EMAILS),
    (errors.OperatorCredentialsError, OPERATOR_INVALID_CREDENTIALS),
    (errors.InvalidCredentialsError, INVALID_CREDENTIALS),
    (errors.TooManyAttemptsError, TOO_MANY_ATTEMPTS),
    (errors.NotAuthenticatedError, NOT_AUTHENTICATED),
    (errors.NotFoundError, NOT_FOUND),
    (errors.InsufficientFundsError, INSUFFICIENT_FUNDS),
    (errors.TestDepositsDisabledError, TEST_DEPOSITS_DISABLED),
)
"""Domain error -> HTTP. A new service error goes here (and in the error table of its API page),
or, if no route ever lets it out, in ``tests/unit/test_service_errors.py``'s list, which fails
for an error in neither: one left out would be answered 500 ``internal_error``."""

DAMAGED_ROW_DETAIL = "the server cannot read its data just now; please try again later"
"""The ``detail`` of the 503 answering a request that met a damaged row (its log line names it)."""

BY_STATUS = {
    404: NOT_FOUND,
    405: METHOD_NOT_ALLOWED,
    413: BODY_TOO_LARGE,
    503: UNAVAILABLE,
}
"""The kinds of the HTTP errors Starlette raises itself, by status (others keep its status)."""


class ProblemError(Exception):
    """Raise from server code to answer with a problem (routes prefer service errors)."""

    def __init__(
        self,
        kind: ProblemKind,
        detail: str,
        *,
        headers: Mapping[str, str] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.headers = dict(headers or {})
        self.extra = dict(extra or {})


def problem_body(kind: ProblemKind, detail: str, **extra: Any) -> Problem:
    """The body of a problem: ``extra`` holds the optional fields its code carries."""
    return Problem(
        type=TYPE_PREFIX + kind.code,
        title=kind.title,
        status=kind.status,
        detail=detail,
        code=kind.code,
        **extra,
    )


def problem_response(
    kind: ProblemKind,
    detail: str,
    *,
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> Response:
    """An ``application/problem+json`` response."""
    return Response(
        content=problem_body(kind, detail, **extra).model_dump_json(),
        status_code=kind.status,
        media_type=PROBLEM_JSON,
        headers=dict(headers or {}),
    )


def problem_from_service_error(error: errors.ServiceError) -> ProblemError:
    """Map a domain error to its problem."""
    for error_type, kind in SERVICE_ERRORS:
        if isinstance(error, error_type):
            headers: dict[str, str] = {}
            extra: dict[str, Any] = {}
            if isinstance(error, errors.InvalidInputError) and error.problems:
                extra["errors"] = [{"field": f, "message": m} for f, m in error.problems]
            if isinstance(
                error,
                errors.TooManyAttemptsError | errors.TooManyTriesError | errors.TooManyMailsError,
            ):
                headers["Retry-After"] = str(error.retry_after_seconds)
            if isinstance(error, errors.StepOutOfOrderError | errors.PlayNotOverError):
                extra["expected"] = error.expected
            if isinstance(error, errors.StepOutOfOrderError) and error.revealed is not None:
                extra["revealed"] = error.revealed
            if isinstance(error, errors.InsufficientFundsError):
                extra["balance_pence"] = error.balance_pence
            if isinstance(error, errors.NotAuthenticatedError):
                headers["WWW-Authenticate"] = 'Cookie realm="colour-collector"'
            extra.update(_protection_details(error))
            detail = str(error)
            if isinstance(error, errors.InvalidInputError) and len(error.problems) > 1:
                # Worded as a request's validation problems are: each field and its message.
                detail = "; ".join(f"{f}: {m}" for f, m in error.problems)
            if isinstance(error, errors.DamagedRowError):
                # The row is the operator's to mend (the log names it): whoever asked is told
                # only to come back later.
                detail = DAMAGED_ROW_DETAIL
            return ProblemError(kind, detail, headers=headers, extra=extra)
    return ProblemError(INTERNAL_ERROR, "the server could not complete the request")


def problem_of(error: errors.ServiceError) -> Problem:
    """The body of the problem ``error`` is answered with (for a body that reports a refusal
    without being one, like the purchase screen's quote)."""
    found = problem_from_service_error(error)
    return problem_body(found.kind, found.detail, **found.extra)


def _protection_details(error: errors.ServiceError) -> dict[str, Any]:
    """The fields a player-protection problem adds: what stands in the way and until when."""
    if isinstance(error, errors.ExcludedError):
        return {"until": error.until}
    if isinstance(error, errors.RealityCheckDueError):
        return {
            "played_seconds": error.played_seconds,
            "net_pence": error.net_pence,
            "due_at": error.due_at,
        }
    if isinstance(error, errors.DepositLimitExceededError):
        return {
            "limit": {"period": error.period, "amount_pence": error.limit_pence},
            "deposited_pence": error.deposited_pence,
            "resets_at": error.resets_at,
        }
    if isinstance(error, errors.LimitChangeNotDueError):
        return {"period": error.period, "confirmable_at": error.confirmable_at}
    return {}
