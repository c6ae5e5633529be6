"""What a player's hands and a flaky connection do: a double click on a money button, Back while
HOW TO PLAY is open, and answers lost on the way back (the request reached the server, the
answer did not). Money moves once, the screen shows what the server has, and an alert about the
connection goes once a later action goes through.

A lost answer is made with ``page.route``: the request is sent on to the server
(``route.fetch()``), then the browser is told it failed (``route.abort()``).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from e2e_support import (
    PASSWORD,
    PHONE,
    Browser,
    api,
    buy,
    check_board,
    check_heading_focused,
    deposit,
    finish,
    marked_squares,
    money,
    phase,
    play_to_end,
    register,
    start_playing,
    text,
    tid,
    wait_idle,
)

pytestmark = pytest.mark.e2e
NO_SERVER = "The game could not reach the server"
STEPS = re.compile(r"/api/plays/[^/]+/steps$")
PURCHASE = re.compile(r"/api/plays$")
DEPOSITS = re.compile(r"/api/wallet/deposits$")


def lose_answer(route: Any) -> None:
    """The request reaches the server; its answer never reaches the page."""
    route.fetch()
    route.abort()


def lose_posted_answer(route: Any) -> None:
    if route.request.method == "POST":
        lose_answer(route)
    else:
        route.continue_()


def shown_balance(page: Any, pence: int) -> None:
    page.wait_for_function(
        f"document.querySelector('[data-testid=balance]').dataset.pence === '{pence}'"
    )


def pay_in(page: Any, pence: int) -> None:
    """Deposit ``pence`` on the money screen (one click)."""
    tid(page, "payin-amount").select_option(str(pence))
    tid(page, "payin-submit").click()
    wait_idle(page, "money")


def test_a_double_click_moves_money_once(start_server: Any, browser: Browser) -> None:
    """A double click on Add test money, Deposit or Withdraw moves the money once; a deposit
    sent again after its answer was lost is the same deposit (its Idempotency-Key is kept until
    it has gone through, on that screen); the next one, or one after the screen is drawn again,
    is a new deposit."""
    server = start_server([])
    page = browser.new_page(server)
    page.watch.allow_failure(r"^/api/wallet/deposits$")
    register(page)
    tid(page, "deposit-amount").select_option("1000")
    tid(page, "deposit-submit").dblclick()
    wait_idle(page, "lobby")
    assert api(page, "/api/wallet")["balance_pence"] == 1000
    shown_balance(page, 1000)

    tid(page, "lobby-money").click()
    wait_idle(page, "money")
    tid(page, "limit-question-decline").click()
    wait_idle(page, "money")
    tid(page, "payin-amount").select_option("2000")
    tid(page, "payin-submit").dblclick()
    wait_idle(page, "money")
    assert api(page, "/api/wallet")["balance_pence"] == 3000
    assert text(page, "money-balance") == money(3000)
    tid(page, "payout-amount").fill("5")
    tid(page, "payout-submit").dblclick()
    wait_idle(page, "money")
    wallet = api(page, "/api/wallet")
    assert wallet["balance_pence"] == 2500
    assert [m["amount_pence"] for m in wallet["movements"]] == [-500, 2000, 1000]
    assert tid(page, "history").locator("tbody tr").count() == 3
    assert text(page, "money-balance") == money(2500)

    # The deposit's answer is lost: sent again, it is the same deposit.
    page.route(DEPOSITS, lose_answer, times=1)
    pay_in(page, 1000)
    assert NO_SERVER in text(page, "payin-error")
    assert api(page, "/api/wallet")["balance_pence"] == 3500  # it went through
    pay_in(page, 1000)  # the same amount again
    assert api(page, "/api/wallet")["balance_pence"] == 3500
    assert text(page, "money-balance") == money(3500)
    assert tid(page, "history").locator("tbody tr").count() == 4
    pay_in(page, 1000)  # a new deposit of the same amount
    assert api(page, "/api/wallet")["balance_pence"] == 4500
    assert tid(page, "history").locator("tbody tr").count() == 5

    # A lost answer not sent again: once the screen is drawn again (the player has seen the
    # balance and history), the same amount is another deposit, not the lost one again.
    page.route(DEPOSITS, lose_answer, times=1)
    pay_in(page, 1000)
    assert api(page, "/api/wallet")["balance_pence"] == 5500  # it went through
    tid(page, "money-back").click()
    wait_idle(page, "lobby")
    tid(page, "lobby-money").click()
    wait_idle(page, "money")
    pay_in(page, 1000)
    assert api(page, "/api/wallet")["balance_pence"] == 6500
    assert tid(page, "history").locator("tbody tr").count() == 7


def test_back_closes_how_to_play(start_server: Any, browser: Browser) -> None:
    """Back from a Try's HOW TO PLAY goes to the lobby with the panel closed; Forward opens the
    Try again, whose HOW TO PLAY still leads to its Main Game with the TRY banner."""
    server = start_server([None, None])
    page = browser.new_page(server)
    register(page)
    tid(page, "lobby-try").click()
    wait_idle(page, "start")
    tid(page, "how-to-play").click()
    assert tid(page, "how-to").is_visible()
    page.go_back()
    wait_idle(page, "lobby")
    assert not tid(page, "how-to").is_visible()
    assert page.evaluate("document.body.dataset.overlay") is None
    assert not tid(page, "try-banner").is_visible()
    check_heading_focused(page, "Your account")

    page.go_forward()
    wait_idle(page, "start")
    assert tid(page, "try-banner").is_visible()
    tid(page, "how-to-play").click()
    tid(page, "how-to-close").click()
    wait_idle(page, "main")
    assert page.url.endswith("#/try")
    assert tid(page, "try-banner").is_visible()


def test_a_lost_step_answer_is_shown_by_the_next_spin(start_server: Any, browser: Browser) -> None:
    """A spin whose every answer was lost: the alert says the server could not be reached; the
    next SPIN reloads the play and shows the spin the server took (nothing more revealed, no
    word of another tab), the alert goes, and the SPIN after it spins."""
    server = start_server([None])
    page = browser.new_page(server)
    page.watch.allow_failure(r"^/api/plays/[^/]+/steps$")
    register(page)
    deposit(page, 500)
    number = buy(page)
    start_playing(page)
    alert = tid(page, "alert")

    # Lost before the server had it: the next SPIN spins.
    page.route(STEPS, lambda route: route.abort(), times=3)
    tid(page, "spin").click()
    wait_idle(page, "main")
    assert NO_SERVER in text(page, "alert")
    assert api(page, f"/api/plays/{number}")["board"]["revealed"] == 0
    tid(page, "spin").click()
    wait_idle(page, "main")
    assert api(page, f"/api/plays/{number}")["board"]["revealed"] == 1
    assert not alert.is_visible()  # the connection is back: the alert has gone

    # Lost after the server revealed it (the first try and both retries).
    page.route(STEPS, lose_answer, times=3)
    tid(page, "spin").click()
    wait_idle(page, "main")
    assert NO_SERVER in text(page, "alert")
    assert api(page, f"/api/plays/{number}")["board"]["revealed"] == 2
    tid(page, "spin").click()
    wait_idle(page)
    record = api(page, f"/api/plays/{number}")
    assert record["board"]["revealed"] == 2  # this SPIN showed the lost spin
    assert phase(page) == record["board"]["phase"] == "main"
    check_board(page, record["board"])
    assert marked_squares(page) == sorted(record["last"]["step"]["collected"])
    assert not alert.is_visible()  # neither the old alert nor "moved on in another tab"
    tid(page, "spin").click()
    wait_idle(page)
    assert api(page, f"/api/plays/{number}")["board"]["revealed"] == 3
    assert not alert.is_visible()


def test_a_lost_purchase_answer_shows_the_new_balance(start_server: Any, browser: Browser) -> None:
    """Confirm whose answer was lost: the purchase screen shows the balance after the £5 the
    server took and the play it sold; Confirm then opens that play and takes nothing more."""
    server = start_server([None])
    page = browser.new_page(server)
    page.watch.allow_failure(r"^/api/plays$")
    register(page)
    deposit(page, 1000)
    tid(page, "buy").click()
    wait_idle(page, "purchase")
    page.route(PURCHASE, lose_posted_answer)
    tid(page, "purchase-confirm").click()
    wait_idle(page, "purchase")
    page.unroute(PURCHASE)
    assert NO_SERVER in text(page, "alert")
    number = api(page, "/api/plays/quote")["unfinished"]["play_number"]
    assert api(page, "/api/wallet")["balance_pence"] == 500
    assert text(page, "purchase-balance") == money(500)
    shown_balance(page, 500)
    assert number in text(page, "purchase-warning")
    tid(page, "purchase-confirm").click()
    wait_idle(page, "start")
    assert not tid(page, "alert").is_visible()
    assert api(page, "/api/wallet")["balance_pence"] == 500
    assert api(page, "/api/plays/quote")["unfinished"]["play_number"] == number
    start_playing(page)


def test_a_play_whose_try_or_login_has_gone(start_server: Any, browser: Browser) -> None:
    """A free Try kept past its two days, and a purchased play whose login ended elsewhere (a
    log out in another tab): SPIN and FINISH do not leave a dead game on screen, its SPIN
    refusing again and again ("That play is not in your account." for a Try, which has no
    account). The expired Try is said and done with; the purchased play goes to the log-in
    screen, and logging in again resumes it where it was."""
    server = start_server([None, None])
    page = browser.new_page(server, PHONE)
    page.watch.allow(404, r"^/api/try/[^/]+/steps$")
    page.watch.allow(401, r"^/api/plays/[^/]+/(steps|finish)$")
    page.goto("/")
    wait_idle(page, "account")
    tid(page, "try-start").click()
    wait_idle(page, "start")
    start_playing(page)
    tid(page, "spin").click()
    wait_idle(page, "main")
    # Three days on, a new Try (anyone's) clears the Try plays older than two days.
    server.forward(3 * 24 * 3600)
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "cc_csrf")
    started = page.request.post(
        "/api/try", data="{}", headers={"Content-Type": "application/json", "X-CSRF-Token": csrf}
    )
    assert started.status == 201
    tid(page, "spin").click()
    wait_idle(page, "account")
    assert text(page, "alert").startswith("This free Try has expired"), text(page, "alert")
    assert not tid(page, "try-banner").is_visible()
    assert page.evaluate("sessionStorage.getItem('cc_try_id')") is None

    register(page)
    deposit(page, 1000)
    play_number = buy(page)
    start_playing(page)
    tid(page, "spin").click()
    wait_idle(page, "main")
    email = api(page, "/api/me")["email"]

    def log_out_elsewhere() -> None:
        other = browser.watch(page.context.new_page())  # another tab: the same login
        other.goto("/")
        wait_idle(other)
        other.evaluate("document.querySelector('[data-testid=logout]').click()")
        wait_idle(other, "account")
        other.close()

    def log_in_again(expected: str) -> None:
        assert text(page, "alert") == "You are logged out. Log in again to go on."
        assert not tid(page, "balance").is_visible()  # not the player's balance and play
        tid(page, "login-email").fill(email)
        tid(page, "login-password").fill(PASSWORD)
        tid(page, "login-submit").click()
        wait_idle(page, expected)  # the play resumed where it was
        check_board(page, api(page, f"/api/plays/{play_number}")["board"])

    log_out_elsewhere()
    tid(page, "spin").click()
    wait_idle(page, "account")
    log_in_again("main")
    revealed = api(page, f"/api/plays/{play_number}")["board"]["revealed"]
    assert revealed == 1  # the refused SPIN revealed nothing
    play_to_end(page)
    log_out_elsewhere()
    tid(page, "finish").click()
    wait_idle(page, "account")
    log_in_again("over")
    assert (
        api(page, "/api/my-games")["items"][0]["status"] == "in_progress"
    )  # the refused FINISH settled nothing
    finish(page, play_number, 500)
