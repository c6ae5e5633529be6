"""The pages run under their own Content-Security-Policy: no inline script or style is needed.

The page here enforces the policy (the other tests' pages do not: Playwright's condition waits
are evaluated strings), so it is driven with Playwright's own locator waits only; the browser
fixture fails the test on any console error, which is where a refused inline script or style
would show.
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import OPERATOR_PASSWORD, make_operator, tid
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_the_page_runs_under_its_content_security_policy(browser: Any, start_server: Any) -> None:
    server = start_server(["£10 (£10 Prize Game)"])
    page = browser.new_page(server, enforce_csp=True)
    answer = page.goto("/")
    assert answer is not None and "script-src 'self'" in answer.headers["content-security-policy"]
    body = page.locator("body")
    expect(body).to_have_attribute("data-phase", "account")
    tid(page, "try-start").click()
    expect(body).to_have_attribute("data-phase", "start")
    tid(page, "play").click()
    for _ in range(300):  # SPIN and pick until the end: the wheel, grids and panels all drawn
        expect(body).to_have_attribute("data-busy", "false")
        phase = body.get_attribute("data-phase")
        if phase == "over":
            break
        tid(page, "pick-odd" if phase == "bonus" else "spin").click()
    expect(tid(page, "end-screen")).to_be_visible()
    expect(tid(page, "end-amount")).to_have_text("£10.00")


def test_the_console_and_its_tables_run_under_the_policy(browser: Any, start_server: Any) -> None:
    """The operator's console (ours) and its read-only tables (sqladmin's templates)."""
    server = start_server([])
    make_operator(server, "ada", "manager")
    page = browser.new_page(server, enforce_csp=True)
    page.watch.allow(401, r"^/api/operator/me$")
    answer = page.goto("/operator/")
    assert answer is not None and "style-src 'self'" in answer.headers["content-security-policy"]
    body = page.locator("body")
    expect(body).to_have_attribute("data-view", "login")
    tid(page, "console-name").fill("ada")
    tid(page, "console-password").fill(OPERATOR_PASSWORD)
    tid(page, "console-login-submit").click()
    expect(body).to_have_attribute("data-view", "dashboard")
    for table in ("accounts", "plays", "ledger", "audit"):
        answer = page.goto(f"/operator/tables/{table}/list")
        assert answer is not None and answer.status == 200, table
        expect(page.locator("table").first).to_be_visible()
