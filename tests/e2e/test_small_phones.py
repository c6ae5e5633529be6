"""The smallest phone, 320 x 568 (the iPhone SE, first generation; a 640px screen at 200% zoom),
and the Bonus Game on the other short phones, measured on screen in Chromium.

- A whole play at 320 x 568, one with a Prize Game and one with a Bonus Game. In every step of
  the live game (the Main Game, each Bonus Game pick, each Prize Game spin) the game fits the
  window: SPIN and the grid on screen with no scrolling, the page neither wider than the phone nor
  zoomed out, no text spilling out of its box (the Prize Table's £1,000,000.00 inside its row).
  The Main Game's and the Bonus Game's Prize Table keeps amounts of 14px and boxes of 12px; the
  Play Grid's squares stay recognisable (32px or more, their colour letters and ticks inside
  them, their symbols 16px or more); the Bonus Game's number, ODD, EVEN and prizes lie whole
  inside its panel and the window; the Prize Game's amounts (WIN x2 among them) lie inside their
  squares, clear of the letter and the tick, in 9px or more. Then the end screen, My Games, the
  recall step by step and the lobby's other screens: nothing spills, nothing zooms out.
- The Bonus Game on 360 x 640 and 375 x 667, where its panel was taller than the room under the
  Prize Table and the page scrolled, ODD and EVEN below the window: the same fit as above.
- The Main Game on 360 x 640 and 375 x 667, logged in: the Play Grid's squares stay 38px or
  more after every spin, also when the last spin's line runs over two lines or more (they were
  29px once it took two).
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import (
    act,
    api,
    buy,
    check_fits,
    check_no_overflow,
    deposit,
    finish,
    phase,
    play_until,
    register,
    start_playing,
    tid,
    wait_idle,
)
from test_long_amounts import (
    FIT_JS,
    SMALL_PHONES,
    check_fit,
    check_page_width,
    check_prize_squares,
)
from test_screens import check_table_legible

pytestmark = pytest.mark.e2e

SE = {"width": 320, "height": 568}
OUTCOMES = {"prize-game": "£5,000 (£5,000 Prize Game)", "bonus-game": "£14 (£6 + £8)"}
SMALLEST_SQUARE = 32  # px, a Play Grid square (4 to 21px before, with the last spin's line)
SMALLEST_SYMBOL = 16  # px
SMALL_PHONE_SQUARE = 38  # px, a Play Grid square on 360 x 640 and up (docs/client.md)
LONG_LINE = (  # what a spin that collected nearly every square says: five lines at 360px
    "PURPLE: collected 2 Circles, 2 Squares, 2 Triangles, 2 Diamonds, 2 Pentagons, 2 Hexagons,"
    " 2 Stars, 2 Bonus symbols, 2 Prize Game symbols"
)

# The Play Grid's squares: how many, the narrowest square and the narrowest symbol (svg.item).
GRID_JS = """() => {
  const cells = [...document.querySelectorAll('[data-testid=grid] .cell')];
  const width = (e) => e.getBoundingClientRect().width;
  return {count: cells.length, square: Math.min(...cells.map(width)),
          symbol: Math.min(...cells.map((c) => width(c.querySelector('svg.item'))))};
}"""


def check_in_window(page: Any, *names: str) -> None:
    """Each named element lies whole inside the window (no need to scroll to see it)."""
    viewport = page.viewport_size
    for name in names:
        box = tid(page, name).bounding_box()
        assert box is not None, f"{name} is not on screen"
        assert box["x"] >= -0.5 and box["y"] >= -0.5, (name, box)
        assert box["x"] + box["width"] <= viewport["width"] + 0.5, (name, box)
        assert box["y"] + box["height"] <= viewport["height"] + 0.5, (name, box)


def check_play_grid(page: Any) -> None:
    """The Play Grid's 20 squares are big enough to tell apart: their symbols and colour letters
    (and the ticks of the squares the last spin collected) shown whole inside them."""
    sizes = page.evaluate(GRID_JS)
    assert sizes["count"] == 20, sizes
    assert sizes["square"] >= SMALLEST_SQUARE and sizes["symbol"] >= SMALLEST_SYMBOL, sizes
    check_fit(page, "[data-testid=grid] .letter", ".cell")
    problems, _, _ = page.evaluate(FIT_JS, ["[data-testid=grid] .tick", ".cell"])
    assert not problems, "\n".join(problems)


def check_bonus_panel(page: Any) -> None:
    """The Bonus Game's number, buttons and prizes lie whole inside its panel, in the window."""
    check_in_window(page, "bonus-panel", "pick-odd", "pick-even")
    parts = check_fit(
        page, ".bonus-panel .reel, .bonus-panel .btn.pick, .bonus-panel li", ".bonus-panel"
    )
    assert len(parts) >= 5, parts  # the number, ODD, EVEN and the prizes


def check_live(page: Any, where: str) -> str:
    """The live game on screen fits the phone; returns its phase."""
    now = phase(page)
    check_no_overflow(page, where)
    check_page_width(page)
    check_fits(page)
    check_in_window(page, "spin", "prize-grid" if now == "prize" else "grid")
    if now in ("main", "bonus"):
        check_table_legible(page)
    if now == "main":
        check_play_grid(page)
    elif now == "bonus":
        check_bonus_panel(page)
    else:
        check_prize_squares(page, 9)
    return now


def check_screen_fits(page: Any, where: str) -> None:
    check_no_overflow(page, where)
    check_page_width(page)


@pytest.mark.parametrize("outcome", list(OUTCOMES))
def test_a_play_fits_a_320_phone(start_server: Any, browser: Any, outcome: str) -> None:
    """Play a whole game at 320 x 568, checking every step of the live game, then the screens
    after it (see the module's docstring)."""
    server = start_server([OUTCOMES[outcome]])
    page = browser.new_page(server, SE)
    register(page)
    check_screen_fits(page, "lobby")
    deposit(page, 1000)
    play_number = buy(page)
    check_screen_fits(page, "start")
    start_playing(page)
    seen: list[str] = []
    for step in range(300):
        wait_idle(page)
        if phase(page) == "over":
            break
        now = check_live(page, f"{phase(page)} at step {step}")
        if now not in seen:
            seen.append(now)
            browser.shot(page, now)
        elif step == 1:
            browser.shot(page, "main-after-a-spin")  # the last spin's line beside the wheel
        act(page)
    wait_idle(page, "over")
    assert ("prize" if outcome == "prize-game" else "bonus") in seen, seen
    check_screen_fits(page, "the end screen")
    check_in_window(page, "end-amount", "finish")
    browser.shot(page, "end")
    finish(page, play_number, 500)
    check_screen_fits(page, "My Games")
    tid(page, f"recall-{play_number}").click()
    wait_idle(page, "recall")
    check_screen_fits(page, "recall")
    steps = api(page, f"/api/my-games/{play_number}")["steps"]
    for index in range(1, len(steps) + 1):
        tid(page, "recall-next").click()
        page.wait_for_function(f"document.body.dataset.recallIndex === '{index}'")
        check_screen_fits(page, f"recall step {index}")
    browser.shot(page, "recall")
    for screen in ("lobby-info", "lobby-protection", "lobby-money"):
        tid(page, "nav-lobby").click()
        wait_idle(page, "lobby")
        tid(page, screen).click()
        wait_idle(page)
        check_screen_fits(page, screen)


@pytest.mark.parametrize("size", list(SMALL_PHONES))
def test_bonus_game_fits_a_short_phone(start_server: Any, browser: Any, size: str) -> None:
    """The Bonus Game on 375 x 667 and 360 x 640, at its start and after each pick: the same fit
    as at 320 x 568, with no scrolling."""
    server = start_server([OUTCOMES["bonus-game"]])
    page = browser.new_page(server, SMALL_PHONES[size])
    register(page)
    deposit(page, 1000)
    buy(page)
    start_playing(page)
    assert play_until(page, ("bonus",)) == "bonus"
    browser.shot(page, "bonus")
    picks = 0
    while phase(page) == "bonus":
        check_live(page, f"Bonus Game at {size} after {picks} picks")
        act(page)
        wait_idle(page)
        picks += 1


@pytest.mark.parametrize("size", list(SMALL_PHONES))
def test_play_grid_keeps_its_size_on_a_short_phone(
    start_server: Any, browser: Any, size: str
) -> None:
    """The Main Game on 360 x 640 and 375 x 667, logged in (the top bar on two rows): after each
    spin, and with the longest lines a spin says, the Play Grid's squares are 38px or more and
    the game fits the window."""
    server = start_server([None])
    page = browser.new_page(server, SMALL_PHONES[size])
    register(page)
    deposit(page, 1000)
    buy(page)
    start_playing(page)
    line = tid(page, "last-spin")
    stretched = False
    for step in range(300):
        wait_idle(page)
        now = phase(page)
        if now == "over":
            break
        if now == "main":
            check_live(page, f"Main Game at {size}, step {step}")
            assert page.evaluate(GRID_JS)["square"] >= SMALL_PHONE_SQUARE, (step, line.inner_text())
            if line.is_visible() and not stretched:  # the longest line a spin may say
                stretched = True
                said = line.evaluate("(el) => el.lastChild.textContent")
                line.evaluate("(el, text) => { el.lastChild.textContent = text; }", LONG_LINE)
                box = line.bounding_box()
                assert box is not None and box["height"] >= 4 * 12, box
                assert page.evaluate(GRID_JS)["square"] >= SMALL_PHONE_SQUARE
                check_fits(page)
                check_no_overflow(page, f"the longest last spin line at {size}")
                browser.shot(page, "main-long-line")
                line.evaluate("(el, text) => { el.lastChild.textContent = text; }", said)
        act(page)
    assert stretched
