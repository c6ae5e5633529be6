"""How routes read a request: as FastAPI reads it, except that a name given twice is refused,
in a JSON object at any depth of the body, and in the query string.

Python's reader keeps the last of the two, another reader may keep the first, so a client, a
proxy and the server could each read a different request (``{"amount_pence": 100,
"amount_pence": 200}`` deposited 200). The refusal is the one the game's files are read with
(``game.strict_json.refuse_repeats``); FastAPI answers what the reader raises as a body it could
not parse, which ``problem_handlers`` words as 400 ``invalid_request`` naming the name. In the query
string FastAPI keeps the last of a repeated parameter (``?page=1&page=2`` is page 2), where a
cache or a proxy may key on the first; a parameter the route declares given twice is 422
``invalid_request`` naming it, as a repeated ``Idempotency-Key`` header is (a repeated
``Content-Type`` is 415, ``middleware``).

Every router of ``server/routes`` is an ``APIRouter(route_class=JsonBodyRoute)``: a route reads
its body through the class of its router (FastAPI's documented way to change how a body is
read).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

from colour_collector.game import strict_json
from colour_collector.service.errors import InvalidInputError


class StrictJsonRequest(Request):
    """A request whose JSON body may not give a name twice in one object."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            self._json = json.loads(body, object_pairs_hook=strict_json.refuse_repeats)
        return self._json


def query_names(dependant: Dependant) -> Iterator[str]:
    """The query parameters a route reads, its dependencies' included."""
    yield from (param.alias for param in dependant.query_params)
    for dependency in dependant.dependencies:
        yield from query_names(dependency)


def _sent_once(request: Request, names: tuple[str, ...]) -> None:
    """Raise :class:`InvalidInputError` naming the first of ``names`` the query gives twice."""
    for name in names:
        sent = len(request.query_params.getlist(name))
        if sent > 1:
            raise InvalidInputError(
                f"the query parameter {name!r} is given {sent} times: give it once", field=name
            )


class JsonBodyRoute(APIRoute):
    """A route that reads its body as a :class:`StrictJsonRequest`, and refuses a query
    parameter it declares given more than once."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()
        names = tuple(dict.fromkeys(query_names(self.dependant)))

        async def handle_strictly(request: Request) -> Response:
            if names:
                _sent_once(request, names)
            return await handle(StrictJsonRequest(request.scope, request.receive))

        return handle_strictly
