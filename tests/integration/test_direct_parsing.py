"""The hot routes parse their requests themselves (server/direct.py): every odd request gets
the answer FastAPI's own parameter binding gives, checked side by side on one app."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from fastapi import FastAPI, Path, Request
from fastapi.testclient import TestClient

from colour_collector.server import direct, problems
from colour_collector.server.play_schemas import EmptyRequest, PurchaseRequest, StepRequest

Number = Annotated[str, Path(min_length=1, max_length=40)]


def make_app() -> FastAPI:
    app = FastAPI()
    problems.install(app)

    @app.post("/fastapi/step/{play_number}")
    async def fastapi_step(play_number: Number, body: StepRequest) -> dict[str, Any]:
        return {"n": play_number, **body.model_dump()}

    @app.post("/direct/step/{play_number}")
    async def direct_step(request: Request) -> dict[str, Any]:
        number = direct.play_number(request)
        return {"n": number, **(await direct.body(request, StepRequest)).model_dump()}

    @app.post("/fastapi/buy")
    async def fastapi_buy(body: PurchaseRequest) -> dict[str, Any]:
        return body.model_dump()

    @app.post("/direct/buy")
    async def direct_buy(request: Request) -> dict[str, Any]:
        return (await direct.body(request, PurchaseRequest)).model_dump()

    @app.post("/fastapi/finish")
    async def fastapi_finish(body: EmptyRequest) -> dict[str, Any]:
        return body.model_dump()

    @app.post("/direct/finish")
    async def direct_finish(request: Request) -> dict[str, Any]:
        return (await direct.body(request, EmptyRequest)).model_dump()

    return app


JSON = {"content-type": "application/json"}
BODIES: list[tuple[str, bytes, dict[str, str]]] = [
    ("good", b'{"kind": "spin"}', JSON),
    ("bonus", b'{"kind": "bonus_pick", "pick": "odd"}', JSON),
    ("charset", b'{"kind": "spin"}', {"content-type": "application/json; charset=utf-8"}),
    ("problem+json", b'{"kind": "spin"}', {"content-type": "application/problem+json"}),
    ("empty", b"", JSON),
    ("empty no type", b"", {}),
    ("null", b"null", JSON),
    ("broken", b'{"kind": ', JSON),
    ("text type", b'{"kind": "spin"}', {"content-type": "text/plain"}),
    ("no type", b'{"kind": "spin"}', {}),
    ("array", b"[1, 2]", JSON),
    ("string", b'"spin"', JSON),
    ("number", b"5", JSON),
    ("unknown field", b'{"kind": "spin", "x": 1}', JSON),
    ("wrong type", b'{"kind": 5}', JSON),
    ("bad kind", b'{"kind": "jump"}', JSON),
    ("bad pick", b'{"kind": "bonus_pick", "pick": 1}', JSON),
    ("confirm string", b'{"confirm": "true"}', JSON),
    ("confirm", b'{"confirm": true}', JSON),
    ("empty object", b"{}", JSON),
    ("not utf-8", b'{"kind": "\xff"}', JSON),
    ("huge number", b'{"kind": ' + b"1" * 5000 + b"}", JSON),
    ("deep", b"[" * 100_000 + b"]" * 100_000, JSON),
]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(make_app())


@pytest.mark.parametrize("route", ["step/CC-0000-0000-0", "buy", "finish"])
@pytest.mark.parametrize(("name", "content", "headers"), BODIES, ids=[b[0] for b in BODIES])
def test_bodies_answer_as_fastapi(
    client: TestClient, route: str, name: str, content: bytes, headers: dict[str, str]
) -> None:
    standard = client.post(f"/fastapi/{route}", content=content, headers=headers)
    ours = client.post(f"/direct/{route}", content=content, headers=headers)
    assert (ours.status_code, ours.json()) == (standard.status_code, standard.json()), name


@pytest.mark.parametrize("number", ["x" * 40, "x" * 41, "CC-0000-0000-0", "%20"])
def test_play_numbers_answer_as_fastapi(client: TestClient, number: str) -> None:
    body = {"kind": "spin"}
    standard = client.post(f"/fastapi/step/{number}", json=body)
    ours = client.post(f"/direct/step/{number}", json=body)
    assert (ours.status_code, ours.json()) == (standard.status_code, standard.json())
    assert ours.status_code == (422 if len(number) > 40 else 200)
