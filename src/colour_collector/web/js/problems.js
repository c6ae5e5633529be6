// The server's problems (RFC 9457: a stable `code`, and `errors: [{field, message}]` for bad
// fields) in the player's words: one friendly sentence per field, shown next to that field, or
// one for the whole form. The server's own texts are for developers and are never shown.

import { ApiError } from "./api.js";
import { dayText, dateTimeText, money, EXAMPLE_PLAY_NUMBER } from "./format.js";
import { $, $$ } from "./dom.js";

const FIELD = {
  email: () => "Enter your e-mail address, like name@example.com.",
  password: (form) => (form === "register" || form === "reset"
    ? "Choose a password of at least 10 characters."
    : "Enter your password."),
  date_of_birth: () => "Enter your date of birth, like 1 April 1990.",
  play_number: () => `Enter a Play Number, like ${EXAMPLE_PLAY_NUMBER}.`,
  amount_pence: () => "Enter an amount in pounds, like 20 or 12.50.",
  daily_pence: () => "Enter a daily limit in pounds, like 20, or leave it empty.",
  weekly_pence: () => "Enter a weekly limit in pounds, like 50, or leave it empty.",
  monthly_pence: () => "Enter a monthly limit in pounds, like 100, or leave it empty.",
  confirm: () => "Tick the box to confirm.",
};

const PERIOD = { daily: "daily", weekly: "weekly", monthly: "monthly" };

const minutes = (seconds) => {
  const n = Math.max(1, Math.ceil((seconds || 60) / 60));
  return n === 1 ? "a minute" : `${n} minutes`;
};

/**
 * ``{fields: {name: message}, form: message | null}`` for an error from a form's request.
 * ``values`` are what the player entered (a date of birth is quoted back in UK form).
 */
export function explain(error, form, values = {}) {
  const fields = {};
  let whole = null;
  if (!(error instanceof ApiError)) {
    return { fields, form: "The game could not reach the server. Check your connection and try again." };
  }
  const listed = Array.isArray(error.problem.errors) ? error.problem.errors : [];
  switch (error.code) {
    case "invalid_request":
      for (const { field } of listed) {
        const name = String(field || "").split(".").pop();
        if (FIELD[name]) fields[name] = FIELD[name](form);
        else whole = "Something in the form is not right. Check it and try again.";
      }
      if (!listed.length) whole = "Something in the form is not right. Check it and try again.";
      break;
    case "underage": {
      const day = dayText(values.date_of_birth);
      fields.date_of_birth = day
        ? `You must be 18 or over to play. With a date of birth of ${day}, you are under 18.`
        : "You must be 18 or over to play.";
      break;
    }
    case "email_not_confirmed":
      whole = "Your account is not confirmed yet. Open the link we e-mailed you, or send the e-mail again.";
      break;
    case "invalid_credentials":
      if (form === "confirm") {
        fields.password = "This is not the password you registered with. If you registered more than once, enter the one you chose last.";
      } else whole = "The e-mail address or password is not right. Check them and try again.";
      break;
    case "too_many_attempts":
      whole = `Too many attempts to log in. Wait ${minutes(error.retryAfter)} and try again.`;
      break;
    case "invalid_token":
      whole = form === "reset"
        ? "This link has expired or has been used already. Ask for a new one."
        : sayProblem(error);
      break;
    case "play_not_found":
      fields.play_number = "No play with that Play Number is in your account. Check the number and try again.";
      break;
    case "insufficient_funds":
      if (form === "payout") {
        fields.amount_pence = `You can withdraw up to your balance of ${money(error.problem.balance_pence)}.`;
      } else whole = sayProblem(error);
      break;
    case "confirmation_required":
      fields.confirm = FIELD.confirm();
      break;
    case "timed_out":
    case "self_excluded":
      // On the limits form the break is why a raise, a removal or a confirmation was refused.
      whole = form === "limits"
        ? `${sayProblem(error)} During a break a deposit limit can be lowered, not raised or removed.`
        : sayProblem(error);
      break;
    default:
      whole = sayProblem(error);
  }
  return { fields, form: whole };
}

/** The break in force, in words (or null). */
export function breakText(exclusion) {
  if (!exclusion) return null;
  if (exclusion.ended && exclusion.kind === "self_exclusion") {
    return exclusion.returns_at
      ? `Your self-exclusion has ended and you asked to play again: plays and deposits open on ${dateTimeText(exclusion.returns_at)}. You can still withdraw your balance.`
      : `Your self-exclusion ended on ${dateTimeText(exclusion.ends_at)}. It stays in place until you ask to play again; plays and deposits then open 24 hours later. You can still withdraw your balance.`;
  }
  const what = exclusion.kind === "time_out" ? "You are taking a time-out" : "You have excluded yourself";
  return `${what} until ${dateTimeText(exclusion.ends_at)}. No plays or deposits until then; you can still finish a play you started and withdraw your balance.`;
}

/** One sentence for an error outside a form (shown in the alert). */
export function sayProblem(error) {
  if (!(error instanceof ApiError)) {
    return "The game could not reach the server. Check your connection and try again.";
  }
  switch (error.code) {
    case "not_authenticated": return "You are logged out. Log in again to go on.";
    case "csrf_failed": return "This page is out of date. Reload it and try again.";
    case "insufficient_funds": return "Your balance is too low for this play. Add test money first.";
    case "too_many_emails": return `We have sent several e-mails to this address already. Wait ${minutes(error.retryAfter)} and try again.`;
    case "invalid_token": return "This confirmation link has expired or is not valid. Log in to ask for a new one.";
    case "already_confirmed": return "Your account is already confirmed. Log in to play.";
    case "too_many_tries": return `Too many free tries from here in the last hour. Try again in ${minutes(error.retryAfter)}.`;
    case "sold_out": return "Colour Collector has sold out: no plays are left until the next prize pool opens.";
    case "pool_unavailable": return "No plays can be sold just now. Try again later.";
    case "pool_not_found": return "There is no such prize pool.";
    case "pool_not_closed": return "That prize pool's secret is not published yet: it is once the pool is closed and every play of it is finished.";
    case "test_deposits_disabled": return "Test money cannot be added here.";
    case "play_not_found": return "That play is not in your account.";
    case "duplicate_play": return "The play could not be bought just now. Try again.";
    case "sales_stopped": return "Colour Collector is not on sale at the moment. You can still finish a play you have started.";
    case "timed_out": return `You are taking a time-out until ${dateTimeText(error.problem.until)}. No plays or deposits until then; you can still withdraw.`;
    case "self_excluded": return error.problem.until
      ? `You have excluded yourself until ${dateTimeText(error.problem.until)}. No plays or deposits until then; you can still withdraw.`
      : "Your self-exclusion has ended, but it stays in place until you ask to play again (under Limits, reality checks, breaks). You can still withdraw.";
    case "return_not_allowed": return "There is no ended self-exclusion to return from: a self-exclusion cannot be lifted before its end.";
    case "reality_check_due": return "Time for a reality check before your next play.";
    case "deposit_limit_exceeded": {
      const limit = error.problem.limit || {};
      const when = error.problem.resets_at
        ? ` You can deposit this amount from ${dateTimeText(error.problem.resets_at)}.`
        : " This amount is more than the limit itself.";
      return `That deposit would go over your ${PERIOD[limit.period] || ""} deposit limit of ${money(limit.amount_pence)}: ${money(error.problem.deposited_pence)} deposited so far.${when}`;
    }
    case "deposit_limits_unanswered": return "Before you deposit, set a deposit limit or choose not to.";
    case "limit_change_not_due": return `You can confirm this change from ${dateTimeText(error.problem.confirmable_at)}, 24 hours after you asked for it.`;
    case "no_pending_limit_change": return "There is no limit change to confirm.";
    case "payment_declined": return "Your payment was declined. Nothing was taken or paid.";
    case "payments_unavailable": return "Deposits and withdrawals are not available on this server.";
    default:
      if (error.status >= 500) return "Something went wrong on our side. Try again in a moment.";
      return "That did not work. Try again.";
  }
}

/** Clear every message of ``formEl`` (or of every form). */
export function clearErrors(formEl = null) {
  const forms = formEl ? [formEl] : $$("form[data-form]");
  for (const f of forms) {
    for (const p of $$(".field-error, .form-error", f)) { p.hidden = true; p.textContent = ""; }
    for (const input of $$("[aria-invalid]", f)) {
      input.removeAttribute("aria-invalid");
      const ids = (input.getAttribute("aria-describedby") || "").split(/\s+/).filter((id) => id && !id.endsWith("-error"));
      if (ids.length) input.setAttribute("aria-describedby", ids.join(" "));
      else input.removeAttribute("aria-describedby");
    }
  }
}

/** Show ``explained`` next to the fields of ``formEl``; focus the first field in error. */
export function showErrors(formEl, explained) {
  clearErrors(formEl);
  const name = formEl.dataset.form;
  let first = null;
  for (const [field, message] of Object.entries(explained.fields)) {
    const box = $(`#${name}-${field}-error`);
    const input = formEl.elements[field];
    if (!box || !input) { explained.form = explained.form || message; continue; }
    box.textContent = message;
    box.hidden = false;
    input.setAttribute("aria-invalid", "true");
    const ids = (input.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
    input.setAttribute("aria-describedby", [...ids, box.id].join(" "));
    first = first || input;
  }
  if (explained.form) {
    const box = $(`#${name}-form-error`) || $(`#${name}-${Object.keys(explained.fields)[0]}-error`);
    if (box) { box.textContent = explained.form; box.hidden = false; }
    for (const input of $$("input, select", formEl)) {
      if (!box || input.getAttribute("aria-invalid")) continue;
      const ids = (input.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
      input.setAttribute("aria-describedby", [...ids, box.id].join(" "));
      input.setAttribute("aria-invalid", "true");
    }
  }
  const focus = first || $("input, select", formEl);
  if (focus) focus.focus();
}
