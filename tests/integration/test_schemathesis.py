"""Property-based run over /openapi.json against the ASGI app: no 5xx, responses conform.

Every operation gets its own test item; the list is checked against the schema so a new
endpoint cannot be left out silently.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

OPERATIONS = [
    ("GET", "/healthz"),
    ("GET", "/api/csrf"),
    ("POST", "/api/register"),
    ("POST", "/api/login"),
    ("POST", "/api/logout"),
    ("GET", "/api/me"),
    ("GET", "/api/session"),
    ("GET", "/api/wallet"),
    ("GET", "/api/wallet/movements/{movement_id}"),
    ("POST", "/api/wallet/test-deposit"),
    ("GET", "/api/game"),
    ("GET", "/api/plays/quote"),
    ("POST", "/api/plays"),
    ("GET", "/api/plays/current"),
    ("GET", "/api/plays/{play_number}"),
    ("POST", "/api/plays/{play_number}/steps"),
    ("POST", "/api/plays/{play_number}/finish"),
    ("GET", "/api/my-games"),
    ("GET", "/api/my-games/{play_number}"),
    ("POST", "/api/try"),
    ("GET", "/api/try/{try_id}"),
    ("POST", "/api/try/{try_id}/steps"),
    ("POST", "/api/try/{try_id}/finish"),
    ("GET", "/api/pools/current"),
    ("GET", "/api/pools"),
    ("GET", "/api/pools/{pool_id}"),
    ("GET", "/api/pools/{pool_id}/plays/{position}"),
]


@pytest.fixture
def backend() -> str:
    """The fuzzing is about the HTTP layer: SQLite is enough."""
    return "sqlite"


@pytest.fixture
def api_schema(app: Any) -> Any:
    return schemathesis.openapi.from_asgi("/openapi.json", app)


@pytest.fixture
def logged_in(app: Any, new_client: Any) -> dict[str, Any]:
    """Cookies and headers of a logged-in player with some money, for the generated calls."""
    client = new_client(app)
    client.sign_up("fuzz@example.com")
    client.post("/api/wallet/test-deposit", json={"amount_pence": 1000})
    return {
        "cookies": {
            "cc_session": client.cookies["cc_session"],
            "cc_csrf": client.cookies["cc_csrf"],
        },
        "headers": {"X-CSRF-Token": client.headers["X-CSRF-Token"]},
    }


def test_every_operation_is_fuzzed(api_schema: Any) -> None:
    found = {
        (result.ok().method.upper(), result.ok().path) for result in api_schema.get_all_operations()
    }
    assert found == set(OPERATIONS)


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_operation_conforms(
    api_schema: Any, logged_in: dict[str, Any], method: str, path: str
) -> None:
    operation = api_schema[path][method]
    strategy = st.one_of(
        operation.as_strategy(generation_mode=schemathesis.GenerationMode.POSITIVE),
        operation.as_strategy(generation_mode=schemathesis.GenerationMode.NEGATIVE),
    )
    cookies = dict(logged_in["cookies"])
    session = cookies.pop("cc_session")

    @given(case=strategy)
    @settings(
        max_examples=40,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        # The session cookie is the API's security scheme: where the case carries one, it is
        # the logged-in player's; a negative case without one stays without (and must get 401).
        # Logout does not declare it (logging out needs no session) and keeps the session.
        if case.cookies and "cc_session" in case.cookies:
            case.cookies["cc_session"] = session
        case.call_and_validate(
            headers=logged_in["headers"],
            cookies=cookies,
            # Schema-valid data may still be refused on purpose (under 18, weak password,
            # wrong credentials, throttling): that is not a conformance failure.
            excluded_checks=[schemathesis.checks.positive_data_acceptance],
        )

    run()
