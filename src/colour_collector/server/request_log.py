"""Structured logs: one JSON object a line, each with the id of the request it belongs to.

``RequestIds`` gives every HTTP request an id (the caller's ``X-Request-ID`` when it is a sane
one, else a fresh one), keeps it in a context variable while the request runs and sends it back
in ``X-Request-ID``. ``JsonFormatter`` writes a record as JSON with that id; uvicorn's access log
line becomes ``{"event": "request", "method", "path", "status", "client", ...}``.
``log_config()`` is the logging configuration ``serve`` gives uvicorn: JSON for the server's
own loggers, uvicorn's and the app's alike.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import re
import secrets
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID_HEADER = "X-Request-ID"
"""The header that carries a request's id both ways."""
_SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
"""The id of the request being served (None outside one)."""


class RequestIds:
    """ASGI middleware: an id for every request, in the logs and in ``X-Request-ID``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = None
        for name, value in scope["headers"]:
            if name == b"x-request-id":
                given = value.decode("latin-1")
                break
        rid = given if given and _SANE_ID.fullmatch(given) else secrets.token_hex(8)
        token = request_id.set(rid)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = rid
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            request_id.reset(token)


_ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")


class JsonFormatter(logging.Formatter):
    """A log record as one line of JSON: time, level, logger, message, request id, and for
    uvicorn's access log the request's method, path and status."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        rid = request_id.get()
        if rid is not None:
            entry["request_id"] = rid
        if record.name == "uvicorn.access" and isinstance(record.args, tuple):
            entry["event"] = "request"
            entry.update(zip(_ACCESS_FIELDS, record.args, strict=False))
        else:
            entry["message"] = record.getMessage()
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def log_config(level: str = "info") -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for uvicorn: every logger through :class:`JsonFormatter`
    to standard error."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonFormatter"}},
        "handlers": {"json": handler},
        "root": {"handlers": ["json"], "level": level.upper()},
        "loggers": {
            "uvicorn": {"handlers": [], "level": level.upper(), "propagate": True},
            "uvicorn.error": {"handlers": [], "level": level.upper(), "propagate": True},
            "uvicorn.access": {"handlers": [], "level": level.upper(), "propagate": True},
        },
    }
