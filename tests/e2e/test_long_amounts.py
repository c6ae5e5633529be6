"""Long amounts fit their boxes, measured on screen in Chromium.

- The recall of a Prize Game on a phone (375 x 667, 360 x 640): every amount in the 4 x 4 grid
  (£1,000, WIN x2 ...) lies whole inside its square, clear of the square's colour letter.
- A live Prize Game on the same phones, before its first spin and after each spin: the same,
  clear of the tick too, while the game still fits the window (SPIN on screen, no scrolling).
- A balance over £1,000,000 on a phone: the top bar's figures lie whole inside the bar and the
  window, and the page is neither wider than the phone nor zoomed out.
- The Prize Table's £1,000,000.00 at 1280 x 800: inside its row and the table.

Each check measures boxes (``getBoundingClientRect``) and text widths (``scrollWidth``), so it
fails when text is cut, spills or pushes the page wider than the window.
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import (
    api,
    buy,
    check_fits,
    check_no_overflow,
    deposit,
    finish,
    phase,
    play_to_end,
    play_until,
    register,
    start_playing,
    text,
    tid,
    wait_idle,
)

pytestmark = pytest.mark.e2e

SMALL_PHONES = {"375x667": {"width": 375, "height": 667}, "360x640": {"width": 360, "height": 640}}
LAPTOP = {"width": 1280, "height": 800}

# For each element ``selector`` finds: its text is no wider than its box (``scrollWidth``), and
# its box lies inside the padding box of its closest ``container`` (borders excluded) and inside
# the window. Returns [problems, how many elements were measured, their texts].
FIT_JS = """([selector, container]) => {
  const problems = [];
  const vw = document.documentElement.clientWidth;
  const found = [...document.querySelectorAll(selector)].filter((e) => e.checkVisibility());
  for (const el of found) {
    const what = `${el.dataset.testid || el.className} "${el.textContent.trim()}"`;
    const r = el.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth) {
      problems.push(`${what}: text ${el.scrollWidth}px wide in a ${el.clientWidth}px box`);
    }
    const box = el.closest(container);
    const b = box.getBoundingClientRect();
    const cs = getComputedStyle(box);
    const inner = {
      left: b.left + parseFloat(cs.borderLeftWidth),
      right: b.right - parseFloat(cs.borderRightWidth),
      top: b.top + parseFloat(cs.borderTopWidth),
      bottom: b.bottom - parseFloat(cs.borderBottomWidth),
    };
    if (r.left < inner.left - 0.5 || r.right > inner.right + 0.5
        || r.top < inner.top - 0.5 || r.bottom > inner.bottom + 0.5) {
      problems.push(`${what}: [${r.left}, ${r.right}] x [${r.top}, ${r.bottom}] is not inside its `
        + `${container} [${inner.left}, ${inner.right}] x [${inner.top}, ${inner.bottom}]`);
    }
    if (r.left < -0.5 || r.right > vw + 0.5) problems.push(`${what}: outside the ${vw}px window`);
  }
  return [problems, found.length, found.map((e) => e.textContent.trim())];
}"""

# The page is exactly as wide as the window and not zoomed: on a phone (a mobile viewport) a
# page too wide widens the layout viewport (window.innerWidth) and zooms out, so scrollWidth <=
# innerWidth alone would not see it.
PAGE_WIDTH_JS = """() => ({
  scrollWidth: document.documentElement.scrollWidth,
  clientWidth: document.documentElement.clientWidth,
  innerWidth: window.innerWidth,
  scale: window.visualViewport.scale,
})"""


def check_fit(page: Any, selector: str, container: str) -> list[str]:
    """Assert every visible ``selector`` fits ``container`` and the window; their texts."""
    problems, count, texts = page.evaluate(FIT_JS, [selector, container])
    assert count, f"nothing matches {selector}"
    assert not problems, "\n".join(problems)
    return list(texts)


def check_page_width(page: Any) -> None:
    sizes = page.evaluate(PAGE_WIDTH_JS)
    width = page.viewport_size["width"]
    assert sizes["innerWidth"] == width and sizes["clientWidth"] == width, sizes
    assert sizes["scrollWidth"] <= width, sizes
    assert sizes["scale"] == 1, sizes


# The Prize Game squares whose amount's box meets one of ``marks`` (the colour letter in the top
# right corner, the tick in the bottom left) in the same square.
CLASH_JS = """(marks) => [...document.querySelectorAll('[data-testid=prize-grid] .cell')]
  .flatMap((c) => {
    const a = c.querySelector('.amount');
    if (!a) return [];
    const r = a.getBoundingClientRect();
    return [...c.querySelectorAll(marks)].flatMap((m) => {
      const s = m.getBoundingClientRect();
      const apart = r.right <= s.left || s.right <= r.left
        || r.bottom <= s.top || s.bottom <= r.top;
      return apart ? [] : [`${c.dataset.testid} "${a.textContent}" under its ${m.className}`];
    });
  })"""

# The computed font size, in px, of every element ``selector`` finds.
FONT_SIZES_JS = """(selector) => [...document.querySelectorAll(selector)]
  .map((e) => parseFloat(getComputedStyle(e).fontSize))"""


def check_prize_squares(page: Any, smallest: float) -> list[str]:
    """Every amount on the Prize Game grid lies whole inside its square, clear of the square's
    letter and tick, in ``smallest`` px or more; the texts of the amounts."""
    assert tid(page, "prize-grid").is_visible()
    texts = check_fit(page, "[data-testid=prize-grid] .amount", ".cell")
    clashes = page.evaluate(CLASH_JS, ".letter, .tick")
    assert not clashes, clashes
    sizes = page.evaluate(FONT_SIZES_JS, "[data-testid=prize-grid] .amount")
    assert min(sizes) >= smallest, sizes
    return texts


@pytest.mark.parametrize("size", list(SMALL_PHONES))
def test_recalled_prize_game_amounts_fit_a_phone(
    start_server: Any, browser: Any, size: str
) -> None:
    """Recall a play's Prize Game step by step on a small phone: every square's amount (WIN x2,
    always on the grid, is as wide as the widest, £1,000) lies whole inside its square, clear of
    the colour letter in the square's corner, in a legible size."""
    server = start_server(["£1,000 (£1,000 Prize Game)"])
    page = browser.new_page(server, SMALL_PHONES[size])
    register(page)
    deposit(page, 1000)
    play_number = buy(page)
    start_playing(page)
    play_to_end(page)
    finish(page, play_number, 500)
    tid(page, f"recall-{play_number}").click()
    wait_idle(page, "recall")
    steps = api(page, f"/api/my-games/{play_number}")["steps"]
    shown: set[str] = set()
    for index, frame in enumerate(steps, start=1):
        tid(page, "recall-next").click()
        page.wait_for_function(f"document.body.dataset.recallIndex === '{index}'")
        if frame["board"]["prize_game"] is None:
            continue
        shown.update(check_prize_squares(page, 13))
        check_no_overflow(page, f"recall step {index}")
        check_page_width(page)
    assert "WIN x2" in shown, shown
    tid(page, "prize-grid").scroll_into_view_if_needed()
    browser.shot(page, "recall-prize-game")


@pytest.mark.parametrize("size", list(SMALL_PHONES))
def test_live_prize_game_amounts_fit_a_phone(start_server: Any, browser: Any, size: str) -> None:
    """Play a Prize Game on a small phone: before its first spin and after every spin that leaves
    it going (the squares it collected refilled and ticked, the last spin's line under SPIN), every
    square's amount (WIN x2 among them) lies whole inside its square, clear of the colour letter
    and the tick, 9px or more; and the game still fits the window: SPIN and the whole grid on
    screen, no scrolling, the page neither wider than the phone nor zoomed out. (On these phones
    the squares are 40 to 60px, where the recall's are over 80px.)"""
    attempts = 3  # a £5,000 Prize Game ending on its first spin is rare: then play another
    server = start_server(["£5,000 (£5,000 Prize Game)"] * attempts)
    page = browser.new_page(server, SMALL_PHONES[size])
    register(page)
    deposit(page, 10000)
    balance = 10000
    shown: set[str] = set()
    for attempt in range(attempts):
        if attempt:
            tid(page, "mg-play-again").click()
            wait_idle(page, "purchase")
            tid(page, "purchase-confirm").click()
            wait_idle(page, "start")
            play_number = str(api(page, "/api/plays/quote")["unfinished"]["play_number"])
        else:
            play_number = buy(page)
        balance -= 500
        start_playing(page)
        assert play_until(page, ("prize",)) == "prize"
        spins = 0
        while phase(page) == "prize":
            where = f"Prize Game at {size} after {spins} spins"
            shown.update(check_prize_squares(page, 9))
            check_no_overflow(page, where)
            check_page_width(page)
            check_fits(page)
            if spins == 1:
                browser.shot(page, "live-prize-game")
            tid(page, "spin").click()
            wait_idle(page)
            spins += 1
        wait_idle(page, "over")
        finish(page, play_number, balance)
        balance += 500000
        if spins > 1:  # checked after a spin too, not only before the first
            break
    else:
        pytest.fail(f"every one of {attempts} Prize Games ended on its first spin")
    assert "WIN x2" in shown, shown


@pytest.mark.parametrize("size", list(SMALL_PHONES))
def test_top_bar_fits_a_balance_over_a_million(start_server: Any, browser: Any, size: str) -> None:
    """£1,000,095.00 and +£999,995.00 (the top prize, after a £100 deposit) on a small phone:
    Balance, Net this session and Session lie whole inside the top bar, in one row beside Sound;
    the account links too; no text spills and the page is not wider than the phone."""
    server = start_server(["£1,000,000"])
    page = browser.new_page(server, SMALL_PHONES[size])
    register(page)
    deposit(page, 10000)
    play_number = buy(page)
    start_playing(page)
    play_to_end(page)
    finish(page, play_number, 9500)
    assert api(page, "/api/wallet")["balance_pence"] == 100_009_500
    for screen in ("mygames", "lobby"):
        if screen == "lobby":
            tid(page, "nav-lobby").click()
            wait_idle(page, "lobby")
            assert text(page, "lobby-balance") == "£1,000,095.00"
        assert text(page, "balance") == "£1,000,095.00"
        assert text(page, "net") == "+£999,995.00"
        check_fit(page, "[data-testid=session-stats] dd", ".topbar")
        check_fit(page, "[data-testid=account-nav] button", ".topbar")
        check_fit(page, "[data-testid=sound-toggle]", ".topbar")
        tops = page.evaluate(
            """() => ['balance', 'net', 'session-time', 'sound-toggle'].map((t) =>
                 document.querySelector(`[data-testid=${t}]`).getBoundingClientRect())
                 .map((r) => [r.top, r.bottom])"""
        )
        middle = (tops[-1][0] + tops[-1][1]) / 2
        assert all(top <= middle <= bottom for top, bottom in tops), tops  # one row
        check_no_overflow(page, f"{screen} with £1,000,095.00")
        check_page_width(page)
    browser.shot(page, "top-bar")


def test_prize_table_fits_a_laptop(start_server: Any, browser: Any) -> None:
    """At 1280 x 800 the Prize Table's amounts, £1,000,000.00 the widest, lie inside their rows
    at the table's usual 16px, and the rows inside the table; the game still fits the window."""
    server = start_server([None])
    page = browser.new_page(server, LAPTOP)
    page.goto("/")
    wait_idle(page, "account")
    tid(page, "try-start").click()
    wait_idle(page, "start")
    start_playing(page)
    assert text(page, "prize-amount-6") == "£1,000,000.00"
    amounts = check_fit(page, "[data-testid=prize-table] .amt", ".prow")
    assert len(amounts) == 7, amounts
    check_fit(page, "[data-testid=prize-table] .prow", ".ptable")
    sizes = page.evaluate(
        "() => [...document.querySelectorAll('.prow .amt')]"
        ".map((a) => parseFloat(getComputedStyle(a).fontSize))"
    )
    assert min(sizes) >= 16, sizes
    check_no_overflow(page, "Main Game at 1280 x 800")
    check_page_width(page)
    check_fits(page)
    browser.shot(page, "prize-table")
