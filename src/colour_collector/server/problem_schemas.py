"""The body of every error answer (RFC 9457 ``application/problem+json``) as clients receive it,
and how the routes' OpenAPI entries point at it. ``server.problems`` builds the answers."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from pydantic import ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer
from pydantic.json_schema import SkipJsonSchema

from colour_collector.server.schemas import Response
from colour_collector.service.protection_models import LimitPeriod


def _absent_when_not_sent(schema: dict[str, Any]) -> None:
    # A problem's optional fields are sent or left out, never sent as their default: the
    # schema names no default for them.
    for field in schema.get("properties", {}).values():
        field.pop("default", None)


class FieldProblem(Response):
    """One part of a request that was wrong."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    field: str = Field(description="Its dotted name (`body`: the whole body).")
    message: str = Field(description="What was wrong with it.")


class LimitInTheWay(Response):
    """The deposit limit a deposit would go over."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    period: LimitPeriod
    amount_pence: int


class Problem(Response):
    """RFC 9457 problem details (``application/problem+json``), the body of every error.

    Beside RFC 9457's members, ``code`` names the error for programs; the optional fields are
    sent only with the codes their descriptions name (``server.problems`` builds them)."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra=_absent_when_not_sent)

    type: str
    title: str
    status: int
    detail: str
    code: str = Field(description="Stable machine-readable error code.")
    errors: list[FieldProblem] | SkipJsonSchema[None] = Field(
        None,
        description="`invalid_request`, `unsupported_media_type`, `underage`,"
        " `confirmation_required`: each part of the request that was wrong.",
    )
    balance_pence: int | SkipJsonSchema[None] = Field(
        None, description="`insufficient_funds`: the balance."
    )
    expected: str | None = Field(
        None,
        description="`step_out_of_order`, `play_not_over`: the kind of step the play expects"
        " next (null: none).",
    )
    revealed: int | SkipJsonSchema[None] = Field(
        None, description="`step_out_of_order`: how many steps of the play are revealed."
    )
    until: dt.datetime | SkipJsonSchema[None] = Field(
        None, description="`timed_out`, `self_excluded`: when the time-out or exclusion ends."
    )
    played_seconds: int | SkipJsonSchema[None] = Field(
        None, description="`reality_check_due`: time played."
    )
    net_pence: int | SkipJsonSchema[None] = Field(
        None, description="`reality_check_due`: net position."
    )
    due_at: dt.datetime | SkipJsonSchema[None] = Field(
        None, description="`reality_check_due`: when it became due."
    )
    limit: LimitInTheWay | SkipJsonSchema[None] = Field(
        None, description="`deposit_limit_exceeded`: the deposit limit in the way."
    )
    deposited_pence: int | SkipJsonSchema[None] = Field(
        None, description="`deposit_limit_exceeded`: deposited in the limit's window."
    )
    resets_at: dt.datetime | None = Field(
        None,
        description="`deposit_limit_exceeded`: when the deposit fits under the limit (null:"
        " the deposit is over the limit itself).",
    )
    period: LimitPeriod | SkipJsonSchema[None] = Field(
        None, description="`limit_change_not_due`: the deposit limit's period."
    )
    confirmable_at: dt.datetime | SkipJsonSchema[None] = Field(
        None, description="`limit_change_not_due`: when the limit change may be confirmed."
    )

    # No return annotation: pydantic would describe the body by it instead of by the fields.
    @model_serializer(mode="wrap")
    def _only_what_was_sent(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        # A field left out stays out of the body (in a problem answered and in one carried by
        # another body, like the quote's ``refused``); one set to null is sent as null.
        sent = handler(self)
        return {name: value for name, value in sent.items() if name in self.model_fields_set}


PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
"""The documented schema of a problem answer (``problem_handlers.install`` puts ``Problem``
there)."""


def problem_responses(descriptions: Mapping[int, str]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries documenting problem+json answers."""
    return {
        status: {
            "description": description,
            "content": {"application/problem+json": {"schema": PROBLEM_REF}},
        }
        for status, description in descriptions.items()
    }


BODY_PROBLEMS = {
    400: "Malformed JSON, or an object giving one name twice (`invalid_request`).",
    403: "CSRF check failed (`csrf_failed`).",
    413: "Body larger than the limit (`body_too_large`).",
    415: "A body not sent as `application/json`, or sent with a `Content-Encoding`"
    " (`unsupported_media_type`).",
    422: "A field is missing, unknown or invalid (`invalid_request`).",
}
"""Problems any request with a JSON body can get."""

ENCODED_BODY = (
    "A body sent with a `Content-Encoding`: request bodies are not decoded"
    " (`unsupported_media_type`)."
)
"""The 415 of a state-changing route without a body, which the body gate answers before it
(as it does 413)."""


BAD_PARAMETERS = problem_responses(
    {422: "A bad path, query, header or cookie parameter (`invalid_request`)."}
)
"""What a route with parameters can answer when one is bad (routes with a body say more)."""
