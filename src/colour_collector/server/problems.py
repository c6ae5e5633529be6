"""The one place errors become HTTP answers: RFC 9457 ``application/problem+json``.

Every error body has ``type``, ``title``, ``status``, ``detail`` and a stable ``code``; request
validation errors also list the offending fields in ``errors`` (each with a dotted ``field``).
Unexpected exceptions become a bare 500 ``internal_error`` and are logged, never shown.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic.json_schema import models_json_schema
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from colour_collector.game import strict_json
from colour_collector.server.problem_schemas import Problem
from colour_collector.service import errors

log = logging.getLogger(__name__)

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
UNPARSABLE_BODY = "There was an error parsing the body"
"""FastAPI's own detail when it cannot decode a body at all."""
LISTED_PROBLEMS = 20
"""At most this many of a request's validation problems are listed in its 422 (the rest are
counted): a 64 KiB body naming 6,000 unknown fields was answered with 394 KB."""
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

_BY_STATUS = {
    404: NOT_FOUND,
    405: METHOD_NOT_ALLOWED,
    413: BODY_TOO_LARGE,
    503: UNAVAILABLE,
}


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


VALUE_ERROR_PREFIX = "Value error, "
"""What pydantic puts before the message of a ``ValueError`` a validator raised."""


def _field_name(location: Sequence[int | str], body: object) -> str:
    parts = [str(part) for part in location]
    if parts and parts[0] in {"body", "query", "path", "header", "cookie"}:
        parts = parts[1:] or parts
        # A body of one of several shapes told apart by its ``kind`` (a step): pydantic puts the
        # ``kind`` it chose in the location; the field is the one inside.
        if isinstance(body, dict) and len(parts) > 1 and parts[0] == body.get("kind"):
            parts = parts[1:]
    return ".".join(parts) if parts else "body"


def _describe(error: Mapping[str, Any], body: object) -> tuple[str, str]:
    location = error.get("loc", ())
    field = _field_name(location, body)
    # pydantic prefixes the message of a ValueError raised by a validator; the player needs
    # only the message.
    message = str(error.get("msg", "invalid value")).removeprefix(VALUE_ERROR_PREFIX)
    if error.get("type") == "extra_forbidden":
        message = "unknown field"
    if error.get("type") in {"union_tag_invalid", "union_tag_not_found"}:
        # The field that tells the shapes apart is missing or names none of them.
        field = str(error.get("ctx", {}).get("discriminator", "kind")).strip("'")
        expected = error.get("ctx", {}).get("expected_tags", "")
        message = f"must be one of {expected}" if expected else "Field required"
    return field, message


async def _on_validation_error(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, RequestValidationError):
        raise TypeError(exc)
    raw = exc.errors()
    if isinstance(exc.body, bytes):  # FastAPI decodes a body only when it is sent as JSON
        sent = request.headers.get("content-type")
        return problem_response(
            NOT_JSON,
            "the request body must be JSON, sent with Content-Type: application/json"
            + (f", not {sent!r}" if sent else " (the request has no Content-Type)"),
            errors=[{"field": "Content-Type", "message": "must be application/json"}],
        )
    if any(item.get("type") == "json_invalid" for item in raw):
        return problem_response(
            MALFORMED_JSON,
            "the request body is not valid JSON",
            errors=[{"field": "body", "message": "malformed JSON"}],
        )
    described = [_describe(item, exc.body) for item in raw[:LISTED_PROBLEMS]]
    detail = "; ".join(f"{field}: {message}" for field, message in described)
    if len(raw) > LISTED_PROBLEMS:
        detail += f"; and {len(raw) - LISTED_PROBLEMS} more problems, not listed"
    return problem_response(
        INVALID_REQUEST,
        detail or "invalid request",
        errors=[{"field": field, "message": message} for field, message in described],
    )


PATH_SHOWN = 200
"""How much of an unknown path a 404 repeats."""

_UNPARSABLE_BECAUSE: dict[type[BaseException], str] = {
    UnicodeDecodeError: "not UTF-8 text",
    RecursionError: "nested too deeply",
}
"""Why the JSON parser gave up on a body, by the error it raised."""


async def _on_http_exception(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, StarletteHTTPException):
        raise TypeError(exc)
    kind = _BY_STATUS.get(exc.status_code) or ProblemKind(
        exc.status_code, "invalid_request" if exc.status_code < 500 else "internal_error", "Error"
    )
    detail = exc.detail if isinstance(exc.detail, str) else kind.title
    if exc.status_code == 400 and detail == UNPARSABLE_BODY:
        # FastAPI's answer to a body the JSON parser gave up on for another reason than its
        # syntax (``request_bodies`` refuses a repeated name); FastAPI raises it from the
        # parser's own error.
        cause = exc.__cause__
        reason = "it cannot be parsed"
        if isinstance(cause, strict_json.StrictJsonError):  # a name given twice in one object
            reason = f"it {cause}"
        elif cause is not None:
            reason = _UNPARSABLE_BECAUSE.get(type(cause), reason)
        return problem_response(
            MALFORMED_JSON,
            f"the request body is not valid JSON ({reason})",
            errors=[{"field": "body", "message": reason}],
        )
    if exc.status_code == 404 and detail == "Not Found":
        path = request.url.path
        if len(path) > PATH_SHOWN:
            path = path[:PATH_SHOWN] + f"... ({len(path):,} characters)"
        detail = f"no such resource: {path}"
    return problem_response(kind, detail, headers=exc.headers)


async def _on_problem(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, ProblemError):
        raise TypeError(exc)
    return problem_response(exc.kind, exc.detail, headers=exc.headers, **exc.extra)


async def _on_service_error(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, errors.ServiceError):
        raise TypeError(exc)
    if isinstance(exc, errors.DamagedRowError):
        log.error("%s", exc)
    return await _on_problem(request, problem_from_service_error(exc))


UNAVAILABLE_RETRY_AFTER_S = 1
"""Seconds a client is asked to wait after a 503 ``unavailable``."""


def unavailable_response(detail: str) -> Response:
    """503 ``unavailable`` with ``Retry-After``: nothing was done, the request may be retried."""
    return problem_response(
        UNAVAILABLE, detail, headers={"Retry-After": str(UNAVAILABLE_RETRY_AFTER_S)}
    )


async def _on_database_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, PoolTimeoutError):  # every connection busy for POOL_TIMEOUT_S
        log.warning("no database connection free: %s", exc)
        return unavailable_response("the server is busy; please try again")
    if not isinstance(exc, DBAPIError):
        raise TypeError(exc)
    if exc.connection_invalidated or isinstance(exc, OperationalError | InterfaceError):
        # The database is down, restarting or unreachable: the transaction was rolled back, or,
        # lost during COMMIT, perhaps committed. A retried purchase with the same Idempotency-Key
        # answers the same play; a retried step naming its index answers the same step.
        log.warning("database unavailable: %s", exc.orig)
        return unavailable_response("the database is unavailable; please try again")
    log_unexpected(exc)
    return internal_error_response()


async def _on_unexpected(request: Request, exc: Exception) -> Response:
    # Starlette's ServerErrorMiddleware calls this for any exception nothing else handled, and
    # sends the answer: the player sees nothing of the error.
    log_unexpected(exc)
    return internal_error_response()


def install(app: FastAPI) -> None:
    """Register the problem handlers on ``app``."""
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_exception)
    app.add_exception_handler(ProblemError, _on_problem)
    app.add_exception_handler(errors.ServiceError, _on_service_error)
    app.add_exception_handler(DBAPIError, _on_database_error)
    app.add_exception_handler(PoolTimeoutError, _on_database_error)
    app.add_exception_handler(Exception, _on_unexpected)
    _describe_problems(app)


def _describe_problems(app: FastAPI) -> None:
    """Put ``Problem`` in the OpenAPI components, where the routes' problem answers point
    (``problem_schemas.PROBLEM_REF``). FastAPI's ``responses={status: {"model": ...}}`` would
    file the model under ``application/json``, the media type of the routes' own answers,
    instead of ``application/problem+json``; its documented way to add to the description is to
    wrap ``app.openapi``."""
    describe = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        spec = describe()  # FastAPI keeps it as app.openapi_schema
        _, defined = models_json_schema(
            [(Problem, "serialization")], ref_template="#/components/schemas/{model}"
        )
        spec["components"]["schemas"].update(defined["$defs"])
        return spec

    app.openapi = openapi  # type: ignore[method-assign]


def internal_error_response() -> Response:
    """The answer to an unexpected exception: no details."""
    return problem_response(INTERNAL_ERROR, "the server could not complete the request")


def log_unexpected(exc: BaseException) -> None:
    """Log an unexpected exception with its traceback (server side only)."""
    log.error("unhandled exception", exc_info=(type(exc), exc, exc.__traceback__))
