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
    act,
    api,
    buy,
    check_axe,
    check_heading_focused,
    check_no_overflow,
    confirm_by_mail,
    deposit,
    finish,
    open_mailed_link,
    overlap,
    phase,
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


def description(entry: Any) -> str:
    """What a screen reader reads after a field's name: its ``aria-describedby`` texts."""
    text_of: str = entry.evaluate(
        """(e) => (e.getAttribute('aria-describedby') || '').split(/\\s+/).filter(Boolean)
                 .map((id) => document.getElementById(id).textContent.trim()).join(' ')"""
    )
    return text_of


def field_error(entry: Any) -> str:
    """The message for a field: tied to it (its description, ``aria-invalid``) and shown right
    above it."""
    assert entry.get_attribute("aria-invalid") == "true"
    ids = (entry.get_attribute("aria-describedby") or "").split()
    errors = [i for i in ids if i.endswith("-error")]
    assert len(errors) == 1, ids
    shown = entry.page.locator(f"#{errors[0]}")
    assert shown.is_visible()
    message = str(shown.inner_text()).strip()
    assert message in description(entry)
    above, box = shown.bounding_box(), entry.bounding_box()
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
    """Each problem the server finds is a sentence in the player's words, right above its field
    and read with it; dates in UK form; nothing is left on the next screen."""
    server = start_server([])
    page = browser.new_page(server, VIEWPORTS[size])
    page.watch.allow(422, r"^/api/register$")
    page.watch.allow(403, r"^/api/login$")
    page.watch.allow(401, r"^/api/login$")
    page.goto("/")
    wait_idle(page, "account")
    register = page.get_by_role("form", name="Register")
    email = register.get_by_label("E-mail")
    password = register.get_by_label("Password")
    birth = register.get_by_label("Date of birth")
    send = register.get_by_role("button", name="Register")

    send.click()
    wait_idle(page, "account")
    assert field_error(email) == "Enter your e-mail address, like name@example.com."
    assert field_error(birth) == "Enter your date of birth, like 1 April 1990."
    assert email.evaluate("(e) => e === document.activeElement")  # the first field in error
    check_axe(page, "registration errors")
    browser.shot(page, "register-errors")

    address = "friendly@example.com"
    email.fill(address)
    password.fill("short")
    birth.fill("1990-04-01")
    send.click()
    wait_idle(page, "account")
    assert email.get_attribute("aria-invalid") is None  # the old message went
    assert field_error(password) == "Choose a password of at least 10 characters."
    assert "At least 10 characters." in description(password)  # the hint is still read
    password.fill(PASSWORD)
    birth.fill("2015-01-01")
    send.click()
    wait_idle(page, "account")
    assert field_error(birth) == (
        "You must be 18 or over to play. With a date of birth of 1 January 2015, you are under 18."
    )
    assert password.get_attribute("aria-invalid") is None
    check_no_overflow(page, "registration errors")

    birth.fill("1990-04-01")
    send.click()
    wait_idle(page, "check-email")
    check_heading_focused(page, "Check your e-mail")
    assert text(page, "check-email-address") == address
    check_axe(page, "check your e-mail")
    browser.shot(page, "check-email")
    # Not confirmed yet: the right password is told so, with the e-mail offered again.
    page.get_by_role("button", name="Back to log in").click()
    wait_idle(page, "account")
    login = page.get_by_role("form", name="Log in")
    login.get_by_label("E-mail").fill(address)
    login.get_by_label("Password").fill(PASSWORD)
    login.get_by_role("button", name="Log in").click()
    wait_idle(page, "account")
    said = description(login.get_by_label("Password"))
    assert "Your account is not confirmed yet." in said
    check_axe(page, "login of an unconfirmed account")
    login.get_by_role("button", name="Send the confirmation e-mail again").click()
    wait_idle(page, "check-email")
    page.get_by_role("button", name="Send the e-mail again").click()
    wait_idle(page, "check-email")
    page.get_by_role("status").filter(has_text="sent the e-mail to").wait_for()
    confirm_by_mail(page, address)  # the newest link
    wait_idle(page, "lobby")
    check_heading_focused(page, "Your account")
    page.get_by_role("button", name="Log out").click()
    wait_idle(page, "account")
    # Cleared on the next screen: nothing of the last attempt is left.
    assert page.locator(".field-error:visible, .form-error:visible").count() == 0
    assert page.locator("[aria-invalid]").count() == 0

    # Registering a taken address looks the same as a new one: the owner gets a mail.
    email.fill(address.upper())
    password.fill(PASSWORD)
    birth.fill("1990-04-01")
    send.click()
    wait_idle(page, "check-email")
    page.get_by_role("button", name="Back to log in").click()
    wait_idle(page, "account")

    login.get_by_label("E-mail").fill(address)
    login.get_by_label("Password").fill("not the password")
    login.get_by_role("button", name="Log in").click()
    wait_idle(page, "account")
    said = description(login.get_by_label("Password"))
    check_sentence(said)
    assert "The e-mail address or password is not right." in said
    assert login.get_by_role("paragraph").filter(has_text="not right").is_visible()
    login.get_by_label("Password").fill(PASSWORD)
    login.get_by_role("button", name="Log in").click()
    wait_idle(page, "lobby")
    assert page.locator(".field-error:visible, .form-error:visible").count() == 0


def test_the_mailed_link_asks_for_the_password_registered_with(
    start_server: Any, browser: Browser
) -> None:
    """The link proves the mailbox and the password that the registration is the player's, so
    someone who registered the address with a password of their own cannot have its owner
    confirm their account: a wrong password is told next to its field, the right one logs in,
    and the link then only says the account is confirmed."""
    server = start_server([])
    page = browser.new_page(server, PHONE)
    page.watch.allow(401, r"^/api/register/confirm$")
    page.watch.allow(409, r"^/api/register/confirm$")
    page.goto("/")
    wait_idle(page, "account")
    address = "confirms@example.com"
    signing_up = page.get_by_role("form", name="Register")
    signing_up.get_by_label("E-mail").fill(address)
    signing_up.get_by_label("Password").fill(PASSWORD)
    signing_up.get_by_label("Date of birth").fill("1990-04-01")
    signing_up.get_by_role("button", name="Register").click()
    wait_idle(page, "check-email")

    open_mailed_link(page, address)
    assert "#/confirm/" not in page.url  # the token is not kept in the address
    check_heading_focused(page, "Confirm your account")
    form = page.get_by_role("form", name="Confirm your account")
    entry = form.get_by_label("Password")
    assert "the password you chose when you registered" in description(entry)
    check_axe(page, "confirm your account")
    browser.shot(page, "confirm")
    entry.fill("someone else's password")
    form.get_by_role("button", name="Confirm my account").click()
    wait_idle(page, "confirm")
    assert field_error(entry) == (
        "This is not the password you registered with. If you registered more than once, enter"
        " the one you chose last."
    )
    entry.fill(PASSWORD)
    form.get_by_role("button", name="Confirm my account").click()
    wait_idle(page, "lobby")
    assert address in text(page, "lobby-email")

    confirm_by_mail(page, address)  # the same link again
    wait_idle(page, "confirm")
    said = str(tid(page, "confirm-form-error").inner_text())
    assert said == "Your account is already confirmed. Log in to play."
    check_sentence(said)


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
    page.get_by_label("Find a play by its Play Number").fill(spoken)
    page.get_by_role("button", name="Find").click()
    wait_idle(page, "recall")
    assert play_number in text(page, "recall-position")
    check_heading_focused(page, f"Recall of play {play_number}")
    tid(page, "recall-back").click()
    wait_idle(page, "mygames")

    lookup = page.get_by_label("Find a play by its Play Number")
    bare = play_number.replace("-", "")  # typed with no separators, in either case
    for typed in (bare, bare.lower()):
        lookup.fill(typed)
        page.get_by_role("button", name="Find").click()
        wait_idle(page, "recall")
        assert play_number in text(page, "recall-position"), typed
        tid(page, "recall-back").click()
        wait_idle(page, "mygames")

    wrong = play_number[:-1] + ("0" if play_number[-1] != "0" else "1")  # a typo: caught
    told = {  # a typo, and text that cannot be a Play Number (told without asking the server)
        wrong: "No play with that Play Number is in your account.",
        "hello": "That is not a Play Number. It looks like CC",
    }
    for typed, start in told.items():
        lookup.fill(typed)
        page.get_by_role("button", name="Find").click()
        wait_idle(page, "mygames")
        message = field_error(lookup)
        assert message.startswith(start), message
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
    assert lookup.get_attribute("aria-invalid") is None  # cleared on the next screen
    assert not tid(page, "lookup-error").is_visible()
    page.get_by_label("Find a play by its Play Number").fill(second)
    page.get_by_role("button", name="Find").click()
    wait_idle(page, "start")


def open_address(page: Any, address: str) -> None:
    """Open the game at ``address`` (``#/...``) as a fresh load: a link followed, a bookmark,
    an address typed or pasted."""
    origin = "/".join(page.url.split("/")[:3])
    page.goto(origin + "/healthz")  # leave the page first, so that the address is a new load
    page.goto(origin + "/" + address)
    wait_idle(page)


def test_an_address_in_my_games_that_finds_nothing(start_server: Any, browser: Browser) -> None:
    """An address of My Games that finds nothing, opened as a link or bookmark: another
    player's Play Number, one that is not a Play Number (a broken escape in it too), or a page
    past the last. My Games shows, on the last page there is, with the number in the look-up
    and told there; never a blank screen without a heading, nor an error of the page."""
    server = start_server([None])
    owner = browser.new_page(server, PHONE)
    register(owner)
    deposit(owner, 1000)
    theirs = buy(owner)
    start_playing(owner)
    play_to_end(owner)
    finish(owner, theirs, 500)

    page = browser.new_page(server, PHONE)
    page.watch.allow(404, r"^/api/my-games/")
    page.watch.allow(404, r"^/favicon\.ico$")
    register(page)
    lookup = page.get_by_label("Find a play by its Play Number")
    for address, typed in (
        (f"#/my-games/{theirs}", theirs),  # the other player's play: not theirs to see
        ("#/my-games/CC-AAA-AAA-AAA", "CC-AAA-AAA-AAA"),
        ("#/my-games/%E0%A4%A", "%E0%A4%A"),  # not an escape: the text itself
    ):
        open_address(page, address)
        assert phase(page) == "mygames", address
        assert page.url.endswith("#/my-games"), page.url
        assert lookup.input_value() == typed
        assert field_error(lookup).startswith(
            "No play with that Play Number is in your account."
        ), address
        assert api(page, "/api/my-games")["total"] == 0
        check_no_overflow(page, f"My Games after {address}")
        check_axe(page, f"My Games after {address}")
    browser.shot(page, "not-found-by-address")

    # Past the last page (by a bookmark, or typed): the last page there is.
    for address in ("#/my-games?page=7", "#/my-games?page=5000000"):
        open_address(owner, address)
        assert phase(owner) == "mygames", address
        assert owner.url.endswith("#/my-games"), owner.url
        assert tid(owner, f"game-row-{theirs}").is_visible(), address
        assert text(owner, "mg-page") == "Page 1 of 1"
    owner.evaluate("location.hash = '#/my-games?page=3'")  # the same within the page (popstate)
    wait_idle(owner, "mygames")
    owner.wait_for_function("location.hash === '#/my-games'")
    assert tid(owner, f"game-row-{theirs}").is_visible()


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


# A laptop's window at 200% zoom (1280 x 800), at 175% (1366 x 768), at 150% (1280 x 800).
ZOOMED = {"640x400": (640, 400), "780x439": (780, 439), "853x533": (853, 533)}
UNCOVERED = """(e) => { e.scrollIntoView({block: 'center'}); const b = e.getBoundingClientRect();
  const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
  return b.width > 0 && (hit === e || e.contains(hit)); }"""


@pytest.mark.parametrize("size", list(ZOOMED))
def test_the_game_reflows_when_zoomed(start_server: Any, browser: Browser, size: str) -> None:
    """A zoomed laptop window (WCAG 1.4.4, 1.4.10): the Play Grid's squares stay bigger than
    their letters (the screen scrolls, never sideways) and the Bonus Game's heading,
    instruction and ODD / EVEN are not covered by its prizes."""
    width, height = ZOOMED[size]
    server = start_server(["£14 (£6 + £8)"])
    page = browser.new_page(server, {"width": width, "height": height})
    register(page)
    deposit(page, 1000)
    buy(page)
    start_playing(page)
    seen = set()
    for _ in range(60):
        wait_idle(page)
        now = phase(page)
        if now == "over":
            break
        if now == "main":
            cell = tid(page, "cell-0").bounding_box()
            letter = tid(page, "cell-0").locator(".letter").bounding_box()
            assert cell["width"] >= 40, (size, cell)
            assert letter["width"] < cell["width"] / 2, (size, cell, letter)
        if now == "bonus" and now not in seen:
            for name in ("bonus-heading", "pick-odd", "pick-even"):
                assert tid(page, name).evaluate(UNCOVERED), (size, name)
            assert page.locator(".bp-instr").evaluate(UNCOVERED), size
        seen.add(now)
        widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], (size, widths)
        act(page)
    assert "bonus" in seen
    tid(page, "end-screen").wait_for(state="visible")
    wait_idle(page)
    # The end's heading and FINISH are in the window as the play ends, without scrolling.
    for name in ("end-heading", "finish"):
        found = tid(page, name).bounding_box()
        assert found is not None and found["y"] >= 0, (size, name, found)
        assert found["y"] + found["height"] <= height, (size, name, found)
    assert tid(page, "finish").evaluate(UNCOVERED)
    browser.shot(page, f"zoomed-{size}-end")


def test_a_payment_keeps_the_focus_and_a_refusal_is_read(
    start_server: Any, browser: Browser
) -> None:
    """Keyboard only: the focus is not lost to the page when Add test money has gone through
    (its button, disabled while it ran, has it back); a deposit refused over a limit is read
    with the amount, which takes the focus, instead of silently, the focus on the page."""
    server = start_server([])
    page = browser.new_page(server, PHONE)
    page.watch.allow(409, r"^/api/wallet/deposits$")
    register(page)
    tid(page, "deposit-submit").focus()
    page.keyboard.press("Enter")
    page.get_by_role("status").filter(has_text="Test money added").wait_for()
    wait_idle(page, "lobby")
    assert tid(page, "deposit-submit").evaluate("(e) => e === document.activeElement")

    tid(page, "lobby-money").click()
    wait_idle(page, "money")
    tid(page, "limit-question-set").click()
    wait_idle(page, "protection")
    tid(page, "limit-daily").fill("10")
    tid(page, "limits-submit").click()
    wait_idle(page, "protection")
    tid(page, "protection-back").click()
    wait_idle(page, "lobby")
    tid(page, "lobby-money").click()
    wait_idle(page, "money")
    tid(page, "payin-amount").select_option("2000")
    tid(page, "payin-submit").focus()
    page.keyboard.press("Enter")
    tid(page, "payin-error").wait_for(state="visible")
    wait_idle(page, "money")
    amount = tid(page, "payin-amount")
    assert amount.evaluate("(e) => e === document.activeElement")
    assert amount.get_attribute("aria-invalid") == "true"
    assert "would go over your daily deposit limit of £10.00" in description(amount)
    check_axe(page, "a refused deposit")


def covers(page: Any, a: str, b: str) -> bool:
    """Whether the elements of test ids ``a`` and ``b`` overlap on the window."""
    return overlap(tid(page, a).bounding_box(), tid(page, b).bounding_box())


def test_an_alert_stays_until_put_away_and_keeps_clear_of_the_focus(
    start_server: Any, browser: Browser
) -> None:
    """A problem said in the alert stays until the player puts it away, however long they take
    to read it (WCAG 2.2.1), with a button a keyboard reaches that gives the focus back; on a
    phone, where it lies over the top bar, it moves to the window's bottom when the focus goes
    to a link it covers (2.4.11)."""
    server = start_server([None])
    page = browser.new_page(server, PHONE)
    page.watch.allow_failure(r"^/api/plays/[^/]+/steps$")
    register(page)
    deposit(page, 500)
    buy(page)
    start_playing(page)
    page.clock.install()
    page.route(re.compile(r"/api/plays/[^/]+/steps$"), lambda route: route.abort(), times=3)
    tid(page, "spin").click()
    wait_idle(page, "main")
    alert = tid(page, "alert")
    assert "could not reach the server" in text(page, "alert")
    page.clock.run_for(60_000)
    assert alert.is_visible()

    assert covers(page, "alert-box", "nav-my-games")
    tid(page, "nav-my-games").focus()
    assert alert.is_visible()
    assert not covers(page, "alert-box", "nav-my-games")
    check_axe(page, "an alert")

    tid(page, "spin").focus()
    tid(page, "alert-close").focus()
    page.keyboard.press("Enter")
    assert not alert.is_visible()
    assert tid(page, "spin").evaluate("(e) => e === document.activeElement")
