"""The OpenAPI description covers every response body with a closed, typed schema (the board
included), and whole plays of every kind answer exactly what it says."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from plays_fixtures import buy, deposit, play_settings, step_body

from colour_collector.server.settings import Settings


@pytest.fixture
def backend() -> str:
    """The description is about the HTTP layer: SQLite is enough."""
    return "sqlite"


OUTCOMES = [None, "£5", "£6", "£10 (£10 Prize Game)", "£5,000 (£5,000 Prize Game)", "£1,000,000"]


@pytest.fixture
def settings(database_url: str, tmp_path: Any) -> Settings:
    return play_settings(database_url, tmp_path, OUTCOMES)


def schemas_in(schema: Any) -> list[dict[str, Any]]:
    """``schema`` and every schema nested in it."""
    if not isinstance(schema, dict):
        return []
    found = [schema]
    for key in ("properties", "$defs"):
        for value in schema.get(key, {}).values():
            found += schemas_in(value)
    for key in ("items", "additionalProperties"):
        found += schemas_in(schema.get(key))
    for key in ("anyOf", "oneOf", "allOf"):
        for value in schema.get(key, []):
            found += schemas_in(value)
    return found


def test_every_response_body_has_a_closed_typed_schema(client: Any) -> None:
    spec = client.get("/openapi.json").json()
    components = spec["components"]["schemas"]
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if status == "204":
                    assert "content" not in response, (method, path)
                    continue
                (media,) = response["content"]
                schema = response["content"][media]["schema"]
                assert schema, (method, path, status)
                if status.startswith("2"):
                    assert media == "application/json", (method, path)
                    assert set(schema) == {"$ref"}, (method, path, schema)
                else:
                    assert media == "application/problem+json", (method, path, status)
    for name, schema in components.items():
        for part in schemas_in(schema):
            if part.get("type") == "object":
                # No free-form objects: every object names its fields (or has none at all).
                assert part.get("additionalProperties") in (None, False), (name, part)
                assert part.get("properties") or part.get("additionalProperties") is False, name
    board = components["Board"]["properties"]
    assert {"grid", "prize_table", "wheel", "bonus_game", "prize_game", "result"} <= set(board)
    assert components["GridSquare"]["properties"]["colour"]["anyOf"][0]["enum"]


def references_in(node: Any) -> list[str]:
    """Every ``$ref`` in a part of the description."""
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [ref for value in node.values() for ref in references_in(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in references_in(value)]
    return []


def test_every_reference_in_the_description_names_a_component(client: Any) -> None:
    """Problem answers point at ``Problem``, which ``problem_handlers.install`` puts in the
    components (FastAPI would not: no route answers it as its own ``application/json``)."""
    spec = client.get("/openapi.json").json()
    components = spec["components"]["schemas"]
    references = references_in(spec)
    assert "#/components/schemas/Problem" in references
    for reference in references:
        prefix, _, name = reference.rpartition("/")
        assert prefix == "#/components/schemas" and name in components, reference
    problem = components["Problem"]
    assert problem["additionalProperties"] is False
    assert {"errors", "expected", "until", "limit", "resets_at"} <= problem["properties"].keys()
    assert not [name for name, field in problem["properties"].items() if "default" in field]


def test_parameters_state_their_bounds_in_json_schema_words(client: Any) -> None:
    """``minimum``/``maximum``: a validator put before ``Path``/``Query`` in ``Annotated`` made
    FastAPI write pydantic's ``ge``/``le`` instead, which no OpenAPI tool reads."""
    spec = client.get("/openapi.json").json()
    parameters = [
        (path, parameter["name"], parameter["schema"])
        for path, operations in spec["paths"].items()
        for operation in operations.values()
        for parameter in operation.get("parameters", [])
    ]
    bounded = {(path, name) for path, name, schema in parameters if "maximum" in schema}
    assert ("/api/pools/{pool_id}", "pool_id") in bounded
    assert ("/api/my-games", "per_page") in bounded and ("/api/wallet", "limit") in bounded
    for path, name, schema in parameters:
        assert not {"ge", "le", "gt", "lt"} & schema.keys(), (path, name, schema)


def validator_for(spec: dict[str, Any], path: str, method: str, status: int) -> Any:
    response = spec["paths"][path][method]["responses"][str(status)]
    schema = response["content"]["application/json"]["schema"]
    return Draft202012Validator({**schema, "components": spec["components"]})


def test_whole_plays_answer_what_the_description_says(player: Any) -> None:
    spec = player.get("/openapi.json").json()
    steps = validator_for(spec, "/api/plays/{play_number}/steps", "post", 200)
    views = validator_for(spec, "/api/plays/{play_number}", "get", 200)
    recalls = validator_for(spec, "/api/my-games/{play_number}", "get", 200)
    finishes = validator_for(spec, "/api/plays/{play_number}/finish", "post", 200)
    bought = validator_for(spec, "/api/plays", "post", 201)
    deposit(player, 100_000)
    kinds_seen: set[str] = set()
    for _ in OUTCOMES:
        answer = buy(player)
        assert answer.status_code == 201, answer.text
        bought.validate(answer.json())
        number, board = answer.json()["play"]["play_number"], answer.json()["board"]
        while board["next"] is not None:
            body = {**step_body(board["next"]), "step": board["revealed"]}
            step = player.post(f"/api/plays/{number}/steps", json=body)
            assert step.status_code == 200, step.text
            steps.validate(step.json())
            kinds_seen.add(step.json()["step"]["kind"])
            views.validate(player.get(f"/api/plays/{number}").json())
            board = step.json()["board"]
        finishes.validate(player.post(f"/api/plays/{number}/finish", json={}).json())
        recalls.validate(player.get(f"/api/my-games/{number}").json())
    assert kinds_seen == {"spin", "bonus_pick", "prize_spin"}


METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE"}


def test_a_method_a_path_does_not_have_answers_405_naming_those_it_has(client: Any) -> None:
    spec = client.get("/openapi.json").json()
    for path, operations in spec["paths"].items():
        allowed = {method.upper() for method in operations}
        concrete = path.replace("{play_number}", "CC-000-000-000").replace("{try_id}", "x" * 32)
        concrete = concrete.replace("{movement_id}", "1")
        for method in sorted(METHODS - allowed):
            answer = client.request(method, concrete)
            assert answer.status_code == 405, (method, path, answer.text)
            assert set(answer.headers["allow"].split(", ")) == allowed, (method, path)
            assert answer.json()["code"] == "method_not_allowed"


@pytest.mark.parametrize(
    ("path", "field", "limits", "body"),
    [
        ("/api/protection/reality-check/interval", "interval_minutes", (10, 240), {}),
        ("/api/protection/time-out", "days", (1, 42), {"confirm": True}),
        ("/api/protection/self-exclusion", "months", (6, 60), {"confirm": True}),
        (
            "/api/protection/deposit-limits",
            "daily_pence",
            (1, 10_000_000),
            {"weekly_pence": None, "monthly_pence": None},
        ),
    ],
)
def test_the_description_states_the_ranges_the_server_enforces(
    player: Any, path: str, field: str, limits: tuple[int, int], body: dict[str, Any]
) -> None:
    """A request the description allows is not refused for its range (and one it does not
    allow is refused naming the field)."""
    low, high = limits
    described = player.get("/openapi.json").json()
    reference = described["paths"][path]["post"]["requestBody"]["content"]["application/json"]
    name = reference["schema"]["$ref"].rsplit("/", 1)[1]
    bounds = described["components"]["schemas"][name]["properties"][field]
    assert (bounds["minimum"], bounds["maximum"]) == (low, high)
    for outside in (low - 1, high + 1):
        refused = player.post(path, json={**body, field: outside})
        assert refused.status_code == 422, refused.text
        assert refused.json()["errors"][0]["field"] == field
    assert player.post(path, json={**body, field: high}).status_code in (200, 201)


def test_the_idempotency_key_is_described_as_printable_ascii_and_required_by_payments(
    client: Any,
) -> None:
    described = client.get("/openapi.json").json()
    required = {
        "/api/plays": False,
        "/api/wallet/test-deposit": False,
        "/api/wallet/deposits": True,
        "/api/wallet/withdrawals": True,
    }
    for path, needed in required.items():
        (key,) = [
            p for p in described["paths"][path]["post"]["parameters"]
            if p["name"] == "Idempotency-Key"
        ]  # fmt: skip
        assert key["schema"]["pattern"] == "^[ -~]+$"
        assert key.get("required", False) is needed, path


def test_a_purchase_documents_every_refusal_it_can_answer(client: Any) -> None:
    responses = client.get("/openapi.json").json()["paths"]["/api/plays"]["post"]["responses"]
    for status, code in [
        ("403", "timed_out"),
        ("403", "self_excluded"),
        ("409", "reality_check_due"),
        ("409", "insufficient_funds"),
        ("503", "sales_stopped"),
        ("503", "sold_out"),
    ]:
        assert f"`{code}`" in responses[status]["description"], (status, code)


def test_the_password_routes_document_every_refusal_they_can_answer(client: Any) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path, refusals in [
        ("/api/password/forgot", [("422", "invalid_request"), ("429", "too_many_emails")]),
        ("/api/password/reset", [("400", "invalid_token"), ("422", "invalid_request")]),
    ]:
        responses = paths[path]["post"]["responses"]
        for status, code in [*refusals, ("403", "csrf_failed"), ("413", "body_too_large")]:
            assert f"`{code}`" in responses[status]["description"], (path, status, code)
    assert set(paths["/api/password/forgot"]["post"]["responses"]) >= {"202"}
    assert set(paths["/api/password/reset"]["post"]["responses"]) >= {"200"}


def test_every_body_can_be_refused_as_not_json_and_test_deposits_over_a_limit(
    client: Any,
) -> None:
    described = client.get("/openapi.json").json()
    with_body = [
        (path, method, operation)
        for path, item in described["paths"].items()
        for method, operation in item.items()
        if "requestBody" in operation
    ]
    assert len(with_body) > 20
    for path, method, operation in with_body:
        assert "415" in operation["responses"], (method, path)
    test_deposit = described["paths"]["/api/wallet/test-deposit"]["post"]["responses"]
    assert "deposit_limit_exceeded" in test_deposit["409"]["description"]


def test_what_the_body_gate_refuses_is_documented_together(client: Any) -> None:
    """The body gate (``BodyLimitMiddleware``) answers 413 for a body too large and 415 for one
    sent with a ``Content-Encoding``, before any route: an operation that documents the one
    documents the other (the logouts, which take no body, included)."""
    described = client.get("/openapi.json").json()
    gated = [
        (path, method, operation["responses"])
        for path, item in described["paths"].items()
        for method, operation in item.items()
        if "413" in operation["responses"]
    ]
    assert ("/api/logout", "post") in [(path, method) for path, method, _ in gated]
    for path, method, responses in gated:
        assert "Content-Encoding" in responses["415"]["description"], (method, path)


def problem_validator(spec: dict[str, Any], path: str, method: str, status: int) -> Any:
    """The documented schema of a problem+json answer (``components`` included)."""
    response = spec["paths"][path][method]["responses"][str(status)]
    schema = response["content"]["application/problem+json"]["schema"]
    return Draft202012Validator({**schema, "components": spec["components"]})


def test_problems_answer_what_the_description_says(player: Any) -> None:
    """Problems carry fields beside RFC 9457's (``expected``, ``revealed``, ``balance_pence``):
    the schema is closed, so a field sent and not described fails here."""
    spec = player.get("/openapi.json").json()
    steps = "/api/plays/{play_number}/steps"
    short = buy(player)
    assert short.status_code == 409
    problem_validator(spec, "/api/plays", "post", 409).validate(short.json())
    assert short.json()["balance_pence"] == 0
    deposit(player, 500)
    bought = buy(player).json()
    number = bought["play"]["play_number"]
    early = player.post(f"/api/plays/{number}/finish", json={})
    problem_validator(spec, "/api/plays/{play_number}/finish", "post", 409).validate(early.json())
    wrong = player.post(f"/api/plays/{number}/steps", json={"kind": "prize_spin", "step": 0})
    assert wrong.status_code == 409
    assert {"expected", "revealed"} <= wrong.json().keys()
    problem_validator(spec, steps, "post", 409).validate(wrong.json())
    bad = player.post(f"/api/plays/{number}/steps", json={"kind": "nonsense"})
    problem_validator(spec, steps, "post", 422).validate(bad.json())
