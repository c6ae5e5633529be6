// Which screen shows, and where the focus goes: on every change of screen (or of a panel that
// takes over the game screen) the focus moves to that screen's heading, so a screen reader
// reads the new screen and a keyboard player starts from its top.

import { $, $$, byTestId, focusHeading } from "./dom.js";
import { clearErrors } from "./problems.js";

/** Show the ``<section class="screen" data-screen=name>``; focus its h1 unless ``focus`` is false. */
let draws = 0;
/** How many times a screen has been drawn: what a form can tell "still the same screen" by. */
export const screenDraws = () => draws;

export function showScreen(name, { focus = true } = {}) {
  draws += 1;
  const screen = $(`section.screen[data-screen="${name}"]`);
  for (const s of $$("section.screen")) s.hidden = s !== screen;
  if (name !== alertScreen) hideAlert();   // an alert belongs to the screen it was raised on
  document.body.dataset.screen = name;
  if (name !== "game") document.body.dataset.phase = name;
  clearErrors();
  if (focus && screen) focusHeading($("h1", screen));
}

/** Say ``text`` in the polite live region (a fresh node each time, so repeats are read too). */
export function announce(text) {
  const live = byTestId("live");
  live.textContent = "";
  setTimeout(() => { live.textContent = text; }, 30);
}

let alertScreen = null;
let alertCount = 0;
let focusBefore = null;
const alertBox = () => byTestId("alert-box");

/** Show ``text`` in the alert (read at once by screen readers) until the player puts it away,
 * another screen shows, or, for a problem, a later action goes through: no timer takes it away
 * unread (WCAG 2.2.1). */
export function alertPlayer(text, kind = "error") {
  const box = alertBox();
  byTestId("alert").textContent = text;
  box.dataset.kind = kind;
  box.classList.remove("toast-flipped");
  box.hidden = false;
  alertScreen = document.body.dataset.screen;
  alertCount += 1;
  keepClearOf(document.activeElement);
}

/** The problem the alert shows now (a number for ``clearProblem``), or 0 if none: taken before
 * an action, so that the action, once it has gone through, can put away a problem it has made
 * out of date ("could not reach the server" after a spin that worked), not one it raised. */
export function problemShown() {
  const box = alertBox();
  return !box.hidden && box.dataset.kind === "error" ? alertCount : 0;
}

/** An action has gone through: the problem ``shown`` (``problemShown()`` before it) goes, if
 * it is still the one on screen. A notice ("moved on in another tab") stays until put away. */
export function clearProblem(shown) {
  if (shown && shown === alertCount && !alertBox().hidden) hideAlert();
}

/** The alert is put away by a tap on it or by its × button (the focus then goes back where it
 * was). It lies at one end of the window (the bottom; on a phone the top, over the top bar):
 * when the focus moves to something it covers, it moves to the other end (WCAG 2.4.11). */
export function initAlert() {
  alertBox().addEventListener("click", () => {
    const back = focusBefore;
    const hadFocus = alertBox().contains(document.activeElement);
    hideAlert();
    if (hadFocus && back && back.isConnected && back.offsetParent !== null) back.focus();
  });
  document.addEventListener("focusin", (event) => {
    if (alertBox().contains(event.target)) return;
    focusBefore = event.target;
    keepClearOf(event.target);
  });
}

function keepClearOf(element) {
  const box = alertBox();
  if (box.hidden || !element || element === document.body) return;
  const a = box.getBoundingClientRect();
  const b = element.getBoundingClientRect();
  if (b.height > window.innerHeight / 2) return;   // a whole screen or panel: nowhere to go
  const covers = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  if (covers) box.classList.toggle("toast-flipped");
}

function hideAlert() {
  alertBox().hidden = true;
  alertScreen = null;
}

let busyCount = 0;
/** ``body[data-busy]`` is "true" while a request or an animation runs (tests wait on it). */
export function setBusy(on) {
  busyCount = Math.max(0, busyCount + (on ? 1 : -1));
  document.body.dataset.busy = busyCount > 0 ? "true" : "false";
  document.dispatchEvent(new CustomEvent("cc:busy"));
}
export const isBusy = () => busyCount > 0;
