"""Property-based run over /openapi.json against the ASGI app, logged in, on both databases: no
5xx, and every response conforms to the description (status, headers, body schema).

Every operation gets its own test item with ``EXAMPLES`` generated requests (valid and invalid
ones) on each database: at least 5,000 a database in all (``CASES_PER_DATABASE``, issue 17). The
list of operations is checked against the schema so a new endpoint cannot be left out silently.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from colour_collector.server.app import create_app
from support import make_settings

OPERATIONS = [
    ("GET", "/healthz"),
    ("GET", "/api/csrf"),
    ("POST", "/api/register"),
    ("POST", "/api/register/confirm"),
    ("POST", "/api/register/resend"),
    ("POST", "/api/password/forgot"),
    ("POST", "/api/password/reset"),
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
    ("GET", "/api/game/information"),
    ("POST", "/api/wallet/deposits"),
    ("POST", "/api/wallet/withdrawals"),
    ("GET", "/api/protection"),
    ("POST", "/api/protection/deposit-limits"),
    ("POST", "/api/protection/deposit-limits/decline"),
    ("POST", "/api/protection/deposit-limits/{period}/confirm"),
    ("POST", "/api/protection/time-out"),
    ("POST", "/api/protection/self-exclusion"),
    ("POST", "/api/protection/self-exclusion/return"),
    ("GET", "/api/protection/reality-check"),
    ("POST", "/api/protection/reality-check/continue"),
    ("POST", "/api/protection/reality-check/interval"),
    ("POST", "/api/session/activity"),
    ("POST", "/api/operator/login"),
    ("POST", "/api/operator/logout"),
    ("GET", "/api/operator/me"),
    ("GET", "/api/operator/game"),
    ("POST", "/api/operator/sales"),
    ("POST", "/api/operator/players/lookup"),
    ("POST", "/api/operator/audit/verify"),
    ("GET", "/api/pools/current"),
    ("GET", "/api/pools"),
    ("GET", "/api/pools/{pool_id}"),
    ("GET", "/api/pools/{pool_id}/plays/{position}"),
]


CASES_PER_DATABASE = 5000
"""Issue 17's floor: generated requests on each database, over all operations."""
EXAMPLES = max(100, math.ceil(CASES_PER_DATABASE / len(OPERATIONS)))
"""Requests generated for each operation on each database: the floor shared out (100 for 51
operations), and never fewer than Hypothesis's own default of 100."""


@pytest.fixture(scope="module")
def openapi_document(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """``/openapi.json`` as the app serves it. It is the same for every app these tests make,
    and FastAPI takes about a third of a second to build it, so it is fetched once a process."""
    application = create_app(
        make_settings(f"sqlite:///{sqlite_template}", tmp_path_factory.mktemp("openapi"))
    )
    try:
        response = TestClient(application).get("/openapi.json")
    finally:
        application.state.database.dispose()
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture
def api_schema(app: Any, openapi_document: Any) -> Any:
    """The document, with generated calls going to this test's app (on its own database)."""
    schema = schemathesis.openapi.from_dict(copy.deepcopy(openapi_document))
    schema.app = app
    schema.location = "/openapi.json"
    return schema


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
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        # Where the case carries a session cookie, it is the logged-in player's (a case without
        # one must get 401); logout ends no session the other cases use (its cookie is theirs
        # only when the case sends one: then the session ends, and later cases get 401).
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
