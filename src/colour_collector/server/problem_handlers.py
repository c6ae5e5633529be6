"""The exception handlers ``install`` registers on the app, each answering what a route or a
dependency raised with a problem of ``problems`` (the middleware answers the requests it stops
before any route runs with ``problems.problem_response`` too).

A request FastAPI could not read (a body that is not JSON, a field missing, unknown or invalid) is
worded here field by field; a service error is answered with the kind ``problems`` maps it to;
the database down or busy is 503 ``unavailable`` with ``Retry-After``; anything unexpected is a
bare 500 ``internal_error``, logged with its traceback and never shown.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
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
from colour_collector.server.problems import (
    BY_STATUS,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    MALFORMED_JSON,
    NOT_JSON,
    UNAVAILABLE,
    ProblemError,
    ProblemKind,
    problem_from_service_error,
    problem_response,
)
from colour_collector.service import errors

log = logging.getLogger(__name__)

UNPARSABLE_BODY = "There was an error parsing the body"
"""FastAPI's own detail when it cannot decode a body at all."""
LISTED_PROBLEMS = 20
"""At most this many of a request's validation problems are listed in its 422 (the rest are
counted): a 64 KiB body naming 6,000 unknown fields was answered with 394 KB."""

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
    kind = BY_STATUS.get(exc.status_code) or ProblemKind(
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
        elif isinstance(cause, ValueError) and "integer string conversion" in str(cause):
            # Python reads at most 4,300 digits of a whole number (sys.get_int_max_str_digits)
            reason = "a number in it has more than 4,300 digits"
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
