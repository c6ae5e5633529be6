"""Request parsing for the routes every play calls many times (purchase, each step, FINISH).

FastAPI binds a route's parameters by resolving a tree of dependencies, then validates and
re-serialises the answer; for the step route that cost about as much as the step itself
(measured: 10 to 28% more complete plays a second without it, docs/load.md). These routes take
the ``Request`` and parse it with the helpers here, which answer bad input exactly as FastAPI
would (the same ``RequestValidationError``, so the same RFC 9457 problems), and document what
they read with :func:`documented` so the OpenAPI description stays the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, StringConstraints, TypeAdapter, ValidationError
from starlette.responses import Response

M = TypeVar("M", bound=BaseModel)

PLAY_NUMBER_DESCRIPTION = "Play Number, e.g. CC-7K3D-9QXM-4."
PLAY_NUMBER_MAX = 40
"""Longest path value accepted as a Play Number (longer answers 422)."""
_PLAY_NUMBER = TypeAdapter(
    Annotated[str, StringConstraints(min_length=1, max_length=PLAY_NUMBER_MAX)]
)


def _located(error: ValidationError, *where: str | int) -> list[Any]:
    return [{**item, "loc": (*where, *item["loc"])} for item in error.errors()]


def play_number(request: Request) -> str:
    """The ``{play_number}`` path parameter (1 to 40 characters)."""
    value = request.path_params["play_number"]
    try:
        return _PLAY_NUMBER.validate_python(value)
    except ValidationError as error:
        raise RequestValidationError(_located(error, "path", "play_number")) from None


def _is_json(content_type: str | None) -> bool:
    if not content_type:
        return False
    media = content_type.split(";", 1)[0].strip().lower()
    kind, _, subtype = media.partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


async def body(request: Request, model: type[M]) -> M:
    """The JSON body as ``model``, answering bad bodies as FastAPI's binding does: an empty body
    is missing, a body that is not JSON-typed is validated as raw bytes, broken JSON is
    ``json_invalid``, and JSON that cannot be read (not UTF-8, too deep) is a 400 parse error."""
    raw = await request.body()
    if not raw:
        raise RequestValidationError(
            [{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}]
        )
    value: Any = raw
    if _is_json(request.headers.get("content-type")):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as error:
            raise RequestValidationError(
                [
                    {
                        "type": "json_invalid",
                        "loc": ("body", error.pos),
                        "msg": "JSON decode error",
                        "input": {},
                        "ctx": {"error": error.msg},
                    }
                ]
            ) from None
        except (ValueError, RecursionError):  # not UTF-8, a number too long, nested too deep
            raise HTTPException(400, "There was an error parsing the body") from None
    try:
        return model.model_validate(value, from_attributes=True)
    except ValidationError as error:
        raise RequestValidationError(_located(error, "body")) from None


def answer(model: BaseModel, status_code: int = 200) -> Response:
    """``model`` as a JSON response."""
    return Response(
        model.model_dump_json(by_alias=True),
        status_code=status_code,
        media_type="application/json",
    )


def documented(
    request_model: type[BaseModel],
    *,
    with_play_number: bool = True,
    headers: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """``openapi_extra`` describing what a route reads itself: the ``{play_number}`` path
    parameter, optional headers (name: description) and a required JSON ``request_model``."""
    parameters: list[dict[str, Any]] = []
    if with_play_number:
        parameters.append(
            {
                "name": "play_number",
                "in": "path",
                "required": True,
                "schema": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": PLAY_NUMBER_MAX,
                    "description": PLAY_NUMBER_DESCRIPTION,
                    "title": "Play Number",
                },
                "description": PLAY_NUMBER_DESCRIPTION,
            }
        )
    for name, description in (headers or {}).items():
        parameters.append(
            {
                "name": name,
                "in": "header",
                "required": False,
                "schema": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "description": description,
                    "title": name,
                },
                "description": description,
            }
        )
    return {
        "parameters": parameters,
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": request_model.model_json_schema()}},
        },
    }
