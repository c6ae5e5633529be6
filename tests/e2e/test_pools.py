"""Prize pools in the browser: the start screen and the lobby show the pool on sale (plays and
top prizes left, its commitment); a player checks their play of a closed pool against the
published secret, and a wrong secret is caught. Desktop and phone, axe on every new screen."""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import (
    VIEWPORTS,
    Browser,
    api,
    buy,
    check_screen,
    deposit,
    finish,
    play_to_end,
    register,
    start_playing,
    text,
    tid,
    wait_idle,
)
from typer.testing import CliRunner

from colour_collector.cli.app import app as cli
from colour_collector.server.settings import Settings
from colour_collector.service import pools
from colour_collector.store import Database
from pool_support import small_pool

pytestmark = pytest.mark.e2e

POOL_MODE = {"COLOUR_COLLECTOR_DRAW_MODE": "pool"}


def pool_command(server: Any, *args: str) -> str:
    """``colour-collector pool ...`` on the server's database and key (its settings), run in
    this process as in ``test_cli_pool.py``; its output."""
    done = CliRunner().invoke(cli, ["pool", *args], env=server.env)
    assert done.exit_code == 0, done.output
    return done.stdout


def load_pool(server: Any, plays: int, counts: dict[str, int]) -> dict[str, Any]:
    """Build a small pool here and load it into the server's database as ``pool load`` does
    (``pools.load``, sealed with the server's key); the pool as ``GET /api/pools/current`` shows
    it. (``pool build`` and ``pool load`` are tested in test_cli_pool.py.)"""
    settings = Settings(
        data_dir=server.data_dir, secret_key=server.env["COLOUR_COLLECTOR_SECRET_KEY"]
    )
    database = Database(settings.resolved_database_url)
    try:
        pools.load(database, small_pool(plays, counts), settings.pool_key, published_only=False)
    finally:
        database.dispose()
    current: dict[str, Any] = server.api("/api/pools/current")["pool"]
    return current


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_start_screen_shows_the_pool_on_sale(
    start_server: Any, browser: Browser, viewport: str
) -> None:
    server = start_server([], POOL_MODE)
    pool = load_pool(server, 30, {"£5": 5, "£1,000,000": 1, "£2,000": 1})
    page = browser.new_page(server, VIEWPORTS[viewport])
    register(page)
    deposit(page, 2000)
    lobby = tid(page, "pool-info-lobby")
    lobby.wait_for(state="visible")
    assert text(page, "pool-left-lobby") == "30 of 30 plays left"
    # 30 plays open: how many top prizes are left would tell something of the next ones, so
    # the server withholds it and the panel says how many the pool holds.
    tops = page.get_by_role("table", name="Top prizes").get_by_role("row")
    assert [" ".join(row.split()) for row in tops.all_inner_texts()] == [
        "£1,000,000 1 in the pool",
        "£2,000 1 in the pool",
    ]
    assert "how many are left is not shown" in text(page, "pool-tops-withheld-lobby")
    check_screen(page, browser, f"lobby-pool-{viewport}")
    buy(page)
    panel = tid(page, "pool-info-start")
    panel.wait_for(state="visible")
    assert page.get_by_role("heading", name="Prize pool 1").is_visible()
    assert text(page, "pool-left-start") == "29 of 30 plays left"
    assert text(page, "pool-commitment-start") == pool["commitment"]
    # 29 plays to sell and this one in progress: still withheld.
    left = server.api("/api/pools/current")["pool"]["top_prizes"]
    assert [(t["tier"], t["total"], t["left"]) for t in left] == [
        ("£1,000,000", 1, None),
        ("£2,000", 1, None),
    ]
    tops = page.get_by_role("table", name="Top prizes").get_by_role("row")
    assert [" ".join(row.split()) for row in tops.all_inner_texts()] == [
        "£1,000,000 1 in the pool",
        "£2,000 1 in the pool",
    ]
    assert "how many are left is not shown" in text(page, "pool-tops-withheld-start")
    check_screen(page, browser, f"start-pool-{viewport}", "Colour Collector")
    mine = api(page, "/api/plays/current")["play"]
    assert (mine["pool_id"], mine["pool_position"]) == (1, 0)


def test_the_lobby_says_the_pools_are_sold_out_instead_of_offering_a_purchase(
    start_server: Any, browser: Browser
) -> None:
    """The quote's ``refused`` carries ``sold_out``: Buy gives way to the notice (as when sales
    are stopped), a Try is still offered, and the purchase screen cannot confirm."""
    server = start_server([], POOL_MODE)  # no pool loaded: nothing on sale
    page = browser.new_page(server, VIEWPORTS["desktop"])
    register(page)
    deposit(page, 2000)
    notice = "Colour Collector has sold out: no plays are left until the next prize pool opens."
    assert text(page, "lobby-break") == notice
    assert tid(page, "buy").is_hidden() and tid(page, "lobby-try").is_visible()
    page.evaluate("window.location.hash = '#/buy'")
    wait_idle(page, "purchase")
    assert text(page, "purchase-warning") == notice
    assert tid(page, "purchase-confirm").is_disabled()
    assert api(page, "/api/wallet")["balance_pence"] == 2000


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_player_checks_their_play_against_the_published_secret(
    start_server: Any, browser: Browser, viewport: str
) -> None:
    server = start_server([], POOL_MODE)
    load_pool(server, 3, {"£14 (£6 + £8)": 1, "£5": 1})
    page = browser.new_page(server, VIEWPORTS[viewport])
    register(page)
    deposit(page, 2000)
    number = buy(page)
    start_playing(page)
    play_to_end(page)
    finish(page, number, 1500)
    assert text(page, f"game-pool-{number}") == "Pool 1, position 0"
    closed = pool_command(server, "close", "1", "--withdraw")
    secret = api(page, "/api/pools/1")["secret"]
    assert f"Secret:      {secret}" in closed
    tid(page, f"recall-{number}").click()
    wait_idle(page, "recall")
    assert text(page, "recall-pool-text") == "Pool 1, position 0."
    tid(page, "recall-check").click()
    wait_idle(page, "check")
    tid(page, "check-result").wait_for(state="visible")
    assert tid(page, "check-secret").input_value() == secret
    verdicts = tid(page, "check-verdict")
    assert verdicts.count() == 3
    assert [verdicts.nth(i).get_attribute("data-ok") for i in range(3)] == ["true"] * 3
    # The commitment is the one this browser was shown in the lobby while the pool was on sale.
    assert "is the one this browser was shown on" in verdicts.nth(0).inner_text()
    assert "matches the commitment" in verdicts.nth(1).inner_text()
    recalled = api(page, f"/api/my-games/{number}")
    assert f"Your play {number} is this play" in verdicts.nth(2).inner_text()
    assert text(page, "check-fact-record-sha-") == recalled["record_sha256"]
    grid = page.get_by_role("list", name="The play's starting grid").get_by_role("listitem")
    assert grid.count() == len(recalled["start"]["grid"])
    check_screen(page, browser, f"check-{viewport}", "Result")
    # A secret that is not the pool's is caught in the browser.
    wrong = ("0" if secret[0] != "0" else "1") + secret[1:]
    tid(page, "check-secret").fill(wrong)
    tid(page, "check-submit").click()
    wait_idle(page, "check")
    assert tid(page, "check-verdict").count() == 2
    refused = tid(page, "check-verdict").nth(1)
    assert refused.get_attribute("data-ok") == "false"
    assert "does not match the commitment" in refused.inner_text()
    assert not tid(page, "check-grid").is_visible()
    check_screen(page, browser, f"check-wrong-{viewport}", "Result")
    # A commitment that is not the one this browser was shown on sale is caught first: here the
    # browser's memory is altered, as a server that changed its commitment would look.
    page.evaluate(
        """() => { const all = JSON.parse(localStorage.getItem('cc_commitments'));
                   all['1'].commitment = 'ab'.repeat(32);
                   localStorage.setItem('cc_commitments', JSON.stringify(all)); }"""
    )
    tid(page, "check-secret").fill(secret)
    tid(page, "check-submit").click()
    wait_idle(page, "check")
    assert tid(page, "check-verdict").count() == 1
    changed = tid(page, "check-verdict").nth(0)
    assert changed.get_attribute("data-ok") == "false"
    assert "has changed since" in changed.inner_text() and "ab" * 32 in changed.inner_text()
    # A browser that never saw the pool on sale vouches for the secret against the commitment
    # the server gives now, not for that commitment having been published before the sale.
    page.evaluate("() => localStorage.removeItem('cc_commitments')")
    tid(page, "check-submit").click()
    wait_idle(page, "check")
    verdicts = tid(page, "check-verdict")
    assert [verdicts.nth(i).get_attribute("data-ok") for i in range(3)] == ["null", "true", "true"]
    assert "cannot vouch for the commitment" in verdicts.nth(0).inner_text()
    matched = verdicts.nth(1).inner_text()
    assert "the commitment the server gives for pool 1 now" in matched
    assert "published before its sale" not in matched


def test_a_check_that_cannot_find_the_players_play_says_so(
    start_server: Any, browser: Browser
) -> None:
    """Recall's "Check this play" link names the player's play. Opened with no session (a
    bookmark kept until the close, a session that timed out), or naming a play that is not the
    player's, the page left the play out: the commitment and the secret ticked green, the play
    at the position shown, and not a word on the player's play, read at a glance as checked."""
    server = start_server([], POOL_MODE)
    load_pool(server, 2, {"£5": 1})
    page = browser.new_page(server, VIEWPORTS["desktop"])
    register(page)
    deposit(page, 2000)
    number = buy(page)
    start_playing(page)
    play_to_end(page)
    finish(page, number, 1500)
    pool_command(server, "close", "1", "--withdraw")
    link = f"/#/check?pool=1&position=0&play={number}"
    page.watch.allow(401, r"^/api/(me|my-games/.*)$")
    page.watch.allow(404, r"^/api/my-games/.*$")
    page.context.clear_cookies()  # logged out
    page.goto("/")
    page.goto(link)
    wait_idle(page, "check")
    tid(page, "check-result").wait_for(state="visible")
    verdicts = tid(page, "check-verdict")
    assert verdicts.count() == 3, [verdicts.nth(i).inner_text() for i in range(verdicts.count())]
    unchecked = verdicts.nth(2)
    assert unchecked.get_attribute("data-ok") == "null"
    assert f"Log in to compare your play {number} with this one" in unchecked.inner_text()
    register(page)  # another player: the play is not theirs
    page.goto(link)
    wait_idle(page, "check")
    tid(page, "check-result").wait_for(state="visible")
    verdicts = tid(page, "check-verdict")
    assert verdicts.count() == 3, [verdicts.nth(i).inner_text() for i in range(verdicts.count())]
    assert verdicts.nth(2).get_attribute("data-ok") == "false"
    assert f"{number} is not one of your plays" in verdicts.nth(2).inner_text()


def test_the_check_form_says_what_is_wrong_next_to_the_field(
    start_server: Any, browser: Browser
) -> None:
    server = start_server([], POOL_MODE)
    page = browser.new_page(server)
    page.goto("/#/check")
    wait_idle(page, "check")
    tid(page, "check-pool").fill("first")
    tid(page, "check-position").fill("-3")
    tid(page, "check-secret").fill("abc")
    tid(page, "check-submit").click()
    assert text(page, "check-pool-error") == "Enter the pool's number, like 1."
    assert text(page, "check-position-error").startswith("Enter the play's position")
    assert "64 characters" in text(page, "check-secret-error")
    assert tid(page, "check-pool").get_attribute("aria-invalid") == "true"
    page.watch.allow(404, r"^/api/pools/7$")
    tid(page, "check-pool").fill("7")
    tid(page, "check-position").fill("0")
    tid(page, "check-secret").fill("")
    tid(page, "check-submit").click()
    wait_idle(page, "check")
    assert text(page, "check-pool-error") == "There is no pool 7. Pools are numbered from 1."
    check_screen(page, browser, "check-errors")
