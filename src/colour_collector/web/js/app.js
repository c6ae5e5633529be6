// Screens and flow: account, lobby (balance, test money), purchase, start, game, My Games,
// recall, and Try mode. Every amount shown is integer pence the server returned.

import { get, post, ApiError } from "./api.js";
import { $, $$, el, money, store, clock, normaliseGame } from "./util.js";
import { initHowTo, openHowTo } from "./howto.js";
import * as game from "./game.js";

const q = (id) => $(`[data-testid="${id}"]`);
const AUTH_HINT = "cc_maybe_logged_in";   // localStorage: only decides whether to ask /api/me
const MG_PER_PAGE = 10;

const S = {
  me: null,          // the logged-in account, or null
  mode: null,        // "play" | "try" | null
  play: null,        // the purchased play being played
  tryId: null,
  balance: null,
  myGamesPage: 1,
  recall: null,      // { data, frames, index }
};

// ---------------------------------------------------------------- small things

let toastTimer = null;
function showError(error) {
  const box = q("error");
  box.textContent = error instanceof ApiError || error instanceof Error ? error.message : String(error);
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 7000);
}

function showScreen(name, focus = true) {
  for (const s of $$(".screen")) s.hidden = s.dataset.screen !== name;
  document.body.dataset.screen = name;
  if (name !== "game") document.body.dataset.phase = name;
  const tryMode = S.mode === "try" && (name === "game" || name === "start");
  q("try-banner").hidden = !tryMode;
  document.body.dataset.mode = tryMode ? "try" : S.me ? "account" : "";
  if (focus) {
    const target = $(`[data-screen="${name}"] h1, [data-screen="${name}"] button:not([disabled])`);
    if (target) {
      if (target.tagName === "H1") target.setAttribute("tabindex", "-1");
      target.focus({ preventScroll: true });
    }
  }
}

async function guard(action) {
  game.setBusy(true);
  try {
    return await action();
  } catch (error) {
    showError(error);
    return undefined;
  } finally {
    game.setBusy(false);
  }
}

// ---------------------------------------------------------------- session bar

function updateBar() {
  const logged = Boolean(S.me);
  q("session-stats").hidden = !logged;
  q("account-nav").hidden = !logged;
  if (!logged) return;
  q("balance").textContent = money(S.balance);
  q("balance").dataset.pence = S.balance === null ? "" : String(S.balance);
  q("lobby-balance").textContent = money(S.balance);
  q("lobby-email").textContent = `Logged in as ${S.me.email}`;
}

/** Balance and net position from the wallet ledger: stakes and prizes since this login. */
async function refreshWallet() {
  if (!S.me) return;
  const wallet = await get("/api/wallet?limit=100");
  S.balance = wallet.balance_pence;
  const base = store.get("cc_base_movement") || 0;
  let net = 0;
  for (const m of wallet.movements || []) {
    if (m.id > base && (m.kind === "stake" || m.kind === "prize")) net += m.amount_pence;
  }
  q("net").textContent = net > 0 ? `+${money(net)}` : money(net);
  q("net").dataset.pence = String(net);
  updateBar();
}

function tick() {
  const since = store.get("cc_login_at");
  if (S.me && since) q("session-time").textContent = clock(Date.now() - since);
}

async function beginSession() {
  if (!store.get("cc_login_at")) {
    store.set("cc_login_at", Date.now());
    const wallet = await get("/api/wallet?limit=1");
    const latest = wallet.movements && wallet.movements[0];
    store.set("cc_base_movement", latest ? latest.id : 0);
  }
  tick();
  await refreshWallet();
}

// ---------------------------------------------------------------- account

async function login(email, password) {
  S.me = await post("/api/login", { email, password });
  localStorage.setItem(AUTH_HINT, "1");
  store.del("cc_login_at");
  await beginSession();
  await afterLogin();
}

async function afterLogin() {
  const quote = await get("/api/plays/quote");
  S.balance = quote.balance_pence;
  updateBar();
  if (quote.unfinished) {
    await resumePlay(quote.unfinished.play_number);
    return;
  }
  showScreen("lobby");
}

function formData(form) {
  return Object.fromEntries(new FormData(form).entries());
}

function wireAccount() {
  q("login-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const f = formData(event.target);
    guard(() => login(f.email, f.password));
  });
  q("register-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const f = formData(event.target);
    guard(async () => {
      await post("/api/register", { email: f.email, password: f.password, date_of_birth: f.date_of_birth });
      await login(f.email, f.password);
    });
  });
  q("logout").addEventListener("click", () => guard(async () => {
    await post("/api/logout", {});
    S.me = null;
    S.mode = null;
    localStorage.removeItem(AUTH_HINT);
    for (const k of ["cc_login_at", "cc_base_movement"]) store.del(k);
    updateBar();
    showScreen("account");
  }));
  q("deposit-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const amount = Number.parseInt(q("deposit-amount").value, 10);
    guard(async () => {
      const done = await post("/api/wallet/test-deposit", { amount_pence: amount });
      S.balance = done.balance_pence;
      updateBar();
      await refreshWallet();
      game.announce(`Test money added. Balance ${money(S.balance)}.`);
    });
  });
  for (const id of ["try-start", "lobby-try"]) q(id).addEventListener("click", () => guard(startTry));
  q("buy").addEventListener("click", () => guard(openPurchase));
  for (const id of ["lobby-my-games", "nav-my-games", "mg-lobby", "nav-lobby"]) {
    q(id).addEventListener("click", () => {
      if (id === "mg-lobby" || id === "nav-lobby") {
        if (S.me) guard(async () => { await refreshWallet(); showScreen("lobby"); });
        else showScreen("account");
      } else {
        guard(() => openMyGames(1));
      }
    });
  }
}

// ---------------------------------------------------------------- purchase and play

async function openPurchase() {
  const quote = await get("/api/plays/quote");
  S.balance = quote.balance_pence;
  updateBar();
  q("purchase-message").textContent = quote.message || "You are about to play Colour Collector for £5.00";
  q("purchase-balance").textContent = money(quote.balance_pence);
  q("purchase-balance").dataset.pence = String(quote.balance_pence);
  const warn = q("purchase-warning");
  const confirm = q("purchase-confirm");
  warn.hidden = true;
  confirm.disabled = false;
  if (quote.unfinished) {
    warn.hidden = false;
    warn.textContent = `You have an unfinished play (${quote.unfinished.play_number}). Confirm continues it; nothing more is paid.`;
  } else if (quote.balance_pence < quote.price_pence) {
    warn.hidden = false;
    warn.textContent = "Your balance is too low for this play. Add test money first.";
    confirm.disabled = true;
  }
  showScreen("purchase");
}

async function confirmPurchase() {
  const key = crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
  const bought = await post("/api/plays", { confirm: true }, { "Idempotency-Key": key });
  S.balance = bought.balance_pence;
  updateBar();
  await refreshWallet();
  enterPlay(bought.play, bought.board, !bought.resumed || bought.board.revealed === 0);
}

async function stepPlay(kind, pick) {
  try {
    if (S.mode === "try") return await post(`/api/try/${S.tryId}/steps`, { kind, pick });
    return await post(`/api/plays/${S.play.play_number}/steps`, { kind, pick });
  } catch (error) {
    showError(error);
    if (error instanceof ApiError && error.code === "step_out_of_order") await reloadCurrent();
    return null;
  }
}

async function reloadCurrent() {
  const data = S.mode === "try" ? await get(`/api/try/${S.tryId}`) : await get(`/api/plays/${S.play.play_number}`);
  game.show(data.board, S.mode, S.play ? `Play Number: ${S.play.play_number}` : "");
}

async function finishPlay() {
  try {
    if (S.mode === "try") {
      const done = await post(`/api/try/${S.tryId}/finish`, {});
      store.del("cc_try_id");
      game.announce(`Try finished: ${done.prize_pence ? `${money(done.prize_pence)} (no money)` : "no win"}.`);
      S.mode = null;
      S.tryId = null;
      game.hideEnd();
      if (S.me) { await refreshWallet(); showScreen("lobby"); } else showScreen("account");
      return;
    }
    const done = await post(`/api/plays/${S.play.play_number}/finish`, {});
    S.balance = done.balance_pence;
    updateBar();
    await refreshWallet();
    game.announce(`Play ${done.play.play_number} finished. ${done.prize_pence ? `You won ${money(done.prize_pence)}.` : "No win."} Balance ${money(S.balance)}.`);
    S.mode = null;
    S.play = null;
    game.hideEnd();
    await openMyGames(1, done.play.play_number);
  } catch (error) {
    showError(error);
  }
}

function enterPlay(play, board, showStart) {
  S.mode = "play";
  S.play = play;
  enterGame(board, showStart, `Play Number: ${play.play_number}`);
}

function enterGame(board, showStart, label) {
  game.resetWheel();
  game.show(board, S.mode, label);
  if (showStart && board.revealed === 0) {
    showScreen("start");
    document.body.dataset.phase = "start";
  } else {
    showScreen("game", false);
    document.body.dataset.phase = board.phase;
    game.show(board, S.mode, label);
    focusGame(board);
  }
}

function focusGame(board) {
  if (board.phase === "over") return;  // the end takeover has focus
  if (board.next === "bonus_pick") q("pick-odd").focus();
  else q("spin").focus();
}

function play() {
  showScreen("game", false);
  const board = game.board();
  document.body.dataset.phase = board.phase;
  game.intro();
}

async function resumePlay(playNumber) {
  const data = await get(`/api/plays/${playNumber}`);
  enterPlay(data.play, data.board, true);
}

// ---------------------------------------------------------------- Try

async function startTry() {
  const made = await post("/api/try", {});
  S.mode = "try";
  S.tryId = made.try_id;
  store.set("cc_try_id", made.try_id);
  enterGame(made.board, true, "TRY — no money: this play has no Play Number and pays nothing.");
}

async function resumeTry(tryId) {
  const data = await get(`/api/try/${tryId}`);
  S.mode = "try";
  S.tryId = tryId;
  enterGame(data.board, true, "TRY — no money: this play has no Play Number and pays nothing.");
}

// ---------------------------------------------------------------- My Games and recall

const STATUS = { in_progress: "In progress", finished: "Finished", auto_finished: "Finished automatically" };

async function openMyGames(page, highlight = null) {
  const list = await get(`/api/my-games?page=${page}&per_page=${MG_PER_PAGE}`);
  S.myGamesPage = list.page || page;
  const body = $('[data-testid="my-games"] tbody');
  body.replaceChildren();
  if (!list.items.length) body.append(el("tr", {}, el("td", { colSpan: 5, text: "No plays yet." })));
  for (const item of list.items) {
    const prize = item.prize_pence === null || item.prize_pence === undefined
      ? "—" : item.prize_pence > 0 ? money(item.prize_pence) : "No win";
    const action = item.status === "in_progress"
      ? el("button", { type: "button", class: "btn sm", "data-testid": `continue-${item.play_number}`, text: "Continue",
        onclick: () => guard(() => resumePlay(item.play_number)) })
      : el("button", { type: "button", class: "btn sm", "data-testid": `recall-${item.play_number}`, text: "Recall",
        "aria-label": `Recall play ${item.play_number}`, onclick: () => guard(() => openRecall(item.play_number)) });
    const row = el("tr", { "data-testid": `game-row-${item.play_number}`, "data-status": item.status },
      el("td", { text: item.play_number }),
      el("td", { text: item.purchased_at ? new Date(item.purchased_at).toLocaleString("en-GB") : "" }),
      el("td", { text: STATUS[item.status] || item.status }),
      el("td", { class: "money", text: prize, "data-testid": `game-prize-${item.play_number}` }),
      el("td", {}, action));
    if (highlight === item.play_number) row.classList.add("flash");
    body.append(row);
  }
  const pages = Math.max(1, Math.ceil((list.total || 0) / (list.per_page || MG_PER_PAGE)));
  q("mg-page").textContent = `Page ${S.myGamesPage} of ${pages}`;
  q("mg-prev").disabled = S.myGamesPage <= 1;
  q("mg-next").disabled = S.myGamesPage >= pages;
  showScreen("mygames");
}

async function openRecall(playNumber) {
  const data = await get(`/api/my-games/${playNumber}`);
  const frames = [{ board: data.start, step: null }, ...data.steps.map((s) => ({ board: s.board, step: s.step }))];
  S.recall = { data, frames, index: 0 };
  showScreen("game", false);
  q("recall-bar").hidden = false;
  drawRecall();
  q("recall-next").focus();
}

function drawRecall() {
  const { data, frames, index } = S.recall;
  const frame = frames[index];
  game.showRecall(frame.board, frame.step);
  q("recall-position").textContent = `${data.play.play_number} — step ${index} of ${frames.length - 1}`;
  let text = index === 0
    ? `Start of the play. Balance before: ${money(data.balance_before_pence)}.`
    : game.describeStep(frame.step, frames[index - 1].board);
  if (index === frames.length - 1 && frame.board.result) {
    const r = frame.board.result;
    text += ` Result: ${r.prize_pence > 0 ? `won ${money(r.prize_pence)}${r.tier ? ` (${r.tier})` : ""}` : "no win"}.`;
    if (data.balance_after_pence !== null && data.balance_after_pence !== undefined) {
      text += ` Balance after: ${money(data.balance_after_pence)}.`;
    }
  }
  q("recall-step").textContent = text;
  q("recall-prev").disabled = index === 0;
  q("recall-next").disabled = index === frames.length - 1;
  document.body.dataset.recallIndex = String(index);
}

function wireMyGames() {
  q("mg-prev").addEventListener("click", () => guard(() => openMyGames(S.myGamesPage - 1)));
  q("mg-next").addEventListener("click", () => guard(() => openMyGames(S.myGamesPage + 1)));
  q("mg-play-again").addEventListener("click", () => guard(openPurchase));
  q("recall-prev").addEventListener("click", () => { if (S.recall.index > 0) { S.recall.index -= 1; drawRecall(); } });
  q("recall-next").addEventListener("click", () => {
    if (S.recall.index < S.recall.frames.length - 1) { S.recall.index += 1; drawRecall(); }
  });
  q("recall-back").addEventListener("click", () => {
    q("recall-bar").hidden = true;
    S.recall = null;
    delete document.body.dataset.recallIndex;
    guard(() => openMyGames(S.myGamesPage));
  });
}

// ---------------------------------------------------------------- boot

async function boot() {
  initHowTo();
  wireAccount();
  wireMyGames();
  q("purchase-cancel").addEventListener("click", () => showScreen("lobby"));
  q("purchase-confirm").addEventListener("click", () => guard(confirmPurchase));
  q("play").addEventListener("click", play);
  q("how-to-play").addEventListener("click", () => {
    document.body.dataset.phase = "howto";
    openHowTo(play);   // the X takes the player to the Main Game
  });

  let description = null;
  try { description = await get("/api/game"); } catch { description = null; }
  game.mountGame(normaliseGame(description), { step: stepPlay, finish: finishPlay });
  setInterval(tick, 1000);

  if (localStorage.getItem(AUTH_HINT)) {
    try {
      S.me = await get("/api/me");
    } catch {
      S.me = null;
      localStorage.removeItem(AUTH_HINT);
    }
  }
  if (S.me) await beginSession();
  updateBar();

  const tryId = store.get("cc_try_id");
  if (tryId) {
    try {
      await resumeTry(tryId);
      return;
    } catch {
      store.del("cc_try_id");
    }
  }
  if (S.me) await afterLogin();
  else showScreen("account");
}

boot()
  .catch((error) => showError(error))
  .finally(() => game.setBusy(false));
