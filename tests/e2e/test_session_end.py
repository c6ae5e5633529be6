"""The warning before a login session ends (WCAG 2.2.1 Timing Adjustable), on a server whose
sessions end after 3 minutes without activity: the page's clock (``page.clock``) and the
server's (``server.forward``) are moved together, so nothing waits for real."""

from __future__ import annotations

import re
from typing import Any

from e2e_support import api, check_axe, check_no_overflow, focused, register, text, wait_idle

IDLE_SECONDS = 180
SMALLEST_PHONE = {"width": 320, "height": 568}
LOGGED_OUT = "You are logged out. Log in again to go on."


def start(start_server: Any, **settings: int) -> Any:
    """A server whose sessions end after ``IDLE_SECONDS`` without activity (and ``settings``,
    e.g. ``SESSION_LIFETIME``, in seconds)."""
    env = {"COLOUR_COLLECTOR_SESSION_IDLE_TIMEOUT": str(IDLE_SECONDS)}
    env |= {f"COLOUR_COLLECTOR_{name}": str(value) for name, value in settings.items()}
    return start_server([None], env)


def move_clocks(page: Any, server: Any, seconds: int) -> None:
    """Both clocks ``seconds`` on: the server's first, so what the page asks meanwhile is
    answered as of the new time."""
    server.forward(seconds)
    page.clock.run_for(seconds * 1000)


def warning(page: Any) -> Any:
    return page.get_by_role("alertdialog")


def test_the_player_is_warned_and_stays_logged_in_by_keyboard(
    browser: Any, start_server: Any
) -> None:
    server = start(start_server)
    page = browser.new_page(server, SMALLEST_PHONE)
    page.clock.install()
    register(page)  # logged in: the session ends 180 s from now without activity
    before = focused(page)

    move_clocks(page, server, 50)  # 130 s left: no warning yet
    assert not warning(page).is_visible()
    move_clocks(page, server, 20)  # 110 s left: asked and warned
    dialog = page.get_by_role("alertdialog", name="You will be logged out soon")
    dialog.wait_for()
    description = text(page, "session-warning-text")
    assert re.fullmatch(
        r"You have not used the game for a while\. For your security, you will be logged out"
        r" at \d\d:\d\d unless you stay logged in\.",
        description,
    ), description
    described_by = dialog.get_attribute("aria-describedby")
    assert page.locator(f"#{described_by}").inner_text().strip() == description
    assert focused(page)["testid"] == "session-stay"
    page.keyboard.press("Tab")  # the focus stays in the dialog
    assert focused(page)["testid"] == "session-stay"
    check_no_overflow(page, "the session warning on a 320 px phone")
    check_axe(page, "the session warning")
    browser.shot(page, "session-warning")

    page.keyboard.press("Enter")  # Stay logged in: renewed 70 s after login, now ends at 250 s
    dialog.wait_for(state="hidden")
    wait_idle(page, "lobby")
    assert focused(page) == before
    server.forward(120)  # past the session's old end (180 s)
    assert api(page, "/api/me")["email"]

    # No answer this time: warned again 2 minutes before the new end, then logged out as any
    # request after the end would be.
    page.clock.run_for(120_000)
    dialog.wait_for()
    page.watch.allow(401, r"^/api/session$")
    move_clocks(page, server, 61)
    wait_idle(page, "account")
    assert not warning(page).is_visible()
    assert text(page, "alert") == LOGGED_OUT


def test_a_renewal_elsewhere_postpones_the_warning_and_the_fixed_end_is_only_told(
    browser: Any, start_server: Any
) -> None:
    server = start(start_server, SESSION_LIFETIME=330)
    page = browser.new_page(server)
    page.clock.install()
    register(page)

    # Another tab reports activity 50 s after login: the session now ends at 230 s. When this
    # page's warning is due (60 s), it asks first, and waits for the new end.
    move_clocks(page, server, 50)
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "cc_csrf")
    renewed = page.request.post("/api/session/activity", data={}, headers={"X-CSRF-Token": csrf})
    assert renewed.ok and renewed.json()["expires_in_seconds"] > 170
    with page.expect_response(re.compile(r"/api/session$")):
        move_clocks(page, server, 20)
    wait_idle(page, "lobby")
    assert not warning(page).is_visible()

    move_clocks(page, server, 90)  # at 160 s: 70 s left, warned
    page.get_by_role("alertdialog", name="You will be logged out soon").wait_for()
    # A click anywhere is activity: the session is renewed up to its fixed end (330 s), and the
    # warning goes.
    page.mouse.click(5, 5)
    warning(page).wait_for(state="hidden")
    wait_idle(page, "lobby")

    move_clocks(page, server, 60)  # at 220 s: 110 s left, which nothing can extend
    dialog = page.get_by_role("alertdialog", name="Your session is ending")
    dialog.wait_for()
    assert re.fullmatch(
        r"For your security, a session cannot last longer: yours ends at \d\d:\d\d\. You will"
        r" need to log in again then\.",
        text(page, "session-warning-text"),
    )
    assert not page.get_by_role("button", name="Stay logged in").is_visible()
    assert focused(page)["testid"] == "session-ok"
    check_axe(page, "the warning of the session's fixed end")
    page.keyboard.press("Enter")  # OK
    dialog.wait_for(state="hidden")
    assert focused(page)["tag"] == "H1"

    page.watch.allow(401, r"^/api/session$")
    move_clocks(page, server, 111)
    wait_idle(page, "account")
    assert text(page, "alert") == LOGGED_OUT
