"""How routes read a JSON request body: as FastAPI reads it, except that an object giving one
name twice is refused, at any depth of the body.

Python's reader keeps the last of the two, another reader may keep the first, so a client, a
proxy and the server could each read a different request (``{"amount_pence": 100,
"amount_pence": 200}`` deposited 200). The refusal is the one the game's files are read with
(``game.strict_json.refuse_repeats``); FastAPI answers what the reader raises as a body it could
not parse, which ``problems`` words as 400 ``invalid_request`` naming the name.

Every router of ``server/routes`` is an ``APIRouter(route_class=JsonBodyRoute)``: a route reads
its body through the class of its router (FastAPI's documented way to change how a body is
read).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

from colour_collector.game import strict_json


class StrictJsonRequest(Request):
    """A request whose JSON body may not give a name twice in one object."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            self._json = json.loads(body, object_pairs_hook=strict_json.refuse_repeats)
        return self._json


class JsonBodyRoute(APIRoute):
    """A route that reads its body as a :class:`StrictJsonRequest`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def handle_strictly(request: Request) -> Response:
            return await handle(StrictJsonRequest(request.scope, request.receive))

        return handle_strictly
