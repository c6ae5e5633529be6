"""Player protection and the operator console in the browser: setting a deposit limit and being
refused over it, taking a time-out, seeing a reality check, the information before buying, and
an operator stopping and restarting sales while a play finishes. Each screen is checked with
axe-core (no serious or critical violation) on a desktop and a phone."""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import (
    OPERATOR_PASSWORD,
    VIEWPORTS,
    api,
    buy,
    check_axe,
    check_no_overflow,
    check_screen,
    deposit,
    finish,
    make_operator,
    money,
    phase,
    play_to_end,
    register,
    start_playing,
    text,
    tid,
    wait_idle,
)


def open_lobby_button(page: Any, name: str, screen: str) -> None:
    tid(page, name).click()
    wait_idle(page, screen)


@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_setting_a_limit_and_being_refused_over_it(
    browser: Any, start_server: Any, view: str
) -> None:
    server = start_server([])
    page = browser.new_page(server, VIEWPORTS[view])
    page.watch.allow(409, r"^/api/wallet/deposits$")
    register(page)
    open_lobby_button(page, "lobby-money", "money")
    # Asked before the first deposit: the deposit form waits for an answer.
    assert tid(page, "limit-question").is_visible() and not tid(page, "pay-in-form").is_visible()
    check_screen(page, browser, f"money-question-{view}", "Deposit, withdraw, history")
    tid(page, "limit-question-set").click()
    wait_idle(page, "protection")
    check_screen(page, browser, f"protection-{view}", "Limits, reality checks, breaks",
                 docs=f"protection-{view}")  # fmt: skip
    tid(page, "limit-daily").fill("30")
    tid(page, "limits-submit").click()
    wait_idle(page, "protection")
    assert text(page, "limit-daily-status") == "Limit £30.00: £0.00 deposited, £30.00 left."
    limits = api(page, "/api/protection")["deposit_limits"]
    assert limits[0]["amount_pence"] == 3000 and limits[0]["period"] == "daily"
    tid(page, "protection-back").click()
    wait_idle(page, "lobby")
    open_lobby_button(page, "lobby-money", "money")
    assert not tid(page, "limit-question").is_visible()
    tid(page, "payin-amount").select_option("2000")
    tid(page, "payin-submit").click()
    wait_idle(page, "money")
    assert text(page, "money-balance") == money(2000)
    tid(page, "payin-amount").select_option("2000")
    tid(page, "payin-submit").click()
    wait_idle(page, "money")
    refused = text(page, "payin-error")
    assert "daily deposit limit of £30.00: £20.00 deposited so far" in refused
    assert "You can deposit this amount from" in refused
    assert api(page, "/api/wallet")["balance_pence"] == 2000
    check_screen(page, browser, f"deposit-refused-{view}", docs=f"deposit-refused-{view}")
    # History lists the deposit; a raise waits 24 hours for a confirmation.
    assert tid(page, "history").locator("tbody tr").count() == 1
    tid(page, "money-back").click()
    wait_idle(page, "lobby")
    open_lobby_button(page, "lobby-protection", "protection")
    # A raise over the weekly limit entered with it is refused under its box; nothing is saved.
    tid(page, "limit-daily").fill("100")
    tid(page, "limit-weekly").fill("40")
    tid(page, "limits-submit").click()
    wait_idle(page, "protection")
    refused = page.locator("#limits-daily_pence-error")
    assert refused.inner_text() == (
        "A daily limit over a longer one could never be reached: enter £40.00 or less."
    )
    assert tid(page, "limit-daily").get_attribute("aria-invalid") == "true"
    kept = api(page, "/api/protection")["deposit_limits"]
    assert [(k["amount_pence"], k["pending"]) for k in kept] == [(3000, False), (None, False),
                                                                  (None, False)]  # fmt: skip
    tid(page, "limit-weekly").fill("")
    tid(page, "limits-submit").click()
    wait_idle(page, "protection")
    assert not refused.is_visible()
    assert "Change to £100.00 can be confirmed from" in text(page, "limit-daily-status")
    assert tid(page, "confirm-daily").count() == 0  # not before it can be confirmed
    # The box holds the change that waits; saving another limit keeps its time.
    assert tid(page, "limit-daily").input_value() == "100.00"
    waiting = api(page, "/api/protection")["deposit_limits"][0]
    server.forward(3600)
    tid(page, "limit-monthly").fill("500")
    tid(page, "limits-submit").click()
    wait_idle(page, "protection")
    after = api(page, "/api/protection")["deposit_limits"]
    assert after[0]["confirmable_at"] == waiting["confirmable_at"]
    assert after[2]["amount_pence"] == 50_000
    # Lowering the weekly under the daily the player has already goes through: it binds.
    tid(page, "limit-weekly").fill("20")
    tid(page, "limits-submit").click()
    wait_idle(page, "protection")
    assert not page.locator("#limits-daily_pence-error").is_visible()
    assert text(page, "limit-weekly-status").startswith("Limit £20.00")
    server.forward(23 * 3600 + 60)
    tid(page, "protection-back").click()
    wait_idle(page, "lobby")
    open_lobby_button(page, "lobby-protection", "protection")
    tid(page, "confirm-daily").click()
    wait_idle(page, "protection")
    assert text(page, "limit-daily-status").startswith("Limit £100.00")


def test_an_ended_self_exclusion_waits_for_the_player_to_ask_to_play_again(
    browser: Any, start_server: Any
) -> None:
    year = str(400 * 24 * 3600)  # a session that outlasts the clock's jump
    server = start_server(
        [None],
        {"COLOUR_COLLECTOR_SESSION_IDLE_TIMEOUT": year, "COLOUR_COLLECTOR_SESSION_LIFETIME": year},
    )
    page = browser.new_page(server)
    register(page)
    open_lobby_button(page, "lobby-protection", "protection")
    assert tid(page, "return-form").is_hidden()
    tid(page, "exclusion-confirm").check()
    tid(page, "exclusion-submit").click()
    wait_idle(page, "protection")
    assert text(page, "protection-break").startswith("You have excluded yourself until")
    assert tid(page, "return-form").is_hidden()  # nothing can lift it during its term
    server.forward(190 * 24 * 3600)
    tid(page, "protection-back").click()
    wait_idle(page, "lobby")
    assert text(page, "lobby-break").startswith("Your self-exclusion ended on")
    assert tid(page, "buy").is_hidden()
    open_lobby_button(page, "lobby-protection", "protection")
    assert "stays in place until you ask to play again" in text(page, "protection-break")
    tid(page, "return-submit").click()  # not confirmed: said at once
    wait_idle(page, "protection")
    assert "Tick the box" in text(page, "return-error")
    tid(page, "return-confirm").check()
    tid(page, "return-submit").click()
    wait_idle(page, "protection")
    assert "you asked to play again" in text(page, "protection-break")
    assert tid(page, "return-form").is_hidden()
    check_axe(page, "an ended self-exclusion")
    assert api(page, "/api/protection")["exclusion"]["returns_at"] is not None


def test_the_console_says_an_ended_self_exclusion_is_still_in_place(
    browser: Any, start_server: Any
) -> None:
    """Support must not read "self-exclusion ... to <a date past>" as over: its term has
    ended, but it holds until the player asks to play again, and a day after."""
    server = start_server([])
    make_operator(server, "mia", "support")
    player = browser.new_page(server)
    email = register(player)
    open_lobby_button(player, "lobby-protection", "protection")
    tid(player, "exclusion-confirm").check()
    tid(player, "exclusion-submit").click()
    wait_idle(player, "protection")
    assert text(player, "protection-break").startswith("You have excluded yourself until")
    server.forward(190 * 24 * 3600)
    console = browser.new_page(server)
    console_login(console, "mia")
    tid(console, "lookup-query").fill(email)
    tid(console, "lookup-submit").click()
    tid(console, "player-file").wait_for(state="visible")
    assert "in place until the player asks to play again" in text(console, "player-file")


def test_taking_a_time_out(browser: Any, start_server: Any) -> None:
    server = start_server([None, None])
    page = browser.new_page(server)
    register(page)
    deposit(page, 2000)
    number = buy(page)
    start_playing(page)
    tid(page, "spin").click()
    wait_idle(page)
    tid(page, "nav-lobby").click()
    wait_idle(page, "lobby")
    open_lobby_button(page, "lobby-protection", "protection")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if "/api/protection/" in r.url else None)
    tid(page, "timeout-days").select_option("7")
    tid(page, "timeout-submit").click()  # not confirmed yet: said at once, nothing sent
    wait_idle(page, "protection")
    assert "Tick the box" in text(page, "timeout-error")
    tid(page, "exclusion-submit").click()
    wait_idle(page, "protection")
    assert "Tick the box" in text(page, "exclusion-error")
    assert sent == []
    assert api(page, "/api/protection")["exclusion"] is None
    tid(page, "timeout-confirm").check()
    tid(page, "timeout-submit").click()
    wait_idle(page, "protection")
    notice = text(page, "protection-break")
    assert notice.startswith("You are taking a time-out until")
    said = "document.querySelector('[data-testid=live]').textContent.startsWith('You are taking')"
    page.wait_for_function(said)
    assert text(page, "live") == notice  # what is in force is what is said
    check_screen(page, browser, "time-out-taken", docs="time-out")
    # The play in progress may still be finished, and pays.
    tid(page, "nav-my-games").click()
    wait_idle(page, "mygames")
    tid(page, f"continue-{number}").click()
    wait_idle(page)
    play_to_end(page)
    finish(page, number, api(page, "/api/wallet")["balance_pence"])
    # A new play would be refused: no Buy is offered, and the purchase screen (by its
    # address) says so before Confirm, which it disables.
    assert tid(page, "mg-play-again").is_hidden()
    page.evaluate("window.location.hash = '#/buy'")
    wait_idle(page, "purchase")
    assert text(page, "purchase-warning").startswith("You are taking a time-out until")
    assert tid(page, "purchase-confirm").is_disabled()
    assert api(page, "/api/plays/quote")["refused"]["code"] == "timed_out"
    check_axe(page, "purchase during a time-out")
    tid(page, "purchase-cancel").click()
    wait_idle(page, "lobby")
    assert text(page, "lobby-break") == notice
    assert not tid(page, "deposit-form").is_visible()  # no test money during a break
    assert tid(page, "buy").is_hidden() and tid(page, "lobby-try").is_hidden()
    open_lobby_button(page, "lobby-money", "money")
    assert text(page, "money-break") == notice
    assert not tid(page, "pay-in-form").is_visible()
    assert tid(page, "pay-out-form").is_visible()  # the balance can still be withdrawn
    # A shorter time-out taken during it changes nothing, and the player is told the week holds.
    ends_at = api(page, "/api/protection")["exclusion"]["ends_at"]
    tid(page, "money-back").click()
    wait_idle(page, "lobby")
    open_lobby_button(page, "lobby-protection", "protection")
    tid(page, "timeout-days").select_option("1")
    tid(page, "timeout-confirm").check()
    page.evaluate("document.querySelector('[data-testid=live]').textContent = ''")
    tid(page, "timeout-submit").click()
    wait_idle(page, "protection")
    page.wait_for_function(said)
    assert text(page, "live") == notice
    assert api(page, "/api/protection")["exclusion"]["ends_at"] == ends_at
    # During it a limit can be set, not raised; the form says why.
    page.watch.allow(403, r"^/api/protection/deposit-limits$")
    for amount in ("30", "60"):
        tid(page, "limit-daily").fill(amount)
        tid(page, "limits-submit").click()
        wait_idle(page, "protection")
    assert text(page, "limits-error").endswith(
        "During a break a deposit limit can be lowered, not raised or removed."
    )
    assert api(page, "/api/protection")["deposit_limits"][0]["amount_pence"] == 3000


def test_saving_reality_checks_says_so(browser: Any, start_server: Any) -> None:
    """Saving the reality check interval is said under its button, where the player looks."""
    server = start_server([])
    page = browser.new_page(server, VIEWPORTS["phone"])
    register(page)
    open_lobby_button(page, "lobby-protection", "protection")
    status = tid(page, "reality-status")
    assert not status.is_visible()
    tid(page, "reality-interval").select_option("30")
    tid(page, "reality-submit").click()
    wait_idle(page, "protection")
    assert status.is_visible()
    assert text(page, "reality-status") == "Saved: reality checks every 30 minutes."
    assert api(page, "/api/protection/reality-check")["interval_minutes"] == 30
    check_no_overflow(page, "reality checks saved")
    tid(page, "reality-interval").select_option("120")
    assert not status.is_visible()  # unsaid once the choice changes


def test_seeing_a_reality_check(browser: Any, start_server: Any) -> None:
    server = start_server([None, None])
    page = browser.new_page(server)
    register(page)
    deposit(page, 2000)
    number = buy(page)
    start_playing(page)
    play_to_end(page)
    finish(page, number, 1500)
    tid(page, "nav-lobby").click()
    wait_idle(page, "lobby")
    server.forward(61 * 60)
    # A check due is not put off unseen by a longer interval: the screen says so.
    page.watch.allow(409, r"^/api/protection/reality-check/interval$")
    open_lobby_button(page, "lobby-protection", "protection")
    tid(page, "reality-interval").select_option("120")
    tid(page, "reality-submit").click()
    wait_idle(page, "protection")
    assert text(page, "reality-status") == (
        "A reality check is due: you will see it before your next play. Choose a longer"
        " interval after it."
    )
    assert api(page, "/api/protection/reality-check")["interval_minutes"] == 60
    tid(page, "nav-lobby").click()
    wait_idle(page, "lobby")
    tid(page, "buy").click()
    wait_idle(page, "reality")
    assert text(page, "reality-time") == "1 hour 1 minute"
    assert text(page, "reality-net") == "-£5.00"
    assert "Staked £5.00, won £0.00 since you logged in" in text(page, "reality-detail")
    check_screen(page, browser, "reality-check", "Reality check", docs="reality-check")
    tid(page, "reality-continue").click()
    wait_idle(page, "purchase")
    assert not api(page, "/api/protection/reality-check")["due"]
    tid(page, "purchase-confirm").click()
    wait_idle(page, "start")
    assert phase(page) == "start"


@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_information_before_buying(browser: Any, start_server: Any, view: str) -> None:
    server = start_server([])
    page = browser.new_page(server, VIEWPORTS[view])
    page.goto("/")
    wait_idle(page, "account")
    tid(page, "info-open").click()
    wait_idle(page, "info")
    assert (text(page, "info-odds"), text(page, "info-payout")) == ("1 in 2.77", "73.50%")
    rows = tid(page, "info-prizes").locator("tbody tr")
    assert rows.count() == 99
    assert rows.first.inner_text().split("\t") == ["£5", "6"]
    check_screen(page, browser, f"information-{view}", "Prizes, odds and Game Procedures",
                 docs=f"information-{view}")  # fmt: skip
    tid(page, "info-procedures").locator("summary").click()
    assert "The expected prize payout percentage for this game is 73.50%." in text(
        page, "info-procedures-text"
    )
    check_axe(page, f"the Game Procedures ({view})")
    tid(page, "info-back").click()
    wait_idle(page, "account")


def console_login(page: Any, name: str) -> None:
    page.watch.allow(401, r"^/api/operator/me$")
    page.goto("/operator/")
    page.wait_for_function(
        "document.body.dataset.view === 'login' && document.body.dataset.busy === 'false'"
    )
    tid(page, "console-name").fill(name)
    tid(page, "console-password").fill(OPERATOR_PASSWORD)
    tid(page, "console-login-submit").click()
    page.wait_for_function(
        "document.body.dataset.view === 'dashboard' && document.body.dataset.busy === 'false'"
    )


def switch_sales(console: Any, reason: str, *, on_sale: bool) -> None:
    """Press the console's sales switch with ``reason`` and wait until it shows ``on_sale``."""
    tid(console, "sales-reason").fill(reason)
    tid(console, "sales-switch").click()
    state = "true" if on_sale else "false"
    console.wait_for_function(
        f"document.querySelector('[data-testid=sales-state]').dataset.on === '{state}'"
    )


def test_the_operator_stops_and_restarts_sales_while_a_play_finishes(
    browser: Any, start_server: Any
) -> None:
    view = "desktop"  # the console on a phone: test_console_look_up_audit_and_tables
    server = start_server(["£10", None])
    make_operator(server, "mia", "manager")
    player = browser.new_page(server)
    player.watch.allow(503, r"^/api/plays$")
    register(player)
    deposit(player, 2000)
    number = buy(player)
    start_playing(player)
    tid(player, "spin").click()
    wait_idle(player)

    console = browser.new_page(server, VIEWPORTS[view])
    console_login(console, "mia")
    assert text(console, "sales-state") == "On sale"
    # The play in progress is in no figure of its outcome: none is measured before a finish.
    assert text(console, "payout-line").startswith("No play has finished yet")
    check_no_overflow(console, "console")
    check_axe(console, f"console dashboard ({view})")
    browser.shot(console, f"console-{view}", docs=f"console-{view}")
    switch_sales(console, "Checking the prize pool", on_sale=False)
    assert "Stopped by mia" in text(console, "sales-changed")
    check_axe(console, f"console, sales stopped ({view})")

    # The play in progress goes on, finishes and pays; the next purchase is refused.
    play_to_end(player)
    finish(player, number, 1500)
    assert api(player, "/api/wallet")["balance_pence"] == 2500
    assert tid(player, "mg-play-again").is_hidden()
    tid(player, "nav-lobby").click()
    wait_idle(player, "lobby")
    assert tid(player, "buy").is_hidden()
    assert text(player, "lobby-break").startswith("Colour Collector is not on sale")
    assert tid(player, "lobby-try").is_visible()  # a Try costs nothing and is not a sale
    player.evaluate("window.location.hash = '#/buy'")
    wait_idle(player, "purchase")
    assert text(player, "purchase-warning").startswith("Colour Collector is not on sale")
    assert tid(player, "purchase-confirm").is_disabled()

    switch_sales(console, "Pool checked", on_sale=True)
    figures = text(console, "figures-summary")
    assert figures.startswith("1 plays sold (0 in progress)")
    assert text(console, "payout-line").startswith("Payout of the finished plays 200.00%")
    # Stopped while the player looks at the purchase screen: Confirm is refused, nothing paid.
    tid(player, "purchase-cancel").click()
    wait_idle(player, "lobby")
    tid(player, "buy").click()
    wait_idle(player, "purchase")
    assert tid(player, "purchase-warning").is_hidden()
    switch_sales(console, "Checking again", on_sale=False)
    tid(player, "purchase-confirm").click()
    wait_idle(player, "purchase")
    assert text(player, "alert").startswith("Colour Collector is not on sale at the moment")
    assert api(player, "/api/wallet")["balance_pence"] == 2500
    switch_sales(console, "Checked", on_sale=True)
    tid(player, "purchase-confirm").click()
    wait_idle(player, "start")
    assert api(player, "/api/wallet")["balance_pence"] == 2000


def test_console_look_up_audit_and_tables(browser: Any, start_server: Any) -> None:
    server = start_server([])
    make_operator(server, "mia", "manager")
    player = browser.new_page(server)
    email = register(player)
    console = browser.new_page(server)
    console_login(console, "mia")
    tid(console, "lookup-query").fill(email)
    tid(console, "lookup-submit").click()
    tid(console, "player-file").wait_for(state="visible")
    assert email in text(console, "player-file")
    tid(console, "audit-verify").click()
    console.wait_for_function(
        "document.querySelector('[data-testid=audit-last]').textContent.includes('intact')"
    )
    check_axe(console, "console after a look-up")
    browser.shot(console, "console-lookup")
    for table in ("accounts", "plays", "ledger", "audit"):
        console.goto(f"/operator/tables/{table}/list")
        console.wait_for_load_state("load")
        check_axe(console, f"tables: {table}")
    browser.shot(console, "console-tables", docs="console-tables")
    # On a phone (the wide tables scroll sideways in their own box, so no overflow check).
    phone = browser.new_page(server, VIEWPORTS["phone"])
    console_login(phone, "mia")
    check_axe(phone, "console dashboard (phone)")
    browser.shot(phone, "console-phone", docs="console-phone")
    tid(phone, "lookup-query").fill(email)
    tid(phone, "lookup-submit").click()
    tid(phone, "player-file").wait_for(state="visible")
    check_axe(phone, "console after a look-up (phone)")
