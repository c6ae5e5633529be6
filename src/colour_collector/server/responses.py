"""How routes answer: the response model serialised once, straight to JSON.

Every route declares its response model (so OpenAPI and the schema tests see it) and returns
``answer(model)``. FastAPI would otherwise validate a sync route's returned model again on a
worker thread of its own, a second thread hop per request that buys nothing: the model was
validated when it was built.
"""

from __future__ import annotations

from pydantic import BaseModel
from starlette.responses import Response

JSON = "application/json"


def answer(model: BaseModel, status_code: int = 200) -> Response:
    """``model`` as a JSON response."""
    return Response(model.model_dump_json(), status_code=status_code, media_type=JSON)
