// The account: log in, register (then the mailed link confirms it), log out, test money, the top bar (balance, net position and
// time of this login session, from GET /api/session: the same in every tab) and the purchase
// confirmation.

import { get, post, ApiError } from "./api.js";
import { byTestId } from "./dom.js";
import { money, signedMoney, clock } from "./format.js";
import { prefs } from "./storage.js";
import { showScreen, announce } from "./screens.js";
import { explain, showErrors, clearErrors, sayProblem } from "./problems.js";
import { S } from "./state.js";
import { sessionRenewed, sessionEndsIn, sessionClosed } from "./inactivity.js";
import { payingForm, newKey } from "./money.js";

const q = byTestId;

// ---------------------------------------------------------------- top bar

export function drawBar() {
  const logged = Boolean(S.me);
  q("session-stats").hidden = !logged;
  q("account-nav").hidden = !logged;
  document.body.dataset.account = logged ? "yes" : "no";
  if (!logged) return;
  q("balance").textContent = money(S.balance);
  q("balance").dataset.pence = S.balance === null ? "" : String(S.balance);
  q("lobby-balance").textContent = money(S.balance);
  q("lobby-email").textContent = `Logged in as ${S.me.email}`;
  const net = S.session ? S.session.net_pence : 0;
  q("net").textContent = signedMoney(net);
  q("net").dataset.pence = String(net);
  q("session-time").dataset.started = S.session ? S.session.started_at : "";
  tick();
}

function tick() {
  if (!S.me || !S.session) return;
  const started = Date.parse(S.session.started_at);
  if (Number.isFinite(started)) q("session-time").textContent = clock(Date.now() - started);
}
setInterval(tick, 1000);

/** Balance and this login session's net position, from the server. */
export async function refreshAccount() {
  if (!S.me) return;
  const [wallet, session] = await Promise.all([get("/api/wallet?limit=1"), get("/api/session")]);
  S.balance = wallet.balance_pence;
  S.session = session;
  drawBar();
  sessionEndsIn(session);
}

export function setBalance(pence) {
  S.balance = pence;
  drawBar();
}

// ---------------------------------------------------------------- log in, register, log out

const values = (form) => Object.fromEntries(new FormData(form).entries());

/**
 * Wire the account forms. ``loggedIn()`` runs after a login (the app picks the screen);
 * ``loggedOut()`` after a logout; ``guard(fn)`` runs an action with the busy flag and alerts.
 */
export function initAccount({ loggedIn, loggedOut, registered, guard }) {
  const submit = (form, action, after) => form.addEventListener("submit", (event) => {
    event.preventDefault();
    const entered = values(form);
    guard(async () => {
      clearErrors(form);
      q("login-resend").hidden = true;
      try {
        await action(entered);
      } catch (error) {
        showErrors(form, explain(error, form.dataset.form, entered));
        // The password was right: offer the confirmation e-mail again.
        if (error instanceof ApiError && error.code === "email_not_confirmed") {
          S.pendingEmail = entered.email;
          q("login-resend").hidden = false;
        }
        return;
      }
      await after(entered);
    });
  });
  const login = async ({ email, password }) => {
    S.me = await post("/api/login", { email, password });
    loggedInAs(S.me);
    await refreshAccount();
  };
  submit(q("login-form"), login, loggedIn);
  // The link proves the mailbox, the password that the registration is the player's (someone
  // else may have registered the address since): the server asks for both.
  submit(q("confirm-form"), async ({ password }) => {
    if (!LINK_TOKEN.test(confirmToken)) throw new ApiError(400, { code: "invalid_token" });
    loggedInAs(await post("/api/register/confirm", { token: confirmToken, password }));
    confirmToken = "";
    await refreshAccount();
  }, async () => {
    announce("Your account is confirmed. Welcome to Colour Collector.");
    await loggedIn();
  });
  // The answer is the same whether or not the address has an account: the next step is in
  // the mail (a link to confirm, or a notice to the owner of the address).
  submit(q("register-form"), async (entered) => {
    await post("/api/register", { email: entered.email, password: entered.password, date_of_birth: entered.date_of_birth });
    S.pendingEmail = entered.email;
    q("register-form").reset();
  }, registered);
  q("login-resend").addEventListener("click", () => guard(async () => {
    await resend();
    q("login-resend").hidden = true;
    await registered();
  }));
  q("check-email-resend").addEventListener("click", () => guard(async () => {
    await resend();
    const status = q("check-email-status");
    status.textContent = "";
    setTimeout(() => { status.textContent = `We have sent the e-mail to ${S.pendingEmail} again.`; }, 30);
  }));
  q("logout").addEventListener("click", () => guard(async () => {
    await post("/api/logout", {});
    forget();
    await loggedOut();
  }));
  // Test money is a payment too: one Idempotency-Key a deposit, a double click ignored.
  payingForm(q("deposit-form"), guard, async (pay) => {
    const amount = Number.parseInt(q("deposit-amount").value, 10);
    const done = await pay("/api/wallet/test-deposit", amount);
    setBalance(done.balance_pence);
    announce(`Test money added: ${money(amount)}. Balance ${money(S.balance)}.`);
  });
}

/** Ask for the confirmation e-mail again, for the address last registered or refused. */
async function resend() {
  await post("/api/register/resend", { email: S.pendingEmail || "" });
}

/** The player of ``account`` is logged in (a login, or a confirmed link). */
export function loggedInAs(account) {
  S.me = account;
  sessionRenewed();
  prefs.maybeLoggedIn = true;
}

// The mailed link's token: in memory only, never in the address or storage.
let confirmToken = "";
const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The form confirming the account of a mailed link's ``token`` (kept from an earlier visit of
 * the link when empty: the address no longer has it). */
export function showConfirm(token = "") {
  if (token) confirmToken = token;
  const form = q("confirm-form");
  form.reset();
  clearErrors(form);
  showScreen("confirm");
}

/** Forget the account (logged out, or the session ended). */
export function forget() {
  S.me = null;
  S.session = null;
  sessionClosed();
  S.balance = null;
  prefs.maybeLoggedIn = false;
  drawBar();
}

/** Ask the server who is logged in (only if this browser logged in before). Returns whether
 * a login this browser had has ended meanwhile (timed out, logged out elsewhere, or ended by a
 * password reset), for the app to say so. */
export async function whoAmI() {
  if (!prefs.maybeLoggedIn) return false;
  try {
    S.me = await get("/api/me");
    await refreshAccount();
    return false;
  } catch (error) {
    forget();
    return error instanceof ApiError && error.code === "not_authenticated";
  }
}

// ---------------------------------------------------------------- purchase

/** Whether to offer a purchase (Buy): one would go ahead, resume the unfinished play, or come
 * after a reality check; not during a break, while sales are stopped or when no play is left
 * to sell (the pools sold out or unusable). */
export const purchaseOffered = (quote) => !quote.refused || quote.refused.code === "reality_check_due";

/** The quote's refusal in the player's words when no purchase is offered (else null). */
export const refusalText = (quote) => (purchaseOffered(quote)
  ? null : sayProblem(new ApiError(quote.refused.status, quote.refused)));

/** The server's quote for the purchase screen: price, balance, an unfinished play, and the
 * problem a purchase would be refused with now (``refused``). */
export async function purchaseQuote() {
  const quote = await get("/api/plays/quote");
  setBalance(quote.balance_pence);
  return quote;
}

/** The purchase confirmation of ``quote``: the price, the balance, Confirm / Cancel, and a
 * warning in place of Confirm when the purchase would be refused (a break, sales stopped, no
 * play left to sell) or the balance is too low. */
export function showPurchase(quote) {
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
  } else if (quote.refused) {
    warn.hidden = false;
    warn.textContent = sayProblem(new ApiError(quote.refused.status, quote.refused));
    confirm.disabled = true;
  } else if (quote.balance_pence < quote.price_pence) {
    warn.hidden = false;
    warn.textContent = "Your balance is too low for this play. Add test money first.";
    confirm.disabled = true;
  }
  showScreen("purchase");
}

/** Confirm: buy (or continue the unfinished play); returns ``{play, board}``. */
export async function buy() {
  const key = newKey();
  const bought = await post("/api/plays", { confirm: true }, { "Idempotency-Key": key });
  setBalance(bought.balance_pence);
  await refreshAccount();
  return bought;
}
