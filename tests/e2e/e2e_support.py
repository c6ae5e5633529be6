"""Helpers shared by the browser tests: a player's actions, and checks of what the screen shows.

The checks read the page as a player and a screen reader do (text, roles, the focused element,
boxes measured on screen) and compare it with the server's record, read over HTTP with the
page's own cookies (``page.request``).
"""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
import time
from email.parser import BytesParser
from email.policy import default
from pathlib import Path
from typing import Any

PASSWORD = "correct horse battery staple"
OPERATOR_PASSWORD = "a long operator password"
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE}
AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
IDLE = "document.body.dataset.busy === 'false'"
LETTERS = {"orange": "O", "red": "R", "yellow": "Y", "green": "G", "blue": "B", "purple": "P"}
WIN_CUES = ("win", "big-win", "mega-win")
MAIL_WAIT_S = 2.0

OUTBOXES: dict[str, Path] = {}
"""Each running test server's outbox directory (its mails), by its base URL."""

Browser = Any  # conftest.Browser
Server = Any  # conftest.Server


# ------------------------------------------------------------------------------- basics


def money(pence: int) -> str:
    """£1,234.50 as the client shows it (an independent re-statement of the format)."""
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


def api(page: Any, path: str) -> Any:
    answer = page.request.get(path)
    assert answer.ok, f"GET {path}: {answer.status} {answer.text()}"
    return answer.json()


# ------------------------------------------------------------------------------- a player


def register(page: Any, email: str | None = None) -> str:
    email = email or f"player-{secrets.token_hex(4)}@example.com"
    page.goto("/")
    wait_idle(page, "account")
    tid(page, "register-email").fill(email)
    tid(page, "register-password").fill(PASSWORD)
    tid(page, "register-dob").fill("1990-04-01")
    tid(page, "register-submit").click()
    wait_idle(page, "check-email")
    confirm_by_mail(page, email)
    wait_idle(page, "lobby")
    return email


def mailed_link(page: Any, email: str, route: str = "confirm") -> str:
    """The link to ``#/<route>/TOKEN`` (a confirmation, or ``reset`` for a new password) in the
    newest mail with one that the page's server wrote for ``email``. A reset mail is sent just
    after the answer (decision 0009), so the outbox is read again for up to ``MAIL_WAIT_S``."""
    origin = "/".join(page.url.split("/")[:3])
    deadline = time.monotonic() + MAIL_WAIT_S
    while True:
        for path in sorted(OUTBOXES[origin].glob("*.eml"), reverse=True):
            mail = BytesParser(policy=default).parsebytes(path.read_bytes())
            if str(mail["To"]) == email:
                found = re.search(
                    rf"https?://\S+/#/{route}/[A-Za-z0-9_-]{{43}}", mail.get_body().get_content()
                )
                if found:
                    return found.group(0)
        if time.monotonic() > deadline:
            raise AssertionError(f"no mail to {email!r} with a #/{route}/ link")
        time.sleep(0.05)


def open_mailed_link(page: Any, email: str) -> None:
    """Open the mailed confirmation link as a player does: a fresh load of the game at that
    address, which asks for the registration's password."""
    origin = "/".join(page.url.split("/")[:3])
    link = mailed_link(page, email)
    assert link.startswith(origin + "/#/confirm/")
    # Leave the game's page first (for a page of the same origin: about:blank would deny the
    # test-speed switch its localStorage), so the link is a fresh load, not a hash change. The
    # browser asks for the JSON page's icon: /favicon.ico, which the game does not serve.
    page.watch.allow(404, r"^/favicon\.ico$")
    page.goto(origin + "/healthz")
    page.goto(link)
    wait_idle(page, "confirm")


def confirm_by_mail(page: Any, email: str, password: str = PASSWORD) -> None:
    """Open the mailed link and confirm with the registration's ``password`` (it logs in)."""
    open_mailed_link(page, email)
    tid(page, "confirm-password").fill(password)
    tid(page, "confirm-submit").click()


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


def act(page: Any, pick: str = "odd") -> str:
    """Take the next action of the play on screen (SPIN or a pick); returns the phase it was."""
    now = phase(page)
    if now == "bonus":
        tid(page, f"pick-{pick}").click()
    else:
        tid(page, "spin").click()
    page.wait_for_function(IDLE)
    return now


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


def play_until(page: Any, phases: tuple[str, ...]) -> str:
    """SPIN (and pick ODD) until the play is in one of ``phases``; returns that phase."""
    for _ in range(300):
        wait_idle(page)
        now = phase(page)
        if now in phases:
            return now
        if now == "over":
            raise AssertionError(f"the play ended before any of {phases}")
        act(page)
    raise AssertionError(f"never reached {phases}")


# ------------------------------------------------------------------------------- the screen


def marked_squares(page: Any, prefix: str = "cell") -> list[int]:
    """The squares marked as collected by the last spin."""
    found: list[int] = page.evaluate(
        f"""() => [...document.querySelectorAll('[data-testid^="{prefix}-"][data-collected=true]')]
                  .map((c) => Number(c.dataset.testid.slice({len(prefix) + 1})))"""
    )
    return sorted(found)


def gained_rows(page: Any) -> list[int]:
    """The Prize Table rows marked as filled by the last spin."""
    classes = [tid(page, f"prize-row-{i}").get_attribute("class") or "" for i in range(7)]
    return [i for i, names in enumerate(classes) if "gained" in names]


def check_board(page: Any, board: dict[str, Any]) -> None:
    """The screen matches a board the server returned."""
    for i, row in enumerate(board["prize_table"]):
        li = tid(page, f"prize-row-{i}")
        assert li.get_attribute("data-shape") == row["shape"]
        assert int(li.get_attribute("data-filled")) == row["filled"]
        assert li.get_attribute("data-colour") == (row["colour"] or "")
        assert text(page, f"prize-amount-{i}") == money(row["amount_pence"])
    assert tid(page, "spins-left").get_attribute("data-value") == str(board["spins_left"])
    assert tid(page, "bonus-game-box").get_attribute("data-count") == str(board["bonus_box"])
    assert tid(page, "prize-game-box").get_attribute("data-count") == str(board["prize_game_box"])
    assert tid(page, "wheel").get_attribute("data-colour") == board["wheel"]
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
    """The page needs no scrolling, is not zoomed out, and the game's controls are on screen."""
    sizes = page.evaluate(
        """() => {
            const m = document.querySelector('main');
            return {main: [m.scrollHeight, m.clientHeight, m.scrollWidth, m.clientWidth],
                    doc: [document.documentElement.scrollHeight, window.innerHeight,
                          document.documentElement.scrollWidth, window.innerWidth],
                    scale: window.visualViewport.scale};
        }"""
    )
    main, doc = sizes["main"], sizes["doc"]
    assert main[0] <= main[1] + 1 and main[2] <= main[3] + 1, sizes
    assert doc[0] <= doc[1] + 1 and doc[2] <= doc[3] + 1, sizes
    assert sizes["scale"] == 1, sizes
    viewport = page.viewport_size
    for name in ("spin", "grid", "prize-grid", "prize-table", "wheel", "bonus-game-box"):
        box = tid(page, name).bounding_box()
        if box is None:
            continue
        assert box["x"] >= 0 and box["y"] >= 0, (name, box)
        assert box["x"] + box["width"] <= viewport["width"] + 1, (name, box)
        assert box["y"] + box["height"] <= viewport["height"] + 1, (name, box)


OVERFLOW_JS = (Path(__file__).parent / "overflow.js").read_text(encoding="utf-8")


def check_no_overflow(page: Any, where: str) -> None:
    """No text spills out of its box, its parent's box or the window (measured on screen)."""
    problems = page.evaluate(OVERFLOW_JS)
    assert not problems, f"{where}: " + "; ".join(problems)


def axe_violations(page: Any) -> list[str]:
    """Serious and critical axe-core violations on the page as it is."""
    if not page.evaluate("typeof window.axe === 'object'"):
        # Evaluated through the browser's devtools protocol, which the page's
        # Content-Security-Policy (no inline scripts) does not govern, as a script tag would be.
        page.evaluate(AXE.read_text("utf-8") + "\n;undefined")
    results = page.evaluate(
        "async () => JSON.stringify(await axe.run(document, {resultTypes: ['violations']}))"
    )
    found = []
    for violation in json.loads(results)["violations"]:
        if violation["impact"] in ("serious", "critical"):
            targets = [", ".join(map(str, node["target"])) for node in violation["nodes"][:5]]
            found.append(f"{violation['id']} ({violation['impact']}): {targets}")
    return found


def check_axe(page: Any, where: str) -> None:
    found = axe_violations(page)
    assert not found, f"axe on {where}: " + "; ".join(found)


def focused(page: Any) -> dict[str, str]:
    """The focused element: its tag, its text and its test id."""
    info: dict[str, str] = page.evaluate(
        """() => { const a = document.activeElement;
                   return {tag: a.tagName, text: a.textContent.trim(),
                           testid: a.dataset.testid || ''}; }"""
    )
    return info


def check_heading_focused(page: Any, *expected: str) -> None:
    """Focus is on a visible screen's heading whose text contains one of ``expected``."""
    now = focused(page)
    assert now["tag"] in ("H1", "H2"), now
    assert any(e in now["text"] for e in expected), (now, expected)
    in_shown = page.evaluate(
        """() => { const a = document.activeElement;
                   const s = a.closest('section.screen, .overlay');
                   return !s || !s.hidden; }"""
    )
    assert in_shown, now


def check_screen(
    page: Any, browser: Browser, name: str, *headings: str, docs: str | None = None
) -> None:
    """On a new screen: focus on its heading, no overflow, no serious axe violation, a shot."""
    if headings:
        check_heading_focused(page, *headings)
    check_no_overflow(page, name)
    check_axe(page, name)
    browser.shot(page, name, docs=docs)


def make_operator(server: Any, name: str, role: str) -> None:
    """Add an operator with ``OPERATOR_PASSWORD`` through the CLI, as the operator would."""
    command = Path(sys.executable).parent / "colour-collector"
    done = subprocess.run(
        [str(command), "operator", "add", name, "--role", role, "--password-stdin"],
        input=OPERATOR_PASSWORD + "\n",
        env=server.env,
        cwd=server.data_dir.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def overlap(a: dict[str, float] | None, b: dict[str, float] | None) -> bool:
    """Whether two bounding boxes share any area."""
    assert a is not None and b is not None
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )
