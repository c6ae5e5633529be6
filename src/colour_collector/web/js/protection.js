// Safer play: deposit limits (a lower one at once, a higher one after 24 hours and a
// confirmation), the reality check interval, a time-out and self-exclusion; and the reality
// check itself (the pause before the next purchase). The activity that keeps the session alive:
// inactivity.js.

import { get, post, ApiError } from "./api.js";
import { byTestId, el } from "./dom.js";
import { money, dateTimeText } from "./format.js";
import { showScreen, announce } from "./screens.js";
import { explain, showErrors, clearErrors, breakText } from "./problems.js";
import { toPence } from "./money.js";
import { S } from "./state.js";

const q = byTestId;
const PERIODS = ["daily", "weekly", "monthly"];
const NAMES = { daily: "daily", weekly: "weekly", monthly: "monthly" };

/** The lobby's notice of a break in force, or of sales stopped or no play left to sell
 * (``refused``: the purchase quote's refusal in words, or null). Neither test money nor a Try
 * is offered during a break; app.js hides Buy when a purchase is refused. */
export async function drawBreak(refused) {
  if (!S.me) return;
  const found = await get("/api/protection");
  const pause = breakText(found.exclusion);
  const text = pause || refused;
  q("lobby-break").hidden = !text;
  q("lobby-break").textContent = text || "";
  q("deposit-form").hidden = Boolean(pause);
  q("lobby-try").hidden = Boolean(pause);
}

function limitStatus(limit) {
  const parts = [];
  if (limit.amount_pence === null) parts.push("No limit.");
  else parts.push(`Limit ${money(limit.amount_pence)}: ${money(limit.deposited_pence)} deposited, ${money(limit.remaining_pence)} left.`);
  if (limit.pending) {
    const asked = limit.requested_pence === null ? "no limit" : money(limit.requested_pence);
    parts.push(`Change to ${asked} can be confirmed from ${dateTimeText(limit.confirmable_at)}.`);
  }
  return parts.join(" ");
}

export async function showProtection() {
  const [found, check] = await Promise.all([get("/api/protection"), get("/api/protection/reality-check")]);
  const confirms = q("limit-confirms");
  confirms.replaceChildren();
  for (const limit of found.deposit_limits) {
    held[limit.period] = limit;
    const input = q(`limit-${limit.period}`);
    // The box holds the limit asked for: a change waiting, or else the limit in force. Saved
    // again unchanged, a change waiting keeps its time (the status line says what is in force).
    const asked = limit.pending ? limit.requested_pence : limit.amount_pence;
    input.value = asked === null ? "" : (asked / 100).toFixed(2);
    q(`limit-${limit.period}-status`).textContent = limitStatus(limit);
    // A change waits 24 hours: its button shows once the server's clock has passed that.
    if (limit.pending && Date.parse(limit.confirmable_at) <= Date.parse(found.now)) {
      confirms.append(el("button", {
        type: "button", class: "btn sm", "data-testid": `confirm-${limit.period}`,
        "data-period": limit.period, text: `Confirm the ${NAMES[limit.period]} change`,
      }));
    }
  }
  q("reality-interval").value = String(check.interval_minutes);
  const text = breakText(found.exclusion);
  q("protection-break").hidden = !text;
  q("protection-break").textContent = text || "";
  // An ended self-exclusion stays until the player asks to play again (and 24 hours more).
  const ended = found.exclusion && found.exclusion.ended && !found.exclusion.returns_at;
  q("return-form").hidden = !ended;
  for (const id of ["timeout-confirm", "exclusion-confirm", "return-confirm"]) q(id).checked = false;
  q("reality-status").textContent = "";
  showScreen("protection");
}

/** The limits as last shown, by period: only a raise of one can be out of order. */
const held = {};

/**
 * The raises entered over a longer period's limit entered with them (a daily limit over the
 * weekly one, which could never be reached), by field, as the server refuses them: a lower or
 * first limit, a removal and what the player has already (in force, or the change that waits)
 * go through whatever their order; fields already wrong keep their own message.
 */
function outOfOrder(body, wrong) {
  const found = {};
  PERIODS.forEach((period, at) => {
    const amount = body[`${period}_pence`];
    const had = held[period];
    if (amount === null || wrong[`${period}_pence`] || !had) return;
    if (had.amount_pence === null || amount <= had.amount_pence) return;  // not a raise
    if (had.pending && amount === had.requested_pence) return;  // the raise that waits
    const caps = PERIODS.slice(at + 1)
      .filter((other) => body[`${other}_pence`] !== null && !wrong[`${other}_pence`])
      .map((other) => body[`${other}_pence`]);
    if (caps.length && Math.min(...caps) < amount) {
      found[`${period}_pence`] = `A ${NAMES[period]} limit over a longer one could never be reached: enter ${money(Math.min(...caps))} or less.`;
    }
  });
  return found;
}

/** ``guard(fn)`` runs an action with the busy flag and alerts. */
export function initProtection({ open, guard }) {
  const form = q("limits-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guard(async () => {
      clearErrors(form);
      const body = {};
      const wrong = {};
      for (const period of PERIODS) {
        const text = q(`limit-${period}`).value.trim();
        const pence = text ? toPence(text) : null;
        if (text && !pence) wrong[`${period}_pence`] = `Enter a ${period} limit in pounds, like 20, or leave it empty.`;
        body[`${period}_pence`] = pence;
      }
      Object.assign(wrong, outOfOrder(body, wrong));
      if (Object.keys(wrong).length) { showErrors(form, { fields: wrong, form: null }); return; }
      try {
        await post("/api/protection/deposit-limits", body);
      } catch (error) {
        showErrors(form, explain(error, "limits"));
        return;
      }
      announce("Deposit limits saved. Lower limits apply now; higher ones wait 24 hours for your confirmation.");
      await showProtection();
    });
  });
  q("limit-confirms").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-period]");
    if (!button) return;
    guard(async () => {
      clearErrors(form);
      try {
        await post(`/api/protection/deposit-limits/${button.dataset.period}/confirm`, {});
      } catch (error) {
        showErrors(form, explain(error, "limits"));
        return;
      }
      announce(`The ${NAMES[button.dataset.period]} limit change is confirmed.`);
      await showProtection();
    });
  });
  // Saved is said under the button, where the player looks (a status region: read out too),
  // and unsaid once the choice changes.
  const realityStatus = q("reality-status");
  q("reality-interval").addEventListener("change", () => { realityStatus.textContent = ""; });
  q("reality-form").addEventListener("submit", (event) => {
    event.preventDefault();
    guard(async () => {
      const minutes = Number.parseInt(q("reality-interval").value, 10);
      realityStatus.textContent = "";
      try {
        await post("/api/protection/reality-check/interval", { interval_minutes: minutes });
      } catch (error) {
        // A check due is seen first: a longer interval would put it off unseen.
        if (!(error instanceof ApiError) || error.code !== "reality_check_due") throw error;
        realityStatus.textContent = "A reality check is due: you will see it before your next play. Choose a longer interval after it.";
        return;
      }
      const chosen = q("reality-interval").selectedOptions[0];
      realityStatus.textContent = `Saved: reality checks every ${chosen ? chosen.textContent : `${minutes} minutes`}.`;
    });
  });
  // A break must be confirmed with its box: unticked, it is said at once and nothing is sent
  // (the server would refuse it in the same words).
  // Said after it: what is in force now, which is the longer break when one was already running.
  const takeBreak = (formEl, path, body, done = null) => formEl.addEventListener("submit", (event) => {
    event.preventDefault();
    guard(async () => {
      clearErrors(formEl);
      const asked = body();
      if (!asked.confirm) {
        showErrors(formEl, explain(new ApiError(422, { code: "confirmation_required" }), formEl.dataset.form));
        return;
      }
      let found;
      try {
        found = await post(path, asked);
      } catch (error) {
        showErrors(formEl, explain(error, formEl.dataset.form));
        return;
      }
      announce(done || breakText(found.exclusion) || "Your break has started.");
      await showProtection();
    });
  });
  takeBreak(q("time-out-form"), "/api/protection/time-out",
    () => ({ days: Number.parseInt(q("timeout-days").value, 10), confirm: q("timeout-confirm").checked }));
  takeBreak(q("exclusion-form"), "/api/protection/self-exclusion",
    () => ({ months: Number.parseInt(q("exclusion-months").value, 10), confirm: q("exclusion-confirm").checked }));
  takeBreak(q("return-form"), "/api/protection/self-exclusion/return",
    () => ({ confirm: q("return-confirm").checked }),
    "You asked to play again: plays and deposits open in 24 hours.");
  q("protection-back").addEventListener("click", () => guard(() => open("lobby")));
}

// ---------------------------------------------------------------- the reality check

function duration(seconds) {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const h = hours === 1 ? "1 hour" : `${hours} hours`;
  const m = minutes === 1 ? "1 minute" : `${minutes} minutes`;
  return hours ? `${h} ${m}` : m;
}

/** The pause: time played and net position of this session, from the server. */
export async function showRealityCheck() {
  const check = await get("/api/protection/reality-check");
  q("reality-time").textContent = duration(check.played_seconds);
  q("reality-net").textContent = check.net_pence > 0 ? `+${money(check.net_pence)}` : money(check.net_pence);
  q("reality-net").dataset.pence = String(check.net_pence);
  q("reality-detail").textContent = `Staked ${money(check.staked_pence)}, won ${money(check.won_pence)} since you logged in. Reality checks every ${check.interval_minutes} minutes; change it under Limits, reality checks, breaks.`;
  showScreen("reality");
}

/** Continue after the check: the next is an interval from now. */
export const continuePlaying = () => post("/api/protection/reality-check/continue", {});
