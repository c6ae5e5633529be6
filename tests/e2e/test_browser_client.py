"""The browser client end to end: a person registers, adds test money, buys and plays.

Each test checks what the screen shows against the server's record, read over HTTP with the
page's own cookies (``page.request``). Animations run under ``prefers-reduced-motion: reduce``
(near-instant) unless a test says otherwise; tests wait on ``body[data-busy]`` and
``body[data-phase]`` instead of sleeping.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

Browser = Any  # tests/e2e/conftest.py: Browser (pages, screenshots, problem checks)
Server = Any  # tests/e2e/conftest.py: Server (base_url, data_dir, outcome script)
PASSWORD = "correct horse battery staple"
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}

IDLE = "document.body.dataset.busy === 'false'"
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
LETTERS = {"orange": "O", "red": "R", "yellow": "Y", "green": "G", "blue": "B", "purple": "P"}


# ------------------------------------------------------------------------------------ helpers


def money(pence: int) -> str:
    """£1,234.50 as the client shows it (independent re-statement of the format)."""
    return f"£{pence // 100:,}.{pence % 100:02d}"


def tid(page: Any, name: str) -> Any:
    return page.get_by_test_id(name)


def wait_idle(page: Any, phase: str | None = None) -> None:
    condition = IDLE if phase is None else f"{IDLE} && document.body.dataset.phase === '{phase}'"
    page.wait_for_function(condition)


def phase(page: Any) -> str:
    return str(page.evaluate("document.body.dataset.phase"))


def text(page: Any, name: str) -> str:
    return str(tid(page, name).inner_text()).strip()


def register(page: Any, email: str | None = None) -> str:
    email = email or f"player-{secrets.token_hex(4)}@example.com"
    page.goto("/")
    wait_idle(page, "account")
    tid(page, "register-email").fill(email)
    tid(page, "register-password").fill(PASSWORD)
    tid(page, "register-dob").fill("1990-04-01")
    tid(page, "register-submit").click()
    wait_idle(page, "lobby")
    return email


def deposit(page: Any, pence: int) -> None:
    before = api(page, "/api/wallet")["balance_pence"]
    tid(page, "deposit-amount").select_option(str(pence))
    tid(page, "deposit-submit").click()
    wait_idle(page, "lobby")
    after = api(page, "/api/wallet")["balance_pence"]
    assert after == before + pence
    page.wait_for_function(
        f"document.querySelector('[data-testid=balance]').dataset.pence === '{after}'"
    )
    assert text(page, "balance") == money(after)
    assert text(page, "lobby-balance") == money(after)


def api(page: Any, path: str) -> Any:
    answer = page.request.get(path)
    assert answer.ok, f"GET {path}: {answer.status} {answer.text()}"
    return answer.json()


def buy(page: Any, browser: Browser | None = None, shots: bool = False) -> str:
    """From the lobby: Buy, check the purchase screen, confirm; returns the Play Number."""
    balance = api(page, "/api/wallet")["balance_pence"]
    tid(page, "buy").click()
    wait_idle(page, "purchase")
    assert text(page, "purchase-message") == "You are about to play Colour Collector for £5.00"
    assert text(page, "purchase-balance") == money(balance)
    if shots and browser:
        browser.shot(page, "purchase")
    tid(page, "purchase-confirm").click()
    wait_idle(page, "start")
    current = api(page, "/api/plays/quote")["unfinished"]
    assert current is not None
    assert api(page, "/api/wallet")["balance_pence"] == balance - 500
    page.wait_for_function(
        f"document.querySelector('[data-testid=balance]').dataset.pence === '{balance - 500}'"
    )
    return str(current["play_number"])


def start_playing(page: Any) -> None:
    tid(page, "play").click()
    wait_idle(page, "main")


def check_board(page: Any, board: dict[str, Any]) -> None:
    """The screen matches a board the server returned."""
    rows = board["prize_table"]
    for i, row in enumerate(rows):
        li = tid(page, f"prize-row-{i}")
        assert li.get_attribute("data-shape") == row["shape"]
        assert int(li.get_attribute("data-filled")) == row["filled"]
        assert text(page, f"prize-amount-{i}") == money(row["amount_pence"])
    assert tid(page, "spins-left").get_attribute("data-value") == str(board["spins_left"])
    assert tid(page, "bonus-game-box").get_attribute("data-count") == str(board["bonus_box"])
    assert tid(page, "prize-game-box").get_attribute("data-count") == str(board["prize_game_box"])
    if board["prize_game_unlocked"]:
        assert text(page, "prize-game-heading") == "PRIZE GAME UNLOCKED"
    if board["phase"] == "main":
        for i, square in enumerate(board["grid"]):
            cell = tid(page, f"cell-{i}")
            assert cell.get_attribute("data-item") == square["item"]
            assert cell.get_attribute("data-colour") == (square["colour"] or "")
            if square["colour"]:
                assert cell.locator(".letter").inner_text() == LETTERS[square["colour"]]
    if board["prize_game"] is not None:
        assert tid(page, "pot-amount").get_attribute("data-pence") is not None


def play_to_end(
    page: Any, *, picks: tuple[str, ...] = ("odd", "even"), key: str | None = None
) -> dict[str, int]:
    """SPIN and pick until the end screen; returns how many of each action were taken."""
    done = {"spin": 0, "odd": 0, "even": 0, "prize_spin": 0}
    for _ in range(300):
        wait_idle(page)
        now = phase(page)
        if now == "over":
            break
        if now == "bonus":
            choice = picks[(done["odd"] + done["even"]) % len(picks)]
            button = tid(page, f"pick-{choice}")
            if key:
                button.focus()
                page.keyboard.press(key)
            else:
                button.click()
            done[choice] += 1
        elif now in ("main", "prize"):
            if key:
                tid(page, "spin").focus()
                page.keyboard.press(key)
            else:
                tid(page, "spin").click()
            done["spin" if now == "main" else "prize_spin"] += 1
        else:
            raise AssertionError(f"unexpected phase {now!r}")
        page.wait_for_function(IDLE)
    wait_idle(page, "over")
    tid(page, "end-screen").wait_for(state="visible")
    return done


def check_end(page: Any, play_number: str) -> dict[str, Any]:
    """The end screen shows the server's result and the Play Number."""
    record = api(page, f"/api/plays/{play_number}")
    result = record["board"]["result"]
    assert result is not None
    if result["prize_pence"]:
        assert text(page, "end-amount") == money(result["prize_pence"])
    else:
        assert text(page, "end-amount") == "No win"
    assert play_number in text(page, "end-play-number")
    assert "Play Number" in text(page, "end-play-number")
    check_board(page, record["board"])
    return record


def finish(page: Any, play_number: str, balance_before_finish: int) -> dict[str, Any]:
    """FINISH, then My Games lists the play; balance on screen equals the server's."""
    prize = api(page, f"/api/plays/{play_number}")["board"]["result"]["prize_pence"]
    tid(page, "finish").click()
    wait_idle(page, "mygames")
    wallet = api(page, "/api/wallet")
    assert wallet["balance_pence"] == balance_before_finish + prize
    assert text(page, "balance") == money(wallet["balance_pence"])
    row = tid(page, f"game-row-{play_number}")
    assert row.get_attribute("data-status") == "finished"
    shown = text(page, f"game-prize-{play_number}")
    assert shown == (money(prize) if prize else "No win")
    recall = api(page, f"/api/my-games/{play_number}")
    assert recall["play"]["prize_pence"] == prize
    return recall


def check_net(page: Any, expected: int) -> None:
    page.wait_for_function(
        f"document.querySelector('[data-testid=net]').dataset.pence === '{expected}'"
    )


def check_fits(page: Any) -> None:
    """The game area needs no scrolling and its controls are on screen."""
    sizes = page.evaluate(
        """() => {
            const m = document.querySelector('main');
            return {main: [m.scrollHeight, m.clientHeight, m.scrollWidth, m.clientWidth],
                    doc: [document.documentElement.scrollHeight, window.innerHeight,
                          document.documentElement.scrollWidth, window.innerWidth]};
        }"""
    )
    main, doc = sizes["main"], sizes["doc"]
    assert main[0] <= main[1] + 1 and main[2] <= main[3] + 1, sizes
    assert doc[0] <= doc[1] + 1 and doc[2] <= doc[3] + 1, sizes
    viewport = page.viewport_size
    for name in ("spin", "grid", "prize-table", "wheel", "spins-left", "bonus-game-box"):
        box = tid(page, name).bounding_box()
        if box is None:
            continue
        assert box["x"] >= 0 and box["y"] >= 0, (name, box)
        assert box["x"] + box["width"] <= viewport["width"] + 1, (name, box)
        assert box["y"] + box["height"] <= viewport["height"] + 1, (name, box)


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
        + first["wheel"].upper()
        + "')"
    )
    if record["board"]["phase"] == "main":
        check_board(page, record["board"])
    browser.shot(page, "after-spin")

    play_to_end(page)
    record = check_end(page, play_number)
    assert record["board"]["result"]["prize_pence"] == 0
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
        if entry["board"]["phase"] == "main":
            check_board(page, entry["board"])
    assert "no win" in text(page, "recall-step")
    assert "Balance after: £15.00" in text(page, "recall-step")
    browser.shot(page, "recall-end")
    tid(page, "recall-back").click()
    wait_idle(page, "mygames")


def test_main_game_win(start_server: Any, browser: Browser) -> None:
    """A £5 row win: the row completes, the end screen and the balance agree with the server."""
    server = start_server(["£5"])
    page = browser.new_page(server)
    register(page)
    deposit(page, 1000)
    play_number = buy(page)
    start_playing(page)
    play_to_end(page)
    record = check_end(page, play_number)
    result = record["board"]["result"]
    assert result["prize_pence"] == 500
    assert text(page, "end-amount") == "£5.00"
    for row in result["rows"]:
        assert "complete" in (tid(page, f"prize-row-{row}").get_attribute("class") or "")
    browser.shot(page, "end")
    finish(page, play_number, 500)
    check_net(page, 0)


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
    browser.shot(page, "end")
    finish(page, play_number, 500)


def test_prize_game_win_x2(start_server: Any, browser: Browser) -> None:
    """Prize Game plays until one ends on WIN x2 (a third of even-pound Prize Games do)."""
    attempts = 25  # P(no WIN x2 in 25) = (2/3) ** 25, about 4e-5
    server = start_server(["£10 (£10 Prize Game)"] * attempts)
    page = browser.new_page(server)
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
        for _ in range(300):
            wait_idle(page)
            now = phase(page)
            if now in ("prize", "over"):
                break
            if now == "bonus":
                tid(page, "pick-odd").click()
            else:
                tid(page, "spin").click()
            page.wait_for_function(IDLE)
        assert phase(page) == "prize"
        assert text(page, "grid-heading") == "PRIZE GAME"
        assert text(page, "prize-game-heading") == "PRIZE GAME UNLOCKED"
        assert text(page, "keep-spinning") == "KEEP SPINNING UNTIL YOU COLLECT WIN!"
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
            board = api(page, f"/api/plays/{play_number}")["board"]
            assert tid(page, "pot-amount").get_attribute("data-pence") in (
                str(board["prize_game"]["pot_pence"]),
                str((board["result"] or {}).get("prize_game_pence")),
            )
        wait_idle(page, "over")
        record = check_end(page, play_number)
        result = record["board"]["result"]
        assert result["prize_pence"] == 1000
        if result["doubled"]:
            assert record["board"]["prize_game"]["doubled"] is True
            double = tid(page, "pot-double")
            assert double.is_visible()
            assert money(result["prize_game_pence"]) in double.inner_text()
            assert "WIN x2" in double.inner_text()
            assert text(page, "pot-amount") == money(result["prize_game_pence"])
            browser.shot(page, "prize-game-win-x2")
            finish(page, play_number, balance)
            return
        finish(page, play_number, balance)
        balance += 1000
    pytest.fail(f"no WIN x2 in {attempts} Prize Games")


def test_million(start_server: Any, browser: Browser) -> None:
    """The top prize: £1,000,000.00 on the end screen, in My Games and in the balance."""
    server = start_server(["£1,000,000"])
    page = browser.new_page(server)
    register(page)
    deposit(page, 500)
    play_number = buy(page)
    start_playing(page)
    play_to_end(page)
    check_end(page, play_number)
    assert text(page, "end-amount") == "£1,000,000.00"
    assert "complete" in (tid(page, "prize-row-6").get_attribute("class") or "")
    browser.shot(page, "end")
    finish(page, play_number, 0)
    assert text(page, "balance") == "£1,000,000.00"
    check_net(page, 100000000 - 500)


def test_resume_after_reload(start_server: Any, browser: Browser) -> None:
    """Reload mid-play, and close the tab and come back: the play continues at the same step."""
    server = start_server(["£14 (£6 + £8)"])
    page = browser.new_page(server)
    register(page)
    deposit(page, 1000)
    play_number = buy(page)
    start_playing(page)
    for _ in range(2):
        if phase(page) == "bonus":
            tid(page, "pick-even").click()
        else:
            tid(page, "spin").click()
        page.wait_for_function(IDLE)
    before = api(page, f"/api/plays/{play_number}")["board"]
    page.reload()
    wait_idle(page)
    assert phase(page) == before["phase"]
    check_board(page, before)
    browser.shot(page, "after-reload")

    # A new tab (sessionStorage gone, cookies kept) also lands on the same step.
    context = page.context
    page.close()
    page2 = browser.watch(context.new_page())
    page2.goto("/")
    wait_idle(page2)
    assert phase(page2) in ("start", before["phase"])
    if phase(page2) == "start":
        tid(page2, "play").click()
        wait_idle(page2, before["phase"])
    check_board(page2, api(page2, f"/api/plays/{play_number}")["board"])
    assert api(page2, f"/api/plays/{play_number}")["board"]["revealed"] == before["revealed"]
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
    start_playing(guest)
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
    for _ in range(6):
        tab_to("how-to-next")
        page.keyboard.press("Enter")
    assert text(page, "how-to-text") == HOW_TO_PLAY[-1]
    tab_to("how-to-close")
    page.keyboard.press("Enter")
    wait_idle(page, "main")
    assert page.evaluate("document.activeElement.dataset.testid") == "spin"
    browser.shot(page, "keyboard-focus-spin")
    counts = {"spin": 0, "bonus": 0}
    for _ in range(300):
        wait_idle(page)
        now = phase(page)
        if now == "over":
            break
        focused = page.evaluate("document.activeElement.dataset.testid")
        if now == "bonus":
            assert focused in ("pick-odd", "pick-even"), focused
            page.keyboard.press("Enter")
            counts["bonus"] += 1
        else:
            assert focused == "spin", focused
            page.keyboard.press("Space" if counts["spin"] % 2 else "Enter")
            counts["spin"] += 1
        page.wait_for_function(IDLE)
    assert counts["bonus"] >= 1
    wait_idle(page, "over")
    assert page.evaluate("document.activeElement.dataset.testid") == "finish"
    play_number = str(api(page, "/api/my-games")["items"][0]["play_number"])
    check_end(page, play_number)
    page.keyboard.press("Enter")
    wait_idle(page, "mygames")
    assert api(page, "/api/wallet")["balance_pence"] == 1000 - 500 + 600


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_viewports(start_server: Any, browser: Browser, size: str) -> None:
    """Phone portrait and desktop: every screen of a Prize Game play fits without scrolling."""
    viewport = DESKTOP if size == "desktop" else PHONE
    server = start_server(["£15 (£5 + £10 Prize Game)"])
    page = browser.new_page(server, viewport)
    register(page)
    browser.shot(page, "lobby")
    deposit(page, 1000)
    play_number = buy(page, browser, shots=True)
    browser.shot(page, "start")
    start_playing(page)
    check_fits(page)
    browser.shot(page, "main")
    shots = set()
    for _ in range(300):
        wait_idle(page)
        now = phase(page)
        if now == "over":
            break
        check_fits(page)
        if now not in shots:
            shots.add(now)
            browser.shot(page, now)
        if now == "bonus":
            tid(page, "pick-odd").click()
        else:
            tid(page, "spin").click()
        page.wait_for_function(IDLE)
    wait_idle(page, "over")
    check_fits(page)
    check_end(page, play_number)
    browser.shot(page, "end")
    finish(page, play_number, 500)
    browser.shot(page, "my-games")


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
