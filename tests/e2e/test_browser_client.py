"""The browser client end to end: a person registers, adds test money, buys and plays.

Each test checks what the screen shows against the server's record, read over HTTP with the
page's own cookies (``page.request``). Animations run under ``prefers-reduced-motion: reduce``
(near-instant) unless a test says otherwise; tests wait on ``body[data-busy]`` and
``body[data-phase]`` instead of sleeping.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    IDLE,
    PASSWORD,
    PHONE,
    WIN_CUES,
    Browser,
    Server,
    act,
    api,
    buy,
    check_board,
    check_end,
    check_fits,
    check_heading_focused,
    check_net,
    check_no_overflow,
    deposit,
    finish,
    focused,
    money,
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
HOW_TO_PLAY = [
    "YOU START THE GAME WITH 6 SPINS. BEFORE EACH SPIN, ONE OF SIX COLOURS WILL BE APPLIED TO"
    " EVERY SYMBOL ON THE PLAY GRID.",
    "TAP THE SPIN BUTTON TO REVEAL A COLOUR. ALL SYMBOLS MATCHING THAT COLOUR WILL BE COLLECTED!"
    " NEW SYMBOLS WILL BE ADDED TO FILL THE SPACES IN THE PLAY GRID.",
    "COLLECT 6 SYMBOLS TO ACTIVATE THE BONUS GAME. COLLECT 6 SYMBOLS TO ACTIVATE THE PRIZE GAME,"
    " WHERE YOU ARE GUARANTEED TO WIN.",
    "TAP ODD OR EVEN TO REVEAL A NUMBER BETWEEN 1 AND 12. SELECT THE CORRECT ANSWER AND WIN THE"
    " HIGHLIGHTED BONUS PRIZE.",
    "KEEP CHOOSING ODD OR EVEN. IF YOU CONTINUE TO SELECT THE CORRECT ANSWER, YOU WILL CONTINUE TO"
    " COLLECT BONUS PRIZES. SELECT INCORRECTLY, AND YOU WILL RETURN TO THE MAIN GAME.",
    "ONE OF SIX COLOURS WILL BE APPLIED TO EVERY PRIZE AMOUNT ON THE PLAY GRID. TAP THE SPIN BUTTON"
    " TO REVEAL A COLOUR. ALL PRIZES MATCHING THAT COLOUR WILL BE COLLECTED!",
    "NEW PRIZE AMOUNTS WILL BE ADDED TO FILL THE SPACES IN THE PLAY GRID. KEEP SPINNING AND"
    " COLLECTING PRIZES UNTIL YOU COLLECT A WIN SYMBOL. IF YOU COLLECT A WIN X2 SYMBOL YOUR PRIZE"
    " POT WILL BE DOUBLED!",
]
HOW_TO_HEADINGS = [None, None, None, "BONUS GAME", "BONUS GAME", "PRIZE GAME", "PRIZE GAME"]
# ------------------------------------------------------------------------------------ tests


def test_losing_play_start_to_finish(start_server: Any, browser: Browser) -> None:
    """Register, add test money, buy, HOW TO PLAY, play a losing play to FINISH, recall it."""
    server: Server = start_server([None])
    page = browser.new_page(server)
    page.goto("/")
    wait_idle(page, "account")
    browser.shot(page, "account")
    register(page)
    assert text(page, "balance") == "£0.00"
    deposit(page, 2000)
    browser.shot(page, "lobby")
    play_number = buy(page, browser, shots=True)
    check_net(page, -500)
    # Focus is on the start screen's heading: Enter there does nothing (it used to land on the
    # top bar's Account button and open the Account page).
    check_heading_focused(page, "Colour Collector")
    page.keyboard.press("Enter")
    wait_idle(page, "start")

    # Start screen, in the procedures' words.
    start = tid(page, "play").locator("xpath=ancestor::section[1]")
    body = start.inner_text()
    for message in (
        "Colour Collector",
        "WIN UP TO £1 MILLION",
        "Collect 6 to activate the BONUS GAME",
        "Collect 6 to activate the PRIZE GAME for a guaranteed win!",
        "HOW TO PLAY",
        "PLAY",
    ):
        assert message in body
    browser.shot(page, "start")

    # HOW TO PLAY: seven panels, an arrow to the next, X closes to the Main Game.
    tid(page, "how-to-play").click()
    for i, expected in enumerate(HOW_TO_PLAY):
        assert text(page, "how-to-text") == expected
        heading = HOW_TO_HEADINGS[i]
        sub = tid(page, "how-to-subheading")
        if heading:
            assert sub.inner_text() == heading
        else:
            assert not sub.is_visible()
        if i in (0, len(HOW_TO_PLAY) - 1):
            browser.shot(page, f"how-to-{i + 1}")
        if i < len(HOW_TO_PLAY) - 1:
            tid(page, "how-to-next").click()
    assert tid(page, "how-to-next").is_disabled()
    close = tid(page, "how-to-close").bounding_box()
    dialog = page.locator(".howto").bounding_box()
    assert close["x"] + close["width"] > dialog["x"] + dialog["width"] * 0.8  # top right
    assert close["y"] < dialog["y"] + 60
    tid(page, "how-to-close").click()
    wait_idle(page, "main")
    check_heading_focused(page, "Main Game")

    # Main game at the start: what the server says.
    board = api(page, f"/api/plays/{play_number}")["board"]
    assert board["revealed"] == 0
    check_board(page, board)
    assert tid(page, "wheel").get_attribute("data-colour") == "orange"
    assert text(page, "spins-left") == "6 SPINS LEFT"
    assert text(page, "prize-game-heading") == "PRIZE GAME"
    assert text(page, "bonus-game-heading") == "BONUS GAME"
    assert tid(page, "prize-table").locator("li").count() == 7
    assert page.locator("[data-testid=prize-game-box] .sil").count() == 6
    assert page.locator("[data-testid=bonus-game-box] .sil").count() == 6
    browser.shot(page, "main")

    # One spin: the wheel lands on the server's colour, the live region says so.
    tid(page, "spin").click()
    wait_idle(page)
    record = api(page, f"/api/plays/{play_number}")
    assert record["board"]["revealed"] == 1
    recall = api(page, f"/api/my-games/{play_number}")
    first = recall["steps"][0]["step"]
    assert tid(page, "wheel").get_attribute("data-colour") == first["wheel"]
    page.wait_for_function(
        "document.querySelector('[data-testid=live]').textContent.includes('"
        + first["wheel"].capitalize()
        + "')"
    )
    if record["board"]["phase"] == "main":
        check_board(page, record["board"])
    browser.shot(page, "after-spin")

    play_to_end(page)
    record = check_end(page, play_number)
    assert record["board"]["result"]["prize_pence"] == 0
    # A loss is plain: no gold, no banner, no celebration.
    check_plain_end(page, "none")
    assert text(page, "end-heading") == "No win this time"
    check_heading_focused(page, "No win this time")
    browser.shot(page, "end")
    recall = finish(page, play_number, 1500)
    check_net(page, -500)
    browser.shot(page, "my-games")

    # Recall, step by step, from the server's record.
    tid(page, f"recall-{play_number}").click()
    wait_idle(page, "recall")
    assert tid(page, "recall-position").inner_text().endswith(f"step 0 of {len(recall['steps'])}")
    assert "Balance before: £20.00" in text(page, "recall-step")
    check_board(page, recall["start"])
    browser.shot(page, "recall-start")
    for n, entry in enumerate(recall["steps"], start=1):
        tid(page, "recall-next").click()
        assert (
            tid(page, "recall-position")
            .inner_text()
            .endswith(f"step {n} of {len(recall['steps'])}")
        )
        check_board(page, entry["board"])
    assert "no win" in text(page, "recall-step")
    assert "Balance after: £15.00" in text(page, "recall-step")
    browser.shot(page, "recall-end")
    tid(page, "recall-back").click()
    wait_idle(page, "mygames")


def test_stake_back_is_plain(start_server: Any, browser: Browser) -> None:
    """A £5 prize (the price of the play back) on a phone: a plain end, silent with sound on."""
    server = start_server(["£5"])
    page = browser.new_page(server, PHONE)
    register(page)
    tid(page, "sound-toggle").click()
    assert tid(page, "sound-toggle").get_attribute("aria-pressed") == "true"
    deposit(page, 1000)
    play_number = buy(page)
    start_playing(page)
    play_to_end(page)
    assert page.evaluate("document.body.dataset.sound") not in (None, *WIN_CUES)  # spins were heard
    record = check_end(page, play_number)
    result = record["board"]["result"]
    assert result["prize_pence"] == 500
    assert text(page, "end-amount") == "£5.00"
    assert text(page, "end-heading") == "You won"
    assert text(page, "end-detail") == "The price of the play back."
    check_plain_end(page, "stake")
    for row in result["rows"]:
        assert "complete" in (tid(page, f"prize-row-{row}").get_attribute("class") or "")
    browser.shot(page, "end", docs="stake-back-phone")
    finish(page, play_number, 500)
    check_net(page, 0)


def check_plain_end(page: Any, level: str) -> None:
    """The end takeover at ``level`` ("none" or "stake"): no gold, no banner, no win sound."""
    assert tid(page, "end-screen").get_attribute("data-level") == level
    assert not tid(page, "win-banner").is_visible()
    colour = page.evaluate(
        "getComputedStyle(document.querySelector('[data-testid=end-amount]')).color"
    )
    assert colour == "rgb(255, 255, 255)", colour  # white, not gold
    assert page.evaluate("document.body.dataset.sound") not in WIN_CUES


def test_bonus_game_both_picks(start_server: Any, browser: Browser) -> None:
    """A boosted win needs a Bonus Game: ODD and EVEN are both picked, the table's amounts go up."""
    server = start_server(["£6"])
    page = browser.new_page(server)
    register(page)
    deposit(page, 1000)
    play_number = buy(page)
    start_playing(page)
    seen_bonus = False
    picks = {"odd": 0, "even": 0}
    for _ in range(300):
        wait_idle(page)
        now = phase(page)
        if now == "over":
            break
        if now == "bonus":
            if not seen_bonus:
                seen_bonus = True
                assert text(page, "bonus-game-heading") == "BONUS GAME UNLOCKED"
                panel = tid(page, "bonus-panel")
                assert "BONUS GAME" in panel.inner_text()
                assert "SELECT ODD OR EVEN FOR THE CHANCE TO WIN ANY BONUS" in panel.inner_text()
                assert "RANGE 1-12" in panel.inner_text()
                assert text(page, "bonus-reel") == "?"
                board = api(page, f"/api/plays/{play_number}")["board"]
                labels = tid(page, "bonus-prizes").locator("li")
                assert labels.count() == len(board["bonus_game"]["panel"]) == 7
                for i, prize in enumerate(board["bonus_game"]["panel"]):
                    assert text(page, f"bonus-prize-{i}") == bonus_label(prize)
                check_heading_focused(page, "BONUS GAME")
                browser.shot(page, "bonus-panel")
            choice = "odd" if (picks["odd"] + picks["even"]) % 2 == 0 else "even"
            tid(page, f"pick-{choice}").click()
            picks[choice] += 1
            wait_idle(page)
            step = api(page, f"/api/my-games/{play_number}")["steps"][-1]["step"]
            assert step["kind"] == "bonus_pick" and step["pick"] == choice
            if phase(page) == "bonus" and step["won"]:
                assert text(page, "bonus-reel") == str(step["number"])
                won = tid(page, f"bonus-prize-{step['prize']}")
                assert "won" in (won.get_attribute("class") or "")
                browser.shot(page, f"bonus-won-{picks['odd'] + picks['even']}")
            elif not step["won"]:
                board = api(page, f"/api/plays/{play_number}")["board"]
                if board["phase"] == "main":
                    check_board(page, board)
                browser.shot(page, "bonus-over")
        else:
            tid(page, "spin").click()
            page.wait_for_function(IDLE)
    assert seen_bonus
    assert picks["odd"] >= 1 and picks["even"] >= 1, picks
    record = check_end(page, play_number)
    assert record["board"]["result"]["level"] >= 1
    assert text(page, "prize-amount-0") == money(record["board"]["prize_table"][0]["amount_pence"])
    assert record["board"]["prize_table"][0]["amount_pence"] > 500  # boosted
    assert text(page, "end-amount") == "£6.00"
    assert tid(page, "end-screen").get_attribute("data-level") == "win"
    browser.shot(page, "end")
    finish(page, play_number, 500)

    # The labels in the client's own words: a count of one is singular ("1 EXTRA SPINS" was not).
    labels = page.evaluate(
        """() => import('/js/format.js').then((f) => [
             {kind: 'extra_spins', value: 1}, {kind: 'extra_spins', value: 3},
             {kind: 'prize_game_symbols', value: 1}, {kind: 'prize_game_symbols', value: 2},
             {kind: 'more_symbols', value: 9}, {kind: 'prize_booster', value: 0},
           ].map(f.bonusLabel))"""
    )
    assert labels == [
        "1 EXTRA SPIN",
        "3 EXTRA SPINS",
        "1 PRIZE GAME SYMBOL",
        "2 PRIZE GAME SYMBOLS",
        "9 MORE SYMBOLS",
        "PRIZE BOOSTER",
    ]


BONUS_LABELS = {
    "extra_spins": "EXTRA SPINS",
    "prize_booster": "PRIZE BOOSTER",
    "super_prize_booster": "SUPER PRIZE BOOSTER",
    "mega_prize_booster": "MEGA PRIZE BOOSTER",
    "symbols": "SYMBOLS",
    "more_symbols": "MORE SYMBOLS",
    "prize_game_symbols": "PRIZE GAME SYMBOLS",
    "unlock_prize_game": "UNLOCK PRIZE GAME",
}


def bonus_label(prize: dict[str, Any]) -> str:
    """A Bonus Prize's box text, restated: "2 EXTRA SPINS", "1 EXTRA SPIN", "PRIZE BOOSTER"."""
    label = BONUS_LABELS[prize["kind"]]
    if not prize["value"]:
        return label
    return f"1 {label[:-1]}" if prize["value"] == 1 else f"{prize['value']} {label}"


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_prize_game_win_x2(start_server: Any, browser: Browser, size: str) -> None:
    """£5,000 Prize Games until one ends on WIN x2 (£2,500 doubled; about half of them do).

    In the Prize Game no "0 SPINS LEFT" shows beside SPIN; the squares the last spin collected
    (the WIN x2 symbol among them) stay empty on the final board; "WIN x2: £2,500.00 DOUBLED TO
    £5,000.00" fits the Prize Pot box; £5,000 is a big win (MEGA WIN!).
    """
    attempts = 16  # P(no WIN x2 in 16) = 2 ** -16
    server = start_server(["£5,000 (£5,000 Prize Game)"] * attempts)
    page = browser.new_page(server, DESKTOP if size == "desktop" else PHONE)
    register(page)
    deposit(page, 10000)
    balance = 10000
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
        play_until(page, ("prize",))
        assert text(page, "grid-heading") == "PRIZE GAME"
        assert text(page, "prize-game-heading") == "PRIZE GAME UNLOCKED"
        assert text(page, "keep-spinning") == "KEEP SPINNING UNTIL YOU COLLECT WIN!"
        assert not tid(page, "spins-left").is_visible()  # no "0 SPINS LEFT" beside SPIN
        assert tid(page, "spin").is_enabled()
        assert text(page, "pot-amount") == "£0.00"
        board = api(page, f"/api/plays/{play_number}")["board"]
        for i, square in enumerate(board["prize_game"]["grid"]):
            cell = tid(page, f"prize-cell-{i}")
            assert cell.get_attribute("data-item") == str(square["item"])
            assert cell.get_attribute("data-colour") == (square["colour"] or "")
        if attempt == 0:
            browser.shot(page, "prize-game")
        while phase(page) == "prize":
            tid(page, "spin").click()
            page.wait_for_function(IDLE)
            assert not tid(page, "spins-left").is_visible()
            board = api(page, f"/api/plays/{play_number}")["board"]
            assert tid(page, "pot-amount").get_attribute("data-pence") in (
                str(board["prize_game"]["pot_pence"]),
                str((board["result"] or {}).get("prize_game_pence")),
            )
        wait_idle(page, "over")
        record = check_end(page, play_number)
        result = record["board"]["result"]
        assert result["prize_pence"] == 500000
        assert tid(page, "end-screen").get_attribute("data-level") == "mega"
        assert text(page, "win-banner") == "MEGA WIN!"

        # The final board: what the last spin collected is gone, WIN / WIN x2 included.
        last = api(page, f"/api/my-games/{play_number}")["steps"][-1]["step"]
        assert last["kind"] == "prize_spin"
        symbol = "win_x2" if result["doubled"] else "win"
        assert symbol in last["collected_items"]
        for i in range(16):
            cell = tid(page, f"prize-cell-{i}")
            if i in last["collected"]:
                assert cell.get_attribute("data-collected") == "true"
                assert cell.locator(".amount").count() == 0, (i, cell.inner_text())
            else:
                assert cell.locator(".amount").count() == 1
        if result["doubled"]:
            assert record["board"]["prize_game"]["doubled"] is True
            double = tid(page, "pot-double")
            assert (
                double.inner_text().replace("\n", " ") == "WIN x2: £2,500.00 DOUBLED TO £5,000.00"
            )
            assert text(page, "pot-amount") == "£5,000.00"
            page.locator(".takeover").evaluate("(el) => { el.hidden = true; }")
            check_no_overflow(page, "Prize Pot after WIN x2")
            pot = tid(page, "prize-pot").bounding_box()
            for part in ("pot-double", "pot-amount"):
                box = tid(page, part).bounding_box()
                assert (
                    box["x"] >= pot["x"] and box["x"] + box["width"] <= pot["x"] + pot["width"]
                ), (part, box, pot)
                assert box["y"] + box["height"] <= pot["y"] + pot["height"], (part, box, pot)
            browser.shot(
                page, "prize-game-win-x2", docs="prize-game-win-x2" if size == "desktop" else None
            )
            page.locator(".takeover").evaluate("(el) => { el.hidden = false; }")
            middle = (
                {"x": 283, "y": 100, "width": 800, "height": 620} if size == "desktop" else None
            )
            browser.shot(page, "end", docs="mega-win-desktop" if middle else None, clip=middle)
            finish(page, play_number, balance)
            return
        finish(page, play_number, balance)
        balance += 500000
    pytest.fail(f"no WIN x2 in {attempts} Prize Games")


def test_million(start_server: Any, browser: Browser) -> None:
    """The top prize on a phone: TOP PRIZE!, its sound, and a top bar that fits £1,000,000.00."""
    server = start_server(["£1,000,000"])
    page = browser.new_page(server, PHONE)
    register(page)
    tid(page, "sound-toggle").click()
    deposit(page, 500)
    play_number = buy(page)
    start_playing(page)
    play_to_end(page)
    check_end(page, play_number)
    assert text(page, "end-amount") == "£1,000,000.00"
    assert tid(page, "end-screen").get_attribute("data-level") == "top"
    assert text(page, "win-banner") == "TOP PRIZE!"
    assert page.evaluate("document.body.dataset.sound") == "mega-win"
    assert "complete" in (tid(page, "prize-row-6").get_attribute("class") or "")
    check_no_overflow(page, "top prize end")
    browser.shot(page, "end", docs="top-prize-phone")
    finish(page, play_number, 0)
    assert text(page, "balance") == "£1,000,000.00"
    check_net(page, 100000000 - 500)
    assert text(page, "net") == "+£999,995.00"
    # The top bar with a large balance: nothing spills out, the page is not zoomed out.
    check_no_overflow(page, "My Games with £1,000,000.00")
    check_fits(page)
    top = tid(page, "topbar").bounding_box()
    assert top["width"] <= PHONE["width"] and top["height"] < 100, top


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_resume_after_reload(start_server: Any, browser: Browser, size: str) -> None:
    """Reload mid-play, and a new tab: the same step, with the wheel, the Segment Indicator and
    the Prize Table's colours where the play left them; the session's time and net position are
    the same in the new tab."""
    server = start_server(["£14 (£6 + £8)"])
    page = browser.new_page(server, DESKTOP if size == "desktop" else PHONE)
    register(page)
    deposit(page, 1000)
    play_number = buy(page)
    start_playing(page)
    for _ in range(12):
        act(page, "even")
        before = api(page, f"/api/plays/{play_number}")["board"]
        coloured = [row["colour"] for row in before["prize_table"] if row["colour"]]
        if before["phase"] == "main" and before["wheel"] != "orange" and coloured:
            break
    assert before["wheel"] != "orange" and coloured, before
    started = tid(page, "session-time").get_attribute("data-started")
    assert started
    shown = text(page, "session-time")
    page.reload()
    wait_idle(page)
    assert phase(page) == before["phase"]
    check_board(page, before)  # wheel, every row's colour, the grid
    wheel = before["wheel"]
    assert page.locator(".pointer").evaluate("(p) => p.style.fill") == f"var(--{wheel})"
    assert text(page, "indicator").startswith(f"Segment Indicator: {wheel.capitalize()}")
    for i, row in enumerate(before["prize_table"]):
        fill = tid(page, f"prize-row-{i}").locator(".shape").evaluate("(s) => s.style.fill")
        assert fill == (f"var(--{row['colour']})" if row["colour"] else ""), (i, fill)
    browser.shot(page, "after-reload")

    # A new tab (sessionStorage gone, cookies kept) lands on the same step, same session.
    context = page.context
    page.close()
    page2 = browser.watch(context.new_page())
    page2.goto("/")
    wait_idle(page2)
    assert phase(page2) == before["phase"]
    check_board(page2, api(page2, f"/api/plays/{play_number}")["board"])
    assert api(page2, f"/api/plays/{play_number}")["board"]["revealed"] == before["revealed"]
    assert tid(page2, "session-time").get_attribute("data-started") == started
    assert text(page2, "session-time") >= shown  # hh:mm:ss since login, not since this tab
    check_net(page2, -500)
    assert api(page2, "/api/session")["started_at"] == started
    play_to_end(page2)
    check_end(page2, play_number)
    finish(page2, play_number, 500)


def test_try_mode_never_changes_balance(start_server: Any, browser: Browser) -> None:
    """Try, logged in and not: the banner shows, nothing is paid or credited; reload resumes."""
    server = start_server(["£5", "£10 (£10 Prize Game)"])
    page = browser.new_page(server)
    register(page)
    deposit(page, 2000)
    tid(page, "lobby-try").click()
    wait_idle(page, "start")
    assert tid(page, "try-banner").is_visible()
    assert text(page, "try-banner") == "TRY — no money"
    start_playing(page)
    assert tid(page, "try-banner").is_visible()
    browser.shot(page, "try-main")
    tid(page, "spin").click()
    wait_idle(page)
    page.reload()
    wait_idle(page)
    assert tid(page, "try-banner").is_visible()
    assert phase(page) in ("start", "main", "bonus", "prize", "over")
    if phase(page) == "start":
        start_playing(page)
    play_to_end(page)
    assert text(page, "end-amount") == "£5.00"
    assert "no Play Number" in text(page, "end-play-number")
    browser.shot(page, "try-end")
    tid(page, "finish").click()
    wait_idle(page, "lobby")
    assert api(page, "/api/wallet")["balance_pence"] == 2000
    assert text(page, "balance") == "£20.00"
    check_net(page, 0)
    assert api(page, "/api/my-games")["total"] == 0

    # No account at all.
    guest = browser.new_page(server, PHONE)
    guest.goto("/")
    wait_idle(guest, "account")
    tid(guest, "try-start").click()
    wait_idle(guest, "start")
    assert tid(guest, "try-banner").is_visible()
    check_no_overflow(guest, "Try on a phone")  # brand, TRY banner and Sound in one row
    start_playing(guest)
    check_fits(guest)
    play_to_end(guest)
    assert text(guest, "end-amount") == "£10.00"
    browser.shot(guest, "try-guest-end")
    tid(guest, "finish").click()
    wait_idle(guest, "account")


def test_keyboard_only(start_server: Any, browser: Browser) -> None:
    """Log in, buy and play with the keyboard alone; focus is always visible."""
    server = start_server(["£6"])
    page = browser.new_page(server)
    email = register(page)
    deposit(page, 1000)
    tid(page, "logout").click()
    wait_idle(page, "account")

    def tab_to(name: str, limit: int = 40) -> None:
        for _ in range(limit):
            focused = page.evaluate(
                "document.activeElement && document.activeElement.dataset.testid"
            )
            if focused == name:
                outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
                assert outline != "none", f"{name} has no visible focus"
                return
            page.keyboard.press("Tab")
        raise AssertionError(f"Tab never reached {name}")

    tab_to("login-email")
    page.keyboard.type(email)
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    wait_idle(page, "lobby")
    tab_to("buy")
    page.keyboard.press("Enter")
    wait_idle(page, "purchase")
    tab_to("purchase-confirm")
    page.keyboard.press("Enter")
    wait_idle(page, "start")
    tab_to("how-to-play")
    page.keyboard.press("Enter")
    # The next panel is read out where → leaves the focus: its words are in a polite live region.
    live = tid(page, "how-to-text").evaluate(
        "e => { const r = e.closest('[aria-live]'); return r && [r.ariaLive, r.ariaAtomic]; }"
    )
    assert live == ["polite", "true"]
    for _ in range(6):
        tab_to("how-to-next")
        page.keyboard.press("Enter")
    assert text(page, "how-to-text") == HOW_TO_PLAY[-1]
    tab_to("how-to-close")
    page.keyboard.press("Enter")
    wait_idle(page, "main")
    # Each new screen or panel puts the focus on its heading; Enter there spins (no control is
    # focused), O / E pick in a Bonus Game, Tab reaches the buttons.
    check_heading_focused(page, "Main Game")
    browser.shot(page, "keyboard-main")
    play_number = str(api(page, "/api/plays/quote")["unfinished"]["play_number"])
    counts = {"spin": 0, "bonus": 0, "heading": 0, "kept": 0}
    was = "main"
    for _ in range(300):
        wait_idle(page)
        now = phase(page)
        if now == "over":
            break
        now_focused = focused(page)
        steps = api(page, f"/api/my-games/{play_number}")["steps"]
        last = steps[-1]["step"] if steps else None
        if now == "bonus":
            if was == "bonus" and last and last["won"]:  # a won pick: pick again from there
                assert now_focused["testid"] == f"pick-{last['pick']}", (now_focused, last)
                counts["kept"] += 1
                page.keyboard.press("Enter")
            else:  # the Bonus Game just opened
                check_heading_focused(page, "BONUS GAME")
                counts["heading"] += 1
                page.keyboard.press("o" if counts["bonus"] % 2 else "e")
            counts["bonus"] += 1
        else:
            if was == now and last and last["kind"] in ("spin", "prize_spin"):
                # A spin that leaves the game where it was: SPIN keeps the focus.
                assert now_focused["testid"] == "spin", (now_focused, last["kind"])
                counts["kept"] += 1
            else:  # the play (re)entered this game window: its heading
                check_heading_focused(page, "Main Game", "PRIZE GAME")
                counts["heading"] += 1
            page.keyboard.press("Space" if counts["spin"] % 2 else "Enter")
            counts["spin"] += 1
        was = now
        page.wait_for_function(IDLE)
    assert counts["bonus"] >= 1 and counts["heading"] >= 2 and counts["kept"] >= 1, counts
    wait_idle(page, "over")
    check_heading_focused(page, "Congratulations")
    page.keyboard.press("Tab")  # the takeover is modal: Tab goes to FINISH
    assert focused(page)["testid"] == "finish"
    play_number = str(api(page, "/api/my-games")["items"][0]["play_number"])
    check_end(page, play_number)
    page.keyboard.press("Enter")
    wait_idle(page, "mygames")
    check_heading_focused(page, "My Games")
    assert api(page, "/api/wallet")["balance_pence"] == 1000 - 500 + 600


def test_animations_run_at_full_length(start_server: Any, browser: Browser) -> None:
    """Without reduced motion the spin animates (busy for a while) and still lands right."""
    server = start_server([None])
    page = browser.new_page(server, reduced_motion=False)
    register(page)
    deposit(page, 500)
    play_number = buy(page)
    tid(page, "play").click()
    wait_idle(page, "main")
    tid(page, "spin").click()
    assert page.evaluate("document.body.dataset.busy") == "true"
    page.wait_for_timeout(400)
    assert page.evaluate("document.body.dataset.busy") == "true"  # still animating
    browser.shot(page, "mid-spin")
    wait_idle(page)
    step = api(page, f"/api/my-games/{play_number}")["steps"][0]["step"]
    assert tid(page, "wheel").get_attribute("data-colour") == step["wheel"]
    assert re.fullmatch(r"\d SPINS? LEFT", text(page, "spins-left"))
