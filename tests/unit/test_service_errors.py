"""Every service error a route can meet is answered as its own problem, not as a 500.

``server.problems.SERVICE_ERRORS`` maps a ``ServiceError`` to its problem by the first
``isinstance`` match; an error it does not cover becomes 500 ``internal_error``. A new error
must be mapped there, or listed below with the reason no route ever lets it out.
"""

from __future__ import annotations

from colour_collector.server.problems import INTERNAL_ERROR, SERVICE_ERRORS, problem_of
from colour_collector.service import errors

NEVER_ANSWERED_OVER_HTTP = {
    errors.ServiceError: "the base class; only its subclasses are raised",
    errors.ExcludedError: "the base of a time-out and a self-exclusion, which are mapped",
    errors.AuditChainBrokenError: "audit checks report it (the CLI, the console's check)",
    errors.DuplicatePoolError: "a pool loaded twice at once: the load refuses the second",
    errors.EmailTakenError: "registration answers the same whether or not an address is taken",
    errors.PoolRefusedError: "a sale turns it into pool_unavailable; else the pool commands'",
    errors.PoolSecretError: "the pool commands'; a sale meets it as a PoolRefusedError",
}


def _service_errors() -> set[type[errors.ServiceError]]:
    """Every ``ServiceError`` class of the program (not one a test might define)."""
    found: set[type[errors.ServiceError]] = set()
    waiting: list[type[errors.ServiceError]] = [errors.ServiceError]
    while waiting:
        error_type = waiting.pop()
        if error_type.__module__.startswith("colour_collector."):
            found.add(error_type)
        waiting.extend(error_type.__subclasses__())
    return found


def _mapped(error_type: type[errors.ServiceError]) -> bool:
    return any(issubclass(error_type, mapped) for mapped, _ in SERVICE_ERRORS)


def test_every_service_error_is_mapped_or_said_never_to_reach_a_route() -> None:
    unmapped = {error_type for error_type in _service_errors() if not _mapped(error_type)}
    assert unmapped == set(NEVER_ANSWERED_OVER_HTTP)


def test_no_mapping_is_hidden_by_an_earlier_one() -> None:
    """The first ``isinstance`` match wins, so a subclass must come before its parent."""
    order = [error_type for error_type, _ in SERVICE_ERRORS]
    for earlier, error_type in enumerate(order):
        hidden_by = [parent for parent in order[:earlier] if issubclass(error_type, parent)]
        assert hidden_by == [], (error_type, hidden_by)


def test_an_unmapped_error_is_answered_as_an_internal_error() -> None:
    """What the first test guards against: the answer names nothing of the error."""
    assert problem_of(errors.EmailTakenError("taken")).code == INTERNAL_ERROR.code
    assert problem_of(errors.SalesStoppedError("stopped")).code == "sales_stopped"
