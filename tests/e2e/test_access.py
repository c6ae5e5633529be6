"""Access for everyone: registration errors a player understands, next to their field; Play
Numbers that read out and do not wrap, and a look-up by Play Number in My Games; colours told
apart by their patterns alone (checked under simulated deuteranopia and protanopia).
"""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    PASSWORD,
    PHONE,
    VIEWPORTS,
    Browser,
    api,
    buy,
    check_axe,
    check_heading_focused,
    check_no_overflow,
    deposit,
    finish,
    play_to_end,
    register,
    start_playing,
    text,
    tid,
    wait_idle,
)

pytestmark = pytest.mark.e2e

PLAY_NUMBER = re.compile(r"CC-[0-9A-HJKMNP-TV-Z]{3}-[0-9A-HJKMNP-TV-Z]{3}-[0-9A-HJKMNP-TV-Z]{3}")
RAW_TEXTS = ("String should", "Input should", "date_of_birth", "not an e-mail", "you must", "'")


def field_error(page: Any, form: str, field: str, input_id: str) -> str:
    """The message shown for a field: next to it (just above the input) and tied to it."""
    error = tid(page, f"{form}-{field}-error")
    assert error.is_visible(), f"{form} {field}: no message"
    message = str(error.inner_text()).strip()
    entry = tid(page, input_id)
    assert entry.get_attribute("aria-invalid") == "true"
    described = (entry.get_attribute("aria-describedby") or "").split()
    assert error.get_attribute("id") in described, (described, error.get_attribute("id"))
    above, box = error.bounding_box(), entry.bounding_box()
    assert 0 <= box["y"] - (above["y"] + above["height"]) < 12, (above, box)  # right above it
    assert abs(above["x"] - box["x"]) < 16, (above, box)
    check_sentence(message)
    return message


def check_sentence(message: str) -> None:
    """A sentence for a person: a capital first, a full stop last, no developer's text."""
    assert message[:1].isupper() and message.endswith("."), message
    assert not any(raw in message for raw in RAW_TEXTS), message
    assert not re.search(r"\d{4}-\d{2}-\d{2}", message), message  # no ISO dates


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_registration_errors_are_friendly(start_server: Any, browser: Browser, size: str) -> None:
    server = start_server([])
    page = browser.new_page(server, VIEWPORTS[size])
    page.watch.allow(422, r"^/api/register$")
    page.watch.allow(409, r"^/api/register$")
    page.watch.allow(401, r"^/api/login$")
    page.watch.allow(422, r"^/api/login$")
    page.goto("/")
    wait_idle(page, "account")

    tid(page, "register-submit").click()
    wait_idle(page, "account")
    email = field_error(page, "register", "email", "register-email")
    assert email == "Enter your e-mail address, like name@example.com."
    assert field_error(page, "register", "dob", "register-dob") == (
        "Enter your date of birth, like 1 April 1990."
    )
    assert tid(page, "register-email").evaluate("(e) => e === document.activeElement")
    check_axe(page, "registration errors")
    browser.shot(page, "register-errors")

    address = "friendly@example.com"
    tid(page, "register-email").fill(address)
    tid(page, "register-password").fill("short")
    tid(page, "register-dob").fill("1990-04-01")
    tid(page, "register-submit").click()
    wait_idle(page, "account")
    assert not tid(page, "register-email-error").is_visible()
    message = field_error(page, "register", "password", "register-password")
    assert message == "Choose a password of at least 10 characters."
    tid(page, "register-password").fill(PASSWORD)
    tid(page, "register-dob").fill("2015-01-01")
    tid(page, "register-submit").click()
    wait_idle(page, "account")
    assert field_error(page, "register", "dob", "register-dob") == (
        "You must be 18 or over to play. With a date of birth of 1 January 2015, you are under 18."
    )
    assert not tid(page, "register-password-error").is_visible()
    check_no_overflow(page, "registration errors")

    tid(page, "register-dob").fill("1990-04-01")
    tid(page, "register-submit").click()
    wait_idle(page, "lobby")
    check_heading_focused(page, "Your account")
    tid(page, "logout").click()
    wait_idle(page, "account")
    # Cleared on the next screen: nothing of the last attempt is left.
    assert page.locator(".field-error:visible, .form-error:visible").count() == 0
    assert page.locator("[aria-invalid]").count() == 0

    tid(page, "register-email").fill(address.upper())
    tid(page, "register-password").fill(PASSWORD)
    tid(page, "register-dob").fill("1990-04-01")
    tid(page, "register-submit").click()
    wait_idle(page, "account")
    assert field_error(page, "register", "email", "register-email") == (
        "An account with this e-mail address already exists. Log in instead."
    )

    tid(page, "login-email").fill(address)
    tid(page, "login-password").fill("not the password")
    tid(page, "login-submit").click()
    wait_idle(page, "account")
    form_error = tid(page, "login-form-error")
    assert form_error.is_visible()
    check_sentence(str(form_error.inner_text()))
    assert "not right" in form_error.inner_text()
    described = tid(page, "login-password").get_attribute("aria-describedby") or ""
    assert "login-form-error" in described.split()
    tid(page, "login-password").fill(PASSWORD)
    tid(page, "login-submit").click()
    wait_idle(page, "lobby")
    assert page.locator(".field-error:visible, .form-error:visible").count() == 0


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_play_numbers_and_lookup(start_server: Any, browser: Browser, size: str) -> None:
    """Play Numbers in letters and digits only, on one line (a phone too); My Games finds a
    play by its Play Number, typed loosely, and says so plainly when there is none."""
    server = start_server([None, None])
    page = browser.new_page(server, VIEWPORTS[size])
    page.watch.allow(404, r"^/api/my-games/")
    register(page)
    deposit(page, 1000)
    play_number = buy(page)
    assert PLAY_NUMBER.fullmatch(play_number), play_number
    start_playing(page)
    play_to_end(page)
    number = page.locator("[data-testid=end-play-number] .pn")
    assert number.inner_text() == play_number
    assert one_line(number)
    finish(page, play_number, 500)
    cell = tid(page, f"game-row-{play_number}").locator(".pn")
    assert cell.inner_text() == play_number
    assert one_line(cell)
    check_no_overflow(page, "My Games")
    check_axe(page, "My Games")

    # Look-up: as read out over the phone (lower case, spaces).
    spoken = play_number.lower().replace("-", " ")
    tid(page, "lookup-number").fill(spoken)
    tid(page, "lookup-submit").click()
    wait_idle(page, "recall")
    assert play_number in text(page, "recall-position")
    check_heading_focused(page, f"Recall of play {play_number}")
    tid(page, "recall-back").click()
    wait_idle(page, "mygames")

    wrong = play_number[:-1] + ("0" if play_number[-1] != "0" else "1")  # a typo: caught
    for typed in (wrong, "hello"):
        tid(page, "lookup-number").fill(typed)
        tid(page, "lookup-submit").click()
        wait_idle(page, "mygames")
        error = tid(page, "lookup-error")
        assert error.is_visible()
        message = str(error.inner_text())
        check_sentence(message)
        assert "No play with that Play Number" in message
        assert (
            "lookup-play_number-error"
            in (tid(page, "lookup-number").get_attribute("aria-describedby") or "").split()
        )
    check_axe(page, "My Games look-up error")
    browser.shot(page, "lookup-error")

    # An unfinished play is opened to go on with it.
    tid(page, "mg-play-again").click()
    wait_idle(page, "purchase")
    tid(page, "purchase-confirm").click()
    wait_idle(page, "start")
    second = str(api(page, "/api/plays/quote")["unfinished"]["play_number"])
    tid(page, "nav-my-games").click()
    wait_idle(page, "mygames")
    assert not tid(page, "lookup-error").is_visible()  # cleared on the next screen
    tid(page, "lookup-number").fill(second)
    tid(page, "lookup-submit").click()
    wait_idle(page, "start")


def one_line(locator: Any) -> bool:
    """The element's text is laid out on a single line."""
    lines: int = locator.evaluate(
        """(el) => { const r = document.createRange(); r.selectNodeContents(el);
                     const tops = [...r.getClientRects()].map((x) => Math.round(x.top));
                     return new Set(tops).size; }"""
    )
    return lines == 1


COLOURS = ["orange", "red", "yellow", "green", "blue", "purple"]
# Machado, Oliveira and Fernandes (2009), severity 1.0, for linear RGB.
SIMULATIONS = {
    "deuteranopia": "0.367322 0.860646 -0.227968 0 0 0.280085 0.672501 0.047413 0 0 "
    "-0.011820 0.042940 0.968881 0 0 0 0 0 1 0",
    "protanopia": "0.152286 1.052583 -0.204868 0 0 0.114503 0.786281 0.099216 0 0 "
    "-0.003882 -0.048116 1.051998 0 0 0 0 0 1 0",
}
SWATCHES = """({ colours, size, matrix }) => {
  document.querySelector('#swatches')?.remove();
  document.querySelector('#cvd-filter')?.remove();
  const ns = 'http://www.w3.org/2000/svg';
  const box = document.createElement('div');
  box.id = 'swatches';
  box.style.cssText = `position:fixed;left:0;top:0;z-index:999;display:grid;gap:8px;padding:0;
    grid-template-columns:repeat(3, ${size}px);background:#0b1330;filter:url(#cvd)`;
  const svg = document.createElementNS(ns, 'svg');
  svg.id = 'cvd-filter';
  svg.setAttribute('width', '0'); svg.setAttribute('height', '0');
  svg.style.position = 'absolute';
  svg.innerHTML = `<filter id="cvd" color-interpolation-filters="linearRGB">
    <feColorMatrix type="matrix" values="${matrix}"/></filter>`;
  document.body.append(svg);
  return import('/js/dom.js').then(({ patternLayer }) => {
    for (const colour of colours) {
      const cell = document.createElement('div');
      cell.className = `cell c-${colour}`;
      cell.style.cssText = `width:${size}px;height:${size}px;flex:none;border-width:2px`;
      cell.append(patternLayer(colour));
      box.append(cell);
    }
    document.body.append(box);
  });
}"""


def test_colour_patterns_are_told_apart_without_colour(start_server: Any, browser: Browser) -> None:
    """Each colour's pattern, at a phone's square size (72 px) and seen as a deuteranope or a
    protanope sees it, is plainly visible (luminance contrast) and unlike every other colour's
    pattern, even shifted, mirrored or turned (tests/e2e/patterns.js)."""
    server = start_server([])
    page = browser.new_page(server, PHONE)
    page.goto("/")
    wait_idle(page, "account")
    measure = (Path(__file__).parent / "patterns.js").read_text(encoding="utf-8")
    size, inset = 72, 5
    for name, matrix in SIMULATIONS.items():
        page.evaluate(SWATCHES, {"colours": COLOURS, "size": size, "matrix": matrix})
        png = page.locator("#swatches").screenshot()
        browser.shot(page, f"patterns-{name}")
        found = page.evaluate(
            measure,
            {"png": base64.b64encode(png).decode(), "count": 6, "size": size, "inset": inset},
        )
        for colour, contrast in zip(COLOURS, found["contrast"], strict=True):
            assert contrast >= 3, (name, colour, found["contrast"])  # WCAG 1.4.11: 3:1
        assert all(s > 0.99 for s in found["self"]), found["self"]  # the measure finds itself
        for pair in found["pairs"]:
            a, b = COLOURS[pair["i"]], COLOURS[pair["j"]]
            assert pair["score"] < 0.6, (name, a, b, round(pair["score"], 2))
