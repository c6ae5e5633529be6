// The app: boot, and the screens as addresses (router.js). Each route handler fetches what its
// screen shows and shows it; Back and Forward run the same handlers.
//
//   #/               account (log in, register, Try)     #/my-games[?page=N]   My Games
//   #/lobby          balance, test money, buy            #/my-games/CC-...     recall of a play
//   #/buy            purchase confirmation               #/play                the purchased play
//   #/try            a Try play (no money)                #/info                prizes, odds, procedures
//   #/money          deposit, withdraw, history           #/protection          limits, checks, breaks
//   #/reality        the reality check before the next purchase
//   #/check-email    after registering: the link is in the mail (Resend)
//   #/confirm/TOKEN  the mailed link: confirms the account, logs in, on to the lobby
//   #/forgot         a forgotten password: a link is mailed
//   #/reset/TOKEN    that link: choose a new password (logs in), on to the lobby
//   #/check[?pool=&position=&play=]                   check a play of a closed pool

import { get, post, ApiError } from "./api.js";
import { byTestId } from "./dom.js";
import { readGame, setGame, money } from "./format.js";
import { syncCssTiming } from "./motion.js";
import { tab } from "./storage.js";
import {
  showScreen, announce, alertPlayer, initAlert, setBusy, problemShown, clearProblem,
} from "./screens.js";
import { sayProblem } from "./problems.js";
import { route, redirect, go, listen, parse } from "./router.js";
import { initHowTo, openHowTo, dismissHowTo } from "./howto.js";
import { initSound } from "./sound.js";
import { initInput } from "./input.js";
import { S } from "./state.js";
import * as account from "./account.js";
import * as play from "./play.js";
import { initMyGames, showMyGames, showNotFound, showRecall, leaveRecall } from "./my_games.js";
import { mountWheel } from "./board.js";
import { showInfo } from "./info.js";
import { initMoney, showMoney } from "./money.js";
import {
  initProtection, showProtection, drawBreak, showRealityCheck, continuePlaying,
} from "./protection.js";
import { initActivity } from "./inactivity.js";
import { initPools, showPoolInfo, hidePoolInfo, showCheck } from "./pools.js";
import { initPassword, showForgot, showReset } from "./password.js";

const q = byTestId;

/** Run ``action`` with the busy flag; a problem is said in the alert box, and one shown before
 * goes once the action has gone through (the server could be reached after all). */
async function guard(action) {
  setBusy(true);
  const problem = problemShown();
  try {
    const done = await action();
    clearProblem(problem);
    return done;
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_authenticated" && S.me) {
      account.forget();
      await go("account", {}, { replace: true });
      alertPlayer(sayProblem(error));   // on the log-in screen it leads to
      return undefined;
    }
    alertPlayer(sayProblem(error));
    return undefined;
  } finally {
    setBusy(false);
  }
}

const open = (name, params = {}, options = {}) => go(name, params, options);

function setTryBanner(on) {
  q("try-banner").hidden = !on;
  document.body.dataset.mode = on ? "try" : S.me ? "account" : "";
}

/** Every screen but the play's: stop the play's animations, close HOW TO PLAY and recall. */
function leaveGame() {
  dismissHowTo();
  play.leave();
  leaveRecall();
  setTryBanner(false);
}

// ---------------------------------------------------------------- routes

route("account", async () => {
  if (S.me) return redirect("lobby");
  leaveGame();
  showScreen("account");
  return undefined;
});

route("check-email", async () => {
  if (S.me) return redirect("lobby");
  if (!S.pendingEmail) return redirect("account");
  leaveGame();
  q("check-email-address").textContent = S.pendingEmail;
  q("check-email-status").textContent = "";
  showScreen("check-email");
  return undefined;
});

// The link mailed to confirm an account: the registration's password confirms it and logs in,
// then on to the lobby.
route("confirm", async ({ token = "" }) => {
  leaveGame();
  account.showConfirm(token);
  return { name: "confirm", params: {} };
});

route("forgot", async () => {
  if (S.me) return redirect("lobby");
  leaveGame();
  showForgot(q("login-email").value.trim());
  return undefined;
});

// The link mailed for a forgotten password: choose a new one (which logs in).
route("reset", async ({ token = "" }) => {
  leaveGame();
  showReset(token);
  return { name: "reset", params: {} };
});

route("lobby", async () => {
  if (!S.me) return redirect("account");
  leaveGame();
  const [quote] = await Promise.all([get("/api/plays/quote"), account.refreshAccount()]);
  await drawBreak(account.refusalText(quote));
  q("buy").hidden = !account.purchaseOffered(quote);
  showScreen("lobby");
  await showPoolInfo("lobby");
  return undefined;
});

route("buy", async () => {
  if (!S.me) return redirect("account");
  leaveGame();
  // The purchase's own checks, asked before Confirm: a reality check due is shown first.
  const quote = await account.purchaseQuote();
  if (quote.refused && quote.refused.code === "reality_check_due") return redirect("reality");
  account.showPurchase(quote);
  return undefined;
});

route("info", async () => {
  leaveGame();
  await showInfo();
  return undefined;
});

route("money", async () => {
  if (!S.me) return redirect("account");
  leaveGame();
  await showMoney();
  return undefined;
});

route("protection", async () => {
  if (!S.me) return redirect("account");
  leaveGame();
  await showProtection();
  return undefined;
});

route("reality", async () => {
  if (!S.me) return redirect("account");
  leaveGame();
  await account.refreshAccount();
  await showRealityCheck();
  return undefined;
});

route("play", async () => {
  if (!S.me) return redirect("account");
  let current;
  try {
    current = await get("/api/plays/current");
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return redirect("lobby");
    throw error;
  }
  leaveGame();
  await showPlay("play", current.play.play_number, current.board, current.last);
  return undefined;
});

route("try", async () => {
  const id = tab.tryId;
  if (!id) return redirect(S.me ? "lobby" : "account");
  let data;
  try {
    data = await get(`/api/try/${encodeURIComponent(id)}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) { tab.tryId = null; return redirect(S.me ? "lobby" : "account"); }
    throw error;
  }
  leaveGame();
  setTryBanner(true);
  await showPlay("try", id, data.board, data.last);
  return undefined;
});

route("my-games", async ({ page = 1, highlight = null }) => {
  if (!S.me) return redirect("account");
  leaveGame();
  await showMyGames(page, highlight);
  return { name: "my-games", params: { page: S.myGamesPage } };
});

route("check", async (params) => {
  leaveGame();
  await showCheck(params);
  return { name: "check", params };
});

route("recall", async ({ playNumber }) => {
  if (!S.me) return redirect("account");
  leaveGame();
  try {
    await showRecall(playNumber);
  } catch (error) {
    if (!(error instanceof ApiError && (error.status === 404 || error.status === 422))) throw error;
    await showNotFound(playNumber, error);
    return { name: "my-games", params: { page: S.myGamesPage } };
  }
  return { name: "recall", params: { playNumber: S.recall.data.play.play_number } };
});

async function showPlay(mode, id, board, last = null) {
  play.load(mode, id, board, last);
  if (board.revealed === 0) {
    play.showStart();
    // A purchased play comes from the pool on sale: the start screen shows it. A Try does not.
    if (mode === "play") await showPoolInfo("start");
    else hidePoolInfo();
  } else await play.enterGame();
}

// ---------------------------------------------------------------- buttons between screens

function wire() {
  q("try-start").addEventListener("click", () => guard(startTry));
  q("lobby-try").addEventListener("click", () => guard(startTry));
  q("buy").addEventListener("click", () => guard(() => open("buy")));
  q("mg-play-again").addEventListener("click", () => guard(() => open("buy")));
  q("lobby-my-games").addEventListener("click", () => guard(() => open("my-games")));
  q("nav-my-games").addEventListener("click", () => guard(() => open("my-games")));
  q("nav-lobby").addEventListener("click", () => guard(() => open("lobby")));
  q("mg-lobby").addEventListener("click", () => guard(() => open("lobby")));
  q("purchase-cancel").addEventListener("click", () => guard(() => open("lobby")));
  q("info-open").addEventListener("click", () => guard(() => open("info")));
  q("check-email-login").addEventListener("click", () => guard(() => open("account")));
  q("confirm-login").addEventListener("click", () => guard(() => open("account", {}, { replace: true })));
  q("lobby-info").addEventListener("click", () => guard(() => open("info")));
  q("info-back").addEventListener("click", () => guard(() => open(S.me ? "lobby" : "account")));
  q("lobby-money").addEventListener("click", () => guard(() => open("money")));
  q("lobby-protection").addEventListener("click", () => guard(() => open("protection")));
  q("reality-continue").addEventListener("click", () => guard(async () => {
    await continuePlaying();
    announce("Reality check seen. On to your next play.");
    await open("buy", {}, { replace: true });
  }));
  q("reality-history").addEventListener("click", () => guard(() => open("my-games")));
  q("reality-logout").addEventListener("click", () => q("logout").click());
  q("purchase-confirm").addEventListener("click", () => guard(async () => {
    let bought;
    try {
      bought = await account.buy();
    } catch (error) {
      if (error instanceof ApiError && error.code === "reality_check_due") {
        await open("reality", {}, { replace: true });
        return;
      }
      // No answer, or 503 `unavailable` (the database may have lost the connection after the
      // commit): the play may have been bought all the same. Show the purchase as the server
      // has it now (the balance after the price, the play sold, which Confirm then continues
      // without paying again), and say what went wrong. A refusal (sales stopped, sold out: a
      // 503 too, but an answer) leaves the screen as it is, said in the alert.
      if (!(error instanceof ApiError) || error.code === "unavailable") {
        try { account.showPurchase(await account.purchaseQuote()); } catch { /* still offline */ }
      }
      throw error;
    }
    leaveGame();
    // The confirmation is done with: Back from the play goes to the screen before it.
    await showPlay("play", bought.play.play_number, bought.board, bought.last);
    window.history.replaceState({ name: "play", params: {} }, "", "#/play");
  }));
  q("play").addEventListener("click", () => guard(() => play.enterGame({ fresh: true })));
  q("how-to-play").addEventListener("click", () => {
    document.body.dataset.phase = "howto";
    openHowTo(() => guard(() => play.enterGame({ fresh: true })));   // the X: on to the Main Game
  });
}

async function startTry() {
  const made = await post("/api/try", {});
  tab.tryId = made.try_id;
  leaveGame();
  setTryBanner(true);
  await showPlay("try", made.try_id, made.board);
  window.history.pushState({ name: "try", params: {} }, "", "#/try");
}

async function finished(mode, done, play = null) {
  if (mode === "try") {
    tab.tryId = null;
    announce(`Try finished: ${done.prize_pence ? `${money(done.prize_pence)} (no money)` : "no win"}.`);
    await go(S.me ? "lobby" : "account", {}, { replace: true });
    return;
  }
  if (!done) {   // finished in another tab: the balance there has moved on too
    await account.refreshAccount();
    await go("my-games", { page: 1, highlight: play.play_number }, { replace: true });
    return;
  }
  account.setBalance(done.balance_pence);
  await account.refreshAccount();
  announce(`Play ${done.play.play_number} finished. ${done.prize_pence ? `You won ${money(done.prize_pence)}.` : "No win."} Balance ${money(S.balance)}.`);
  await go("my-games", { page: 1, highlight: done.play.play_number }, { replace: true });
}

/** The play on screen cannot go on here (play.js ``isGone``): a Try no longer kept is done
 * with, said on the screen it leads to; a login that ended goes to the log-in screen, as any
 * other request of an ended login does (``guard``), and logging in again resumes the play. */
async function gone(mode, error) {
  await guard(async () => {
    if (mode !== "try") throw error;
    tab.tryId = null;
    await go(S.me ? "lobby" : "account", {}, { replace: true });
    alertPlayer("This free Try has expired: a Try is kept for two days. Start a new one to play again.", "notice");
  });
}

// ---------------------------------------------------------------- boot

async function boot() {
  syncCssTiming();
  initAlert();
  initHowTo();
  initSound();
  initInput();
  wire();
  account.initAccount({
    loggedIn: async () => {
      const quote = await get("/api/plays/quote");
      account.setBalance(quote.balance_pence);
      // The log-in form is done with: Back does not return to it.
      await go(quote.unfinished ? "play" : "lobby", {}, { replace: true });
    },
    loggedOut: () => go("account", {}, { replace: true }),
    registered: () => go("check-email", {}, { replace: true }),
    guard,
  });
  initMyGames({ open, guard });
  initMoney({ open, guard, refresh: account.refreshAccount });
  initProtection({ open, guard });
  initActivity({ guard });
  initPassword({
    guard,
    open,
    loggedIn: async (found) => {
      account.loggedInAs(found);
      await account.refreshAccount();
      announce("Your new password is saved, and you are logged in.");
      await go("lobby", {}, { replace: true });
    },
  });
  initPools({ open, guard, loggedIn: () => Boolean(S.me) });
  play.initPlay({ finished, gone });
  listen(guard);

  let description = null;
  try { description = await get("/api/game"); } catch { description = null; }
  setGame(readGame(description));
  mountWheel();

  const ended = await account.whoAmI();
  account.drawBar();
  const sayEnded = () => {
    if (ended) alertPlayer(sayProblem(new ApiError(401, { code: "not_authenticated" })), "notice");
  };
  const wanted = parse(window.location.hash);
  if (tab.tryId && (wanted.name === "try" || wanted.name === "account")) {
    await go("try", {}, { replace: true });
    sayEnded();
    return;
  }
  // Coming back to the game (its bare address) resumes an unfinished play; a reload of any
  // other screen stays there.
  if (S.me && wanted.name === "account") {
    const quote = await get("/api/plays/quote");
    account.setBalance(quote.balance_pence);
    if (quote.unfinished) { await go("play", {}, { replace: true }); return; }
  }
  await go(wanted.name, wanted.params, { replace: true });
  sayEnded();
}

setBusy(true);
boot()
  .catch((error) => alertPlayer(sayProblem(error)))
  .finally(() => setBusy(false));
