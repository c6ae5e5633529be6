"""Bad input on every endpoint is a 4xx problem naming the field, never a 5xx."""

from __future__ import annotations

import gzip
import importlib
import json
import logging
import pkgutil
from typing import Any

import pytest

from colour_collector.server import routes
from colour_collector.server.request_bodies import JsonBodyRoute, query_names

PROBLEM = "application/problem+json"

REGISTER = {"email": "b@example.com", "password": "long enough pw", "date_of_birth": "1990-01-01"}
LOGIN = {"email": "b@example.com", "password": "long enough pw"}
DEPOSIT = {"amount_pence": 100}
FORGOT = {"email": "b@example.com"}
RESET = {"token": "A" * 43, "password": "long enough pw"}
BODIES = {
    "/api/register": REGISTER,
    "/api/login": LOGIN,
    "/api/wallet/test-deposit": DEPOSIT,
    "/api/password/forgot": FORGOT,
    "/api/password/reset": RESET,
}


@pytest.fixture
def backend() -> str:
    """Validation happens before the database: SQLite is enough here."""
    return "sqlite"


def assert_problem(response: Any, status: int, code: str, field: str | None = None) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert body["code"] == code
    assert {"type", "title", "status", "detail", "code"} <= body.keys()
    if field is not None:
        assert field in [item["field"] for item in body["errors"]], body
        assert field in body["detail"] or body["errors"][0]["field"] == "body"


@pytest.mark.parametrize("path", sorted(BODIES))
def test_malformed_json(player: Any, path: str) -> None:
    response = player.post(
        path, content=b'{"amount_pence": ', headers={"content-type": "application/json"}
    )
    assert_problem(response, 400, "invalid_request", "body")


@pytest.mark.parametrize("path", sorted(BODIES))
def test_a_body_that_is_not_utf8(player: Any, path: str) -> None:
    response = player.post(path, content=b"{\xc3(}", headers={"content-type": "application/json"})
    assert_problem(response, 400, "invalid_request", "body")
    assert response.json()["detail"] == "the request body is not valid JSON (not UTF-8 text)"


@pytest.mark.parametrize(
    ("path", "field", "value", "message"),
    [
        ("/api/register", "email", "x", "String should have at least 3 characters"),
        ("/api/register", "password", "p" * 5000, "String should have at most"),
        ("/api/password/forgot", "email", "x", "String should have at least 3 characters"),
        ("/api/password/reset", "password", "p" * 5000, "String should have at most"),
        ("/api/password/reset", "password", "p" * 9, "String should have at least 10"),
    ],
)
def test_a_length_is_said_as_a_length(
    player: Any, path: str, field: str, value: str, message: str
) -> None:
    response = player.post(path, json={**BODIES[path], field: value})
    assert_problem(response, 422, "invalid_request", field)
    assert message in response.json()["detail"]
    assert "items after validation" not in response.json()["detail"]


@pytest.mark.parametrize("path", sorted(BODIES))
def test_unknown_field(player: Any, path: str) -> None:
    assert_problem(
        player.post(path, json={**BODIES[path], "admin": True}), 422, "invalid_request", "admin"
    )


@pytest.mark.parametrize(
    ("path", "field", "value"),
    [
        ("/api/register", "email", 5),
        ("/api/register", "password", ["x"]),
        ("/api/register", "date_of_birth", 19900101),
        ("/api/register", "date_of_birth", "1990-13-45"),
        ("/api/login", "email", None),
        ("/api/login", "password", {"a": 1}),
        ("/api/password/forgot", "email", 5),
        ("/api/password/reset", "token", 43),
        ("/api/password/reset", "token", "A" * 44),
        ("/api/password/reset", "password", ["x"]),
        ("/api/wallet/test-deposit", "amount_pence", "100"),
        ("/api/wallet/test-deposit", "amount_pence", 1.5),
        ("/api/wallet/test-deposit", "amount_pence", True),
    ],
)
def test_wrong_types(player: Any, path: str, field: str, value: Any) -> None:
    assert_problem(
        player.post(path, json={**BODIES[path], field: value}), 422, "invalid_request", field
    )


@pytest.mark.parametrize("path", sorted(BODIES))
def test_missing_field_and_wrong_shape(player: Any, path: str) -> None:
    body = dict(BODIES[path])
    missing = next(iter(body))
    del body[missing]
    assert_problem(player.post(path, json=body), 422, "invalid_request", missing)
    response = player.post(path, json=[1, 2, 3])
    assert response.status_code == 422 and response.json()["code"] == "invalid_request"


@pytest.mark.parametrize("path", [*sorted(BODIES), "/api/logout"])
def test_huge_body(player: Any, path: str) -> None:
    huge = b'{"email": "' + b"x" * 70_000 + b'"}'
    response = player.post(path, content=huge, headers={"content-type": "application/json"})
    assert_problem(response, 413, "body_too_large")


def test_huge_chunked_body_without_length(player: Any) -> None:
    def chunks() -> Any:
        for _ in range(20):
            yield b" " * 8192

    response = player.post(
        "/api/wallet/test-deposit", content=chunks(), headers={"content-type": "application/json"}
    )
    assert_problem(response, 413, "body_too_large")


# Python's int() and pydantic read "+1", "1_0", " 1", "1.0" and "01" as numbers: an id is digits
# only, with no leading zero (one address for each resource).
LOOSE_NUMBERS = ["+1", "1_0", "%201", "1%20", "1.0", "0x1", "%D9%A1", "01", "007"]


@pytest.mark.parametrize(
    "bad",
    [
        *["abc", "0", "-1", "1.5", "2147483648", "9793167572", "99999999999999999999999", "%00"],
        *LOOSE_NUMBERS,
    ],
)
def test_bad_ids(player: Any, bad: str) -> None:
    response = player.get(f"/api/wallet/movements/{bad}")
    assert_problem(response, 422, "invalid_request", "movement_id")


@pytest.mark.parametrize("bad", ["abc", "0", "101", "-3", *LOOSE_NUMBERS])
def test_bad_query(player: Any, bad: str) -> None:
    assert_problem(player.get(f"/api/wallet?limit={bad}"), 422, "invalid_request", "limit")


@pytest.mark.parametrize("bad", LOOSE_NUMBERS)
def test_pool_ids_positions_and_pages_are_digits(player: Any, bad: str) -> None:
    assert_problem(player.get(f"/api/pools/{bad}"), 422, "invalid_request", "pool_id")
    assert_problem(player.get(f"/api/pools/1/plays/{bad}"), 422, "invalid_request", "position")
    assert_problem(player.get(f"/api/my-games?page={bad}"), 422, "invalid_request", "page")
    per_page = player.get(f"/api/my-games?per_page={bad}")
    assert_problem(per_page, 422, "invalid_request", "per_page")


def test_unknown_route_and_method(player: Any) -> None:
    assert_problem(player.get("/api/nope"), 404, "not_found")
    assert_problem(player.delete("/api/me"), 405, "method_not_allowed")


def test_a_long_unknown_path_is_not_repeated_whole(player: Any) -> None:
    path = "/api/" + "x" * 60_000
    answer = player.get(path)
    assert_problem(answer, 404, "not_found")
    assert answer.json()["detail"] == f"no such resource: {path[:200]}... (60,005 characters)"
    assert len(answer.content) < 1_000


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b"amount_pence=5", "text/plain"),
        (b'{"amount_pence": 100}', "text/plain"),  # JSON, but not said to be
        (b"amount_pence=100", "application/x-www-form-urlencoded"),
        (b'{"amount_pence": 100}', None),
    ],
)
def test_a_body_not_sent_as_json_is_415_naming_the_content_type(
    player: Any, app: Any, content: bytes, content_type: str | None
) -> None:
    headers = {} if content_type is None else {"content-type": content_type}
    response = player.post("/api/wallet/test-deposit", content=content, headers=headers)
    assert_problem(response, 415, "unsupported_media_type", "Content-Type")
    detail = response.json()["detail"]
    assert "Content-Type: application/json" in detail
    assert (repr(content_type) if content_type else "has no Content-Type") in detail
    assert player.get("/api/wallet").json()["balance_pence"] == 0


@pytest.mark.parametrize(
    "nested", [b"[" * 5000 + b"]" * 5000, b'{"a":' * 3000 + b"1" + b"}" * 3000]
)
def test_json_nested_too_deeply_is_said_so(player: Any, nested: bytes) -> None:
    response = player.post(
        "/api/wallet/test-deposit", content=nested, headers={"content-type": "application/json"}
    )
    assert_problem(response, 400, "invalid_request", "body")
    assert response.json()["detail"] == "the request body is not valid JSON (nested too deeply)"


def test_a_number_too_long_to_read_is_said_so(player: Any) -> None:
    body = b'{"amount_pence": ' + b"9" * 4301 + b"}"
    response = player.post(
        "/api/wallet/test-deposit", content=body, headers={"content-type": "application/json"}
    )
    assert_problem(response, 400, "invalid_request", "body")
    assert response.json()["detail"] == (
        "the request body is not valid JSON (a number in it has more than 4,300 digits)"
    )
    assert player.get("/api/wallet").json()["balance_pence"] == 0


def test_unexpected_error_is_a_bare_500(
    app: Any, new_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    def explode() -> None:
        raise RuntimeError("secret internals")

    app.add_api_route("/api/explode", explode, methods=["GET"])
    with caplog.at_level(logging.ERROR):
        response = new_client(app).get("/api/explode")
    assert_problem(response, 500, "internal_error")
    assert "secret internals" not in response.text
    assert "Traceback" not in response.text
    assert "secret internals" in caplog.text  # logged server side


def test_healthz_and_openapi(client: Any) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    spec = client.get("/openapi.json").json()
    assert "/api/wallet/test-deposit" in spec["paths"]
    deposit = spec["paths"]["/api/wallet/test-deposit"]["post"]
    assert "TEST" in deposit["summary"] and "not real money" in deposit["description"]


@pytest.mark.parametrize("path", ["/api/plays", "/api/wallet/test-deposit", "/api/wallet/deposits"])
def test_an_idempotency_key_sent_twice_is_refused(player: Any, path: str) -> None:
    """Which of two keys a retry would be matched by is the client's accident: neither is used."""
    keys = [("Idempotency-Key", "first"), ("Idempotency-Key", "second")]
    body = {"confirm": True} if path == "/api/plays" else {"amount_pence": 500}
    answer = player.post(path, json=body, headers=keys)
    assert_problem(answer, 422, "invalid_request", "Idempotency-Key")
    assert answer.json()["detail"] == "the Idempotency-Key header is sent 2 times: send one"
    assert player.get("/api/wallet").json()["balance_pence"] == 0
    assert player.get("/api/my-games").json()["items"] == []


def assert_nothing_deposited(player: Any) -> None:
    wallet = player.get("/api/wallet").json()
    assert (wallet["balance_pence"], wallet["movements"]) == (0, [])


PLAIN_DEPOSIT = b'{"amount_pence": 100}'


@pytest.mark.parametrize(
    ("encoding", "content"),
    [
        ("gzip", PLAIN_DEPOSIT),  # said to be compressed, and is not
        ("gzip", gzip.compress(PLAIN_DEPOSIT)),
        ("br", PLAIN_DEPOSIT),
        ("identity, gzip", gzip.compress(PLAIN_DEPOSIT)),
    ],
    ids=["gzip-but-plain", "gzip", "br", "identity-then-gzip"],
)
def test_a_body_with_a_content_encoding_is_415_naming_it(
    player: Any, encoding: str, content: bytes
) -> None:
    """The server does not decode compressed request bodies: it says so before any route runs."""
    response = player.post(
        "/api/wallet/test-deposit",
        content=content,
        headers={"content-type": "application/json", "content-encoding": encoding},
    )
    assert_problem(response, 415, "unsupported_media_type", "Content-Encoding")
    assert f"not with Content-Encoding: {encoding!r}" in response.json()["detail"]
    assert response.headers["accept-encoding"] == "identity"
    assert_nothing_deposited(player)


def test_a_content_encoding_is_refused_on_a_route_without_a_body_model(player: Any) -> None:
    """Logging out reads no body; one sent compressed is refused all the same, and the player
    stays logged in."""
    response = player.post("/api/logout", content=b"{}", headers={"content-encoding": "gzip"})
    assert_problem(response, 415, "unsupported_media_type", "Content-Encoding")
    assert "Content-Encoding" in response.json()["detail"]
    assert player.get("/api/me").status_code == 200


@pytest.mark.parametrize(
    "types", [("application/json", "text/plain"), ("text/plain", "application/json")]
)
def test_a_body_sent_with_two_content_types_is_415(player: Any, types: tuple[str, str]) -> None:
    """Which of two Content-Types counts is anyone's guess (the first was taken, so the order
    decided between 201 and 415, where a proxy reading the last one saw another body): a body
    must name its type once."""
    response = player.post(
        "/api/wallet/test-deposit",
        content=PLAIN_DEPOSIT,
        headers=[("content-type", types[0]), ("content-type", types[1])],
    )
    assert_problem(response, 415, "unsupported_media_type", "Content-Type")
    assert "sent 2 times" in response.json()["detail"]
    assert_nothing_deposited(player)


def test_thousands_of_problems_in_a_body_are_answered_briefly(player: Any) -> None:
    """A 64 KiB body naming 6,000 unknown fields was answered with 394 KB listing each twice:
    the first twenty are listed, the rest counted."""
    fields = ",".join(f'"k{i}": 0' for i in range(6000))
    content = ('{"amount_pence": 100, ' + fields + "}").encode()
    response = player.post(
        "/api/wallet/test-deposit", content=content, headers={"content-type": "application/json"}
    )
    assert_problem(response, 422, "invalid_request", "k0")
    problem = response.json()
    assert [e["field"] for e in problem["errors"]] == [f"k{i}" for i in range(20)]
    assert problem["detail"].endswith("; and 5980 more problems, not listed")
    assert len(response.content) < 4000
    assert_nothing_deposited(player)


def test_identity_and_a_content_encoding_without_a_body_are_let_through(player: Any) -> None:
    assert player.get("/api/wallet", headers={"content-encoding": "gzip"}).status_code == 200
    deposited = player.post(
        "/api/wallet/test-deposit",
        content=PLAIN_DEPOSIT,
        headers={"content-type": "application/json", "content-encoding": "Identity"},
    )
    assert deposited.status_code == 201, deposited.text
    assert player.get("/api/wallet").json()["balance_pence"] == 100


@pytest.mark.parametrize(
    ("content", "repeated"),
    [
        (b'{"amount_pence": 100, "amount_pence": 200}', "amount_pence"),
        (b'{"amount_pence": 100, "note": {"to": "a", "to": "b"}}', "to"),  # at any depth
        (b'[{"amount_pence": 1}, {"amount_pence": 2, "amount_pence": 3}]', "amount_pence"),
    ],
)
def test_a_name_given_twice_in_one_object_is_400_naming_it(
    player: Any, content: bytes, repeated: str
) -> None:
    """JSON readers disagree on which of the two counts (Python's keeps the last): neither."""
    response = player.post(
        "/api/wallet/test-deposit", content=content, headers={"content-type": "application/json"}
    )
    assert_problem(response, 400, "invalid_request", "body")
    assert response.json()["detail"] == (
        f"the request body is not valid JSON (it gives the name {repeated!r} twice in one object)"
    )
    assert_nothing_deposited(player)


@pytest.mark.parametrize("path", sorted(BODIES))
def test_every_body_refuses_a_name_given_twice(player: Any, path: str) -> None:
    name, value = next(iter(BODIES[path].items()))
    fields = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in BODIES[path].items())
    content = f"{{{fields}, {json.dumps(name)}: {json.dumps(value)}}}".encode()
    response = player.post(path, content=content, headers={"content-type": "application/json"})
    assert_problem(response, 400, "invalid_request", "body")
    assert repr(name) in response.json()["detail"]


def test_every_router_reads_bodies_refusing_a_name_given_twice() -> None:
    """A router made without ``route_class=JsonBodyRoute`` would read ``{"a": 1, "a": 2}`` as
    ``{"a": 2}``."""
    for found in pkgutil.iter_modules(routes.__path__):
        module = importlib.import_module(f"{routes.__name__}.{found.name}")
        assert module.router.route_class is JsonBodyRoute, found.name


QUERY_PARAMETERS = [
    ("/api/my-games", "page"),
    ("/api/my-games", "per_page"),
    ("/api/wallet", "limit"),
]


@pytest.mark.parametrize(("path", "name"), QUERY_PARAMETERS)
def test_a_query_parameter_given_twice_is_refused(player: Any, path: str, name: str) -> None:
    """FastAPI would read the last of the two where a cache or a proxy may read the first."""
    answer = player.get(f"{path}?{name}=1&{name}=2")
    assert_problem(answer, 422, "invalid_request", name)
    assert answer.json()["detail"] == f"the query parameter {name!r} is given 2 times: give it once"
    assert player.get(f"{path}?{name}=1").status_code == 200


def test_the_query_parameters_given_twice_are_every_one_the_api_reads() -> None:
    declared = {
        (route.path, name)
        for found in pkgutil.iter_modules(routes.__path__)
        for route in importlib.import_module(f"{routes.__name__}.{found.name}").router.routes
        if isinstance(route, JsonBodyRoute)
        for name in query_names(route.dependant)  # the route's and its dependencies'
    }
    assert declared == set(QUERY_PARAMETERS)
