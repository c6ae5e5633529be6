"""A short way in for the three requests every play makes many times: purchase, step, FINISH.

FastAPI answers these routes too (they are registered there, and documented in the OpenAPI
description), but between our middleware and the route function it adds an exception layer, a
dependency exit stack, a router that tries every route in turn, and a request/response wrapper.
For a step that is about a fifth of the server's CPU time (measured, docs/load.md).
:class:`HotRoutes` is the innermost of our middleware, so the catch-all, the body limit and
the CSRF check still run first; it matches these three method and path pairs exactly, calls the
same route function, and turns its exceptions into answers with the app's own exception
handlers, the ones FastAPI would have used. Every other request goes on to FastAPI unchanged.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

Endpoint = Callable[[Request], Awaitable[Response]]
Handler = Callable[[Request, Exception], Any]

_PLAY_PATH = re.compile(r"/api/plays/(?P<play_number>[^/]+)/(?P<action>steps|finish)")
"""The paths with a ``{play_number}``, matched as Starlette's default ``str`` convertor does."""


class HotRoutes:
    """Route ``POST /api/plays``, ``.../{play_number}/steps`` and ``.../finish`` straight to
    their functions; pass everything else on to ``app``."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        purchase: Endpoint,
        step: Endpoint,
        finish: Endpoint,
        handlers: Mapping[Any, Handler],
    ) -> None:
        self.app = app
        self.purchase = purchase
        self.actions = {"steps": step, "finish": finish}
        self.handlers = handlers

    def _endpoint(self, scope: Scope) -> Endpoint | None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope.get("root_path"):
            return None
        path: str = scope["path"]
        if path == "/api/plays":
            scope["path_params"] = {}
            return self.purchase
        if not path.startswith("/api/plays/"):
            return None
        matched = _PLAY_PATH.fullmatch(path)
        if matched is None:
            return None
        scope["path_params"] = {"play_number": matched["play_number"]}
        return self.actions[matched["action"]]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        endpoint = self._endpoint(scope)
        if endpoint is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive, send)
        try:
            response = await endpoint(request)
        except Exception as exc:
            handler = self._handler_for(exc)
            if handler is None:
                raise  # the catch-all middleware answers 500 and logs it
            answer = handler(request, exc)
            response = await answer if inspect.isawaitable(answer) else answer
        await response(scope, receive, send)

    def _handler_for(self, exc: Exception) -> Handler | None:
        for kind in type(exc).__mro__:
            handler = self.handlers.get(kind)
            if handler is not None:
                return handler
        return None
