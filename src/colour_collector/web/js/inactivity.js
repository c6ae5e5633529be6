// The activity that keeps the login session alive, and the warning before it ends (WCAG 2.2.1
// Timing Adjustable). A session ends 30 minutes after the player's last click or key, or 12 hours
// after login, whichever is first (the server's rule: service/inactivity.py). The server says
// how many seconds the session has left (``expires_in_seconds``) and whether activity would move
// its end on (``extendable``); the page times the warning by its own clock from that figure,
// never by comparing the server's ``expires_at`` with its own time (the two clocks differ).

import { get, post, ApiError } from "./api.js";
import { byTestId } from "./dom.js";
import { timeText } from "./format.js";
import { S } from "./state.js";

const q = byTestId;
const KEEP_ALIVE_MS = 60_000;
const SETTLE_MS = 2_000;
/** The warning shows this long before the end (WCAG 2.2.1 asks for 20 seconds at least). */
const WARN_BEFORE_MS = 120_000;
/** The end is asked about just after it (the seconds left are rounded down). */
const AFTER_END_MS = 1_000;
/** How often the end is asked about again when the server could not be reached. */
const ASK_AGAIN_MS = 30_000;
/** setTimeout's longest delay: a later time is asked about again then. */
const LONGEST_MS = 2_147_483_647;
/** Keys that move the focus or modify another key: not an answer to the warning. */
const NOT_ANSWERS = new Set(["Tab", "Shift", "Control", "Alt", "Meta", "CapsLock"]);

let lastSent = 0;
let timer = null;
let guard = (action) => action();
let ends = null;           // { at: the end on this page's clock (ms), extendable } or null
let warnTimer = null;
let endTimer = null;
let shown = null;          // the warning on screen: { extendable, back: the focus before it }
let fixedEndTold = false;  // the warning of the session's fixed end was put away with OK

/** The session was just made or renewed (a login): no need to report activity for a minute. */
export function sessionRenewed() { lastSent = Date.now(); }

/** The server said how long the session has left (an answer of ``GET /api/session`` or of the
 * activity report): the warning waits until 2 minutes before its end, or shows now. */
export function sessionEndsIn(answer) {
  if (!S.me || !answer || !Number.isFinite(answer.expires_in_seconds)) return;
  ends = { at: Date.now() + answer.expires_in_seconds * 1000, extendable: answer.extendable };
  schedule();
}

/** The session is over here (logged out, or found ended): no warning, nothing waiting. */
export function sessionClosed() {
  clearTimeout(warnTimer);
  clearTimeout(endTimer);
  ends = null;
  fixedEndTold = false;
  if (shown) closeWarning();
}

function schedule() {
  clearTimeout(warnTimer);
  clearTimeout(endTimer);
  const left = ends.at - Date.now();
  if (left > WARN_BEFORE_MS) {
    if (shown) closeWarning();   // renewed, here or in another tab
    warnTimer = setTimeout(askServer, Math.min(left - WARN_BEFORE_MS, LONGEST_MS));
    return;
  }
  endTimer = setTimeout(askServer, left > 0 ? left + AFTER_END_MS : ASK_AGAIN_MS);
  if (ends.extendable || !fixedEndTold) showWarning();
}

/** Before warning, and at the end: ask the server, since another tab may have renewed the
 * session (the warning then waits for the new end). A session ended meanwhile answers 401, and
 * the player is logged out as on any request (``guard``). Without an answer, the end last heard
 * of stands. */
function askServer() {
  return guard(async () => {
    try {
      sessionEndsIn(await get("/api/session"));
    } catch (error) {
      if (error instanceof ApiError && error.code === "not_authenticated") throw error;
      if (ends) schedule();
    }
  });
}

// ---------------------------------------------------------------- the warning

function showWarning() {
  const at = timeText(ends.at);
  q("session-warning-heading").textContent = ends.extendable
    ? "You will be logged out soon" : "Your session is ending";
  q("session-warning-text").textContent = ends.extendable
    ? `You have not used the game for a while. For your security, you will be logged out at ${at} unless you stay logged in.`
    : `For your security, a session cannot last longer: yours ends at ${at}. You will need to log in again then.`;
  const stay = q("session-stay");
  const ok = q("session-ok");
  stay.hidden = !ends.extendable;
  ok.hidden = ends.extendable;
  if (shown && shown.extendable === ends.extendable) return;   // already there: the focus stays
  shown = { extendable: ends.extendable, back: shown ? shown.back : document.activeElement };
  q("session-warning").hidden = false;
  (ends.extendable ? stay : ok).focus();
}

function closeWarning() {
  const { back } = shown;
  shown = null;
  q("session-warning").hidden = true;
  if (back && back !== document.body && back.isConnected && back.offsetParent !== null) back.focus({ preventScroll: true });
  else document.getElementById("main").focus({ preventScroll: true });
}

/** Stay logged in: the warning goes at once and the session is renewed (as any activity). */
function stay() {
  if (!shown || !shown.extendable) return;
  closeWarning();
  clearTimeout(timer);
  timer = null;
  lastSent = Date.now();
  guard(async () => sessionEndsIn(await post("/api/session/activity", {})));
}

/** OK on the fixed end's warning: it goes, and is not shown again for this session. */
function putAway() {
  if (!shown || shown.extendable) return;
  fixedEndTold = true;
  closeWarning();
}

/** While the warning shows, every key is its own (the game's keys do not act under it): Tab
 * stays on its button; any other key (Enter or Space on the button, Escape) answers it: it
 * renews the session, or, for the fixed end, Enter, Space or Escape put it away. */
function warningKey(event) {
  if (!shown) return;
  event.stopPropagation();
  const button = shown.extendable ? q("session-stay") : q("session-ok");
  if (event.key === "Tab") {
    event.preventDefault();
    button.focus();
    return;
  }
  if (NOT_ANSWERS.has(event.key)) return;
  if (shown.extendable) {
    event.preventDefault();
    stay();
  } else if (event.key === "Enter" || event.key === " " || event.key === "Escape") {
    event.preventDefault();
    putAway();
  }
}

// ---------------------------------------------------------------- activity

/** Tell the server the player is active (a click or a key), at most once a minute, so that a
 * session ends only after 30 minutes without any; the answer times the warning. The report
 * waits a moment and is dropped if the player has logged out meanwhile (a click on Log out is
 * activity too). While the warning shows, a click anywhere (it covers the window) or a key
 * renews the session at once and puts it away. ``guard(fn)`` runs an action with the busy flag
 * and alerts, and logs out a player whose session has ended. */
export function initActivity({ guard: run }) {
  guard = run;
  const send = () => {
    timer = null;
    if (!S.me) return;
    lastSent = Date.now();
    post("/api/session/activity", {}).then(sessionEndsIn).catch(() => { lastSent = 0; });
  };
  const active = () => {
    if (shown || !S.me || timer !== null || Date.now() - lastSent < KEEP_ALIVE_MS) return;
    timer = setTimeout(send, SETTLE_MS);
  };
  document.addEventListener("pointerdown", active, { passive: true });
  document.addEventListener("keydown", active);
  document.addEventListener("keydown", warningKey, true);   // before the game's keys
  q("session-warning").addEventListener("click", (event) => {
    if (event.target.closest('[data-testid="session-ok"]')) putAway();
    else stay();
  });
}
