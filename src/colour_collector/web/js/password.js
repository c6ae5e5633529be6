// A forgotten password: ask for a link by e-mail (the same answer whether or not the address
// has an account), then choose a new password at the link, which logs in and ends every other
// login of the account (POST /api/password/forgot, POST /api/password/reset).

import { post, ApiError } from "./api.js";
import { byTestId } from "./dom.js";
import { showScreen } from "./screens.js";
import { explain, showErrors, clearErrors } from "./problems.js";

const q = byTestId;
let token = "";   // the mailed link's token: in memory only, never in the address or storage

/** The form asking for a link, ``email`` filled in (what the log-in form had). */
export function showForgot(email = "") {
  q("forgot-email").value = email;
  q("forgot-status").textContent = "";
  showScreen("forgot");
}

/** The form choosing a new password, for the link's ``linkToken`` (kept from an earlier
 * visit of the link when empty: the address no longer has it). */
export function showReset(linkToken = "") {
  if (linkToken) token = linkToken;
  q("reset-password").value = "";
  q("reset-password-field").hidden = false;
  q("reset-submit").hidden = false;
  showScreen("reset");
  if (!token) linkDead("Open the link in the e-mail again, or ask for a new one.");
}

/** The link does not work: say so, and offer only a new one (the password was not the fault). */
function linkDead(message) {
  q("reset-password-field").hidden = true;
  q("reset-submit").hidden = true;
  const box = q("reset-form-error");
  box.textContent = message;
  box.hidden = false;
  q("reset-forgot").focus();
}

/** ``guard(fn)`` runs an action with the busy flag; ``open(name)`` navigates; ``loggedIn(account)``
 * takes over once the new password is saved (it logs in). */
export function initPassword({ guard, open, loggedIn }) {
  q("login-forgot").addEventListener("click", () => guard(() => open("forgot")));
  q("forgot-login").addEventListener("click", () => guard(() => open("account")));
  q("reset-forgot").addEventListener("click", () => guard(() => open("forgot")));
  const forgot = q("forgot-form");
  forgot.addEventListener("submit", (event) => {
    event.preventDefault();
    const email = q("forgot-email").value.trim();
    guard(async () => {
      clearErrors(forgot);
      const status = q("forgot-status");
      status.textContent = "";
      try {
        await post("/api/password/forgot", { email });
      } catch (error) {
        showErrors(forgot, explain(error, "forgot"));
        return;
      }
      setTimeout(() => {   // a fresh text, so that asking again is read again
        status.textContent = `If ${email} has an account, we have e-mailed it a link to choose a new password, working once, for 1 hour (or, if the account was never confirmed, how to register again). Nothing there? Check your spam folder.`;
      }, 30);
    });
  });
  const reset = q("reset-form");
  reset.addEventListener("submit", (event) => {
    event.preventDefault();
    const password = q("reset-password").value;
    guard(async () => {
      clearErrors(reset);
      let account;
      try {
        account = await post("/api/password/reset", { token, password });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        // A token the server cannot even read is a bad link too.
        const unreadable = error.code === "invalid_request"
          && (error.problem.errors || []).some(({ field }) => String(field || "").endsWith("token"));
        if (unreadable || error.code === "invalid_token") {
          token = "";
          linkDead(explain(new ApiError(400, { code: "invalid_token" }), "reset").form);
        } else showErrors(reset, explain(error, "reset"));
        return;
      }
      token = "";
      await loggedIn(account);
    });
  });
}
