"""Every screen, on a desktop (1366 x 768) and a phone (390 x 844): focus lands on the new
screen's heading, no text overflows its box, the game needs no scrolling and the page is not
zoomed out, and axe-core (from npm, injected into the page) finds no serious or critical
violation: account, lobby, purchase, start, HOW TO PLAY, Main Game, Bonus Game, Prize Game, the
end, My Games, recall.
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import (
    VIEWPORTS,
    act,
    api,
    buy,
    check_end,
    check_fits,
    check_heading_focused,
    check_screen,
    deposit,
    finish,
    phase,
    register,
    tid,
    wait_idle,
)

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_every_screen(start_server: Any, browser: Any, size: str) -> None:
    """A play with a Bonus Game and a Prize Game (a boosted row needs a Bonus Prize)."""
    server = start_server(["£16 (£6 + £10 Prize Game)"])
    page = browser.new_page(server, VIEWPORTS[size])
    page.goto("/")
    wait_idle(page, "account")
    check_screen(page, browser, "account", "Colour Collector")
    register(page)
    check_screen(page, browser, "lobby", "Your account")
    deposit(page, 1000)
    play_number = buy(page)
    check_screen(
        page, browser, "start", "Colour Collector", docs="start" if size == "desktop" else None
    )
    tid(page, "how-to-play").click()
    check_screen(page, browser, "how-to", "HOW TO PLAY")
    tid(page, "how-to-close").click()
    wait_idle(page, "main")
    check_fits(page)
    check_table_legible(page)
    check_screen(
        page, browser, "main", "Main Game", docs="main-game" if size == "desktop" else None
    )
    seen = {"main"}
    for _ in range(300):
        wait_idle(page)
        now = phase(page)
        if now == "over":
            break
        if now not in seen:
            seen.add(now)
            check_fits(page)
            heading = {"bonus": "BONUS GAME", "prize": "Colour Collector: Prize Game"}[now]
            check_screen(
                page,
                browser,
                now,
                heading,
                docs="bonus-game-phone" if (now, size) == ("bonus", "phone") else None,
            )
        before = now
        act(page)
        if before == "bonus" and phase(page) == "main":
            check_heading_focused(page, "Main Game")  # back from the Bonus Game
    assert seen == {"main", "bonus", "prize"}, seen
    wait_idle(page, "over")
    check_fits(page)
    check_end(page, play_number)
    check_screen(page, browser, "end", "Congratulations")
    finish(page, play_number, 500)
    check_screen(page, browser, "my-games", "My Games")
    tid(page, f"recall-{play_number}").click()
    wait_idle(page, "recall")
    check_screen(page, browser, "recall", "Recall of play")
    steps = len(api(page, f"/api/my-games/{play_number}")["steps"])
    for _ in range(steps):
        tid(page, "recall-next").click()
        if page.evaluate("document.querySelector('[data-testid=bonus-panel]').hidden") is False:
            break
    check_screen(page, browser, "recall-bonus")
    tid(page, "nav-lobby").click()
    wait_idle(page, "lobby")
    tid(page, "buy").click()
    wait_idle(page, "purchase")
    check_screen(page, browser, "purchase", "You are about to play")
    tid(page, "logout").click()
    wait_idle(page, "account")
    check_heading_focused(page, "Colour Collector")


def check_table_legible(page: Any) -> None:
    """The Prize Table's amounts are 14 px or more, its boxes 12 px or more (phone: were 11, 8)."""
    sizes = page.evaluate(
        """() => ({
          amounts: [...document.querySelectorAll('.prow .amt')]
            .map((e) => parseFloat(getComputedStyle(e).fontSize)),
          boxes: [...document.querySelectorAll('.prow .bx')]
            .map((b) => Math.min(b.offsetWidth, b.offsetHeight)),
        })"""
    )
    assert len(sizes["amounts"]) == 7 and min(sizes["amounts"]) >= 14, sizes["amounts"]
    assert len(sizes["boxes"]) == 49 and min(sizes["boxes"]) >= 12, min(sizes["boxes"])
