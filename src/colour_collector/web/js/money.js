// Money: deposits and withdrawals through the payment provider (each payment with one
// Idempotency-Key, so a double click or a retried request never moves money twice), the
// deposit limit question before the first deposit, and the history of the wallet's movements.

import { get, post, ApiError } from "./api.js";
import { $, byTestId, el } from "./dom.js";
import { money, dateTimeText } from "./format.js";
import { showScreen, announce, screenDraws } from "./screens.js";
import { explain, showErrors, clearErrors, breakText } from "./problems.js";
import { S } from "./state.js";

const q = byTestId;
const KIND = {
  deposit: "Deposit", stake: "Play bought", prize: "Prize", refund: "Refund",
  adjustment: "Adjustment", withdrawal: "Withdrawal",
};

/** "12.50" or "12" as pence; null when it is not an amount of money. */
export function toPence(text) {
  const cleaned = String(text || "").trim().replace(/^£/, "").replace(/,/g, "");
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(cleaned)) return null;
  const [pounds, pence = ""] = cleaned.split(".");
  return Number.parseInt(pounds, 10) * 100 + Number.parseInt(pence.padEnd(2, "0") || "0", 10);
}

/** A fresh Idempotency-Key. */
export const newKey = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`);

/**
 * Wire a form that moves money: ``run(pay)`` on submit, where ``pay(path, amount)`` POSTs
 * ``{amount_pence: amount}`` to ``path`` with an Idempotency-Key. The key belongs to the payment
 * the player means, not to a click: it is kept when the same amount is sent again after a lost
 * answer on the same screen, and made anew once that payment has gone through or been refused,
 * for another amount, or once the screen has been drawn again (the player has seen the balance
 * and history since, so the same amount again is meant as another payment). While the request runs, the form's
 * button is disabled and its submits are ignored (a double click), as FINISH does; it has the
 * focus back once enabled, unless the answer has put it elsewhere.
 * ``guard(fn)`` runs an action with the busy flag and alerts.
 */
export function payingForm(form, guard, run) {
  let held = null;   // {path, amount, key}: the payment asked for and not known to be done
  let sending = false;
  const pay = async (path, amount) => {
    const drawn = screenDraws();
    if (!held || held.path !== path || held.amount !== amount || held.drawn !== drawn) {
      held = { path, amount, drawn, key: newKey() };
    }
    try {
      const done = await post(path, { amount_pence: amount }, { "Idempotency-Key": held.key });
      held = null;
      return done;
    } catch (error) {
      // A refusal is an answer: sent again, it is a new payment (a provider may keep its
      // decline under the key). Only a lost answer keeps the key, so its retry is the same one.
      if (error instanceof ApiError && error.status < 500) held = null;
      throw error;
    }
  };
  const button = $('button[type="submit"]', form);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (sending) return;
    sending = true;
    button.disabled = true;
    guard(() => run(pay)).finally(() => {
      sending = false;
      button.disabled = false;
      // Disabled, the button lost the focus to the page; it takes it back unless the answer
      // put it elsewhere (a field in error, the heading of a screen drawn again).
      if (document.activeElement === document.body && !form.hidden) button.focus();
    });
  });
}

/** ``open(name)`` navigates; ``guard(fn)`` runs an action with the busy flag; ``refresh()``
 * reloads the top bar. */
export function initMoney({ open, guard, refresh }) {
  const paying = (form, path, amountOf) => payingForm(form, guard, async (pay) => {
    clearErrors(form);
    const amount = amountOf();
    if (amount === null || amount <= 0) {
      showErrors(form, { fields: { amount_pence: "Enter an amount in pounds, like 20 or 12.50." }, form: null });
      return;
    }
    let done;
    try {
      done = await pay(path, amount);
    } catch (error) {
      showErrors(form, explain(error, form.dataset.form));
      if (error.code === "deposit_limits_unanswered") q("limit-question").hidden = false;
      return;
    }
    await refresh();
    announce(`${done.kind === "deposit" ? "Deposited" : "Withdrawn"}: ${money(done.amount_pence)}. Balance ${money(done.balance_pence)}.`);
    await showMoney();
  });
  paying(q("pay-in-form"), "/api/wallet/deposits", () => Number.parseInt(q("payin-amount").value, 10));
  paying(q("pay-out-form"), "/api/wallet/withdrawals", () => toPence(q("payout-amount").value));
  q("limit-question-set").addEventListener("click", () => guard(() => open("protection")));
  q("limit-question-decline").addEventListener("click", () => guard(async () => {
    await post("/api/protection/deposit-limits/decline", {});
    announce("No deposit limit set. You can set one at any time.");
    await showMoney();
  }));
  q("money-back").addEventListener("click", () => guard(() => open("lobby")));
}

export async function showMoney() {
  const [wallet, protection] = await Promise.all([get("/api/wallet?limit=50"), get("/api/protection")]);
  S.balance = wallet.balance_pence;
  q("money-balance").textContent = money(wallet.balance_pence);
  q("money-balance").dataset.pence = String(wallet.balance_pence);
  // During a break no deposit is taken: its notice stands in place of the deposit form.
  const pause = breakText(protection.exclusion);
  q("money-break").hidden = !pause;
  q("money-break").textContent = pause || "";
  q("limit-question").hidden = Boolean(pause) || protection.limits_answered;
  q("pay-in-form").hidden = Boolean(pause) || !protection.limits_answered;
  q("payout-amount").value = "";
  const body = $('[data-testid="history"] tbody');
  body.replaceChildren();
  if (!wallet.movements.length) body.append(el("tr", {}, el("td", { colSpan: 3, text: "Nothing yet." })));
  for (const m of wallet.movements) {
    body.append(el("tr", { "data-testid": `movement-${m.id}` },
      el("td", { text: dateTimeText(m.created_at) }),
      el("th", { scope: "row", text: KIND[m.kind] || m.kind }),
      el("td", { class: "money", text: m.amount_pence > 0 ? `+${money(m.amount_pence)}` : money(m.amount_pence) })));
  }
  showScreen("money");
}
