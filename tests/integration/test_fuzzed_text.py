"""Fuzzed text in every text field of the API never gets a 5xx, on both databases, and nothing
is stored for a refused request."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from colour_collector.store.tables import accounts

# Any text at all: control and format characters, NULs, lone surrogates (sent as JSON escapes).
texts = st.text(st.characters(codec=None, exclude_categories=()), max_size=60)
emails = st.one_of(texts, st.builds(lambda a, b: f"{a}@{b}.com", texts, texts))


def count_accounts(client: Any) -> int:
    with client.app.state.database.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(accounts)).scalar_one())


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(email=emails, password=texts, date_of_birth=texts)
def test_register_and_login_never_fail_with_a_5xx(
    client: Any, email: str, password: str, date_of_birth: str
) -> None:
    before = count_accounts(client)
    body = {"email": email, "password": password, "date_of_birth": date_of_birth}
    headers = {"content-type": "application/json"}
    registered = client.post("/api/register", content=json.dumps(body), headers=headers)
    assert registered.status_code in {201, 409, 422}, registered.text
    login = json.dumps({"email": email, "password": password})
    logged_in = client.post("/api/login", content=login, headers=headers)
    assert logged_in.status_code in {200, 401, 422, 429}, logged_in.text
    if registered.status_code != 201:
        assert count_accounts(client) == before
