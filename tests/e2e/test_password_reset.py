"""A forgotten password, as a player meets it: "Forgot your password?" on the log-in form, a link
by e-mail, a new password chosen at the link (which logs in and ends every other login), and
the plain words for what can go wrong on the way."""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import (
    PASSWORD,
    Browser,
    check_screen,
    focused,
    mailed_link,
    register,
    text,
    tid,
    wait_idle,
)
from test_access import field_error

pytestmark = pytest.mark.e2e

NEW_PASSWORD = "a brand new pass phrase"


def log_in(page: Any, email: str, password: str) -> None:
    tid(page, "login-email").fill(email)
    tid(page, "login-password").fill(password)
    tid(page, "login-submit").click()


def test_a_forgotten_password_is_reset_by_a_mailed_link(
    start_server: Any, browser: Browser
) -> None:
    server = start_server([])
    page = browser.new_page(server)
    page.watch.allow(422, r"^/api/password/(forgot|reset)$")
    page.watch.allow(400, r"^/api/password/reset$")
    page.watch.allow(401, r"^/api/login$")
    email = register(page)
    elsewhere = browser.new_page(server)  # the same player logged in on another device
    elsewhere.watch.allow(401, r"^/api/")
    elsewhere.goto("/")
    wait_idle(elsewhere, "account")
    log_in(elsewhere, email, PASSWORD)
    wait_idle(elsewhere, "lobby")
    tid(page, "logout").click()
    wait_idle(page, "account")

    # The log-in form leads to the request, with the address it had.
    tid(page, "login-email").fill(email)
    tid(page, "login-forgot").click()
    wait_idle(page, "forgot")
    check_screen(page, browser, "forgot", "Forgot your password?")
    assert tid(page, "forgot-email").input_value() == email
    tid(page, "forgot-email").fill("not an address")
    tid(page, "forgot-submit").click()
    wait_idle(page, "forgot")
    assert field_error(tid(page, "forgot-email")).startswith("Enter your e-mail address")
    # An address without an account gets the same answer as one with: no mail, no clue.
    for address in ("nobody-here@example.com", email):
        tid(page, "forgot-email").fill(address)
        tid(page, "forgot-submit").click()
        wait_idle(page, "forgot")
        page.wait_for_function(
            "document.querySelector('[data-testid=forgot-status]').textContent !== ''"
        )
        assert text(page, "forgot-status").startswith(
            f"If {address} has an account, we have e-mailed it a link to choose a new password"
        )
        assert "if the account was never confirmed, how to register again" in text(
            page, "forgot-status"
        )
    with pytest.raises(AssertionError, match="no mail"):
        mailed_link(page, "nobody-here@example.com", "reset")
    link = mailed_link(page, email, "reset")

    # The link: the address drops the token; a short password is refused in words.
    page.goto(server.base_url + "/healthz")
    page.goto(link)
    wait_idle(page, "reset")
    assert page.url.endswith("#/reset")
    check_screen(page, browser, "reset", "Choose a new password")
    tid(page, "reset-password").fill("short")
    tid(page, "reset-submit").click()
    wait_idle(page, "reset")
    message = field_error(tid(page, "reset-password"))
    assert message == "Choose a password of at least 10 characters."
    tid(page, "reset-password").fill(NEW_PASSWORD)
    tid(page, "reset-submit").click()
    wait_idle(page, "lobby")
    assert text(page, "lobby-email") == f"Logged in as {email}"

    # Every other login has ended; the old password no longer works, the new one does.
    elsewhere.reload()
    wait_idle(elsewhere, "account")
    assert text(elsewhere, "alert") == "You are logged out. Log in again to go on."
    log_in(elsewhere, email, PASSWORD)
    wait_idle(elsewhere, "account")
    assert "not right" in text(elsewhere, "login-form-error")
    log_in(elsewhere, email, NEW_PASSWORD)
    wait_idle(elsewhere, "lobby")

    # The link works once.
    page.goto(server.base_url + "/healthz")
    page.goto(link)
    wait_idle(page, "reset")
    tid(page, "reset-password").fill("yet another pass phrase")
    tid(page, "reset-submit").click()
    wait_idle(page, "reset")
    assert text(page, "reset-form-error") == (
        "This link has expired or has been used already. Ask for a new one."
    )
    # Only a new link is offered; the password typed was not at fault.
    assert tid(page, "reset-password").is_hidden() and tid(page, "reset-submit").is_hidden()
    assert tid(page, "reset-password").get_attribute("aria-invalid") is None
    assert focused(page)["testid"] == "reset-forgot"
    tid(page, "reset-forgot").click()  # logged in (by the reset): no link to ask for
    wait_idle(page, "lobby")
