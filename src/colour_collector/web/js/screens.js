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

let alertTimer = null;
let alertScreen = null;
let alertCount = 0;
/** Show ``text`` in the alert box (read at once by screen readers) for a few seconds, or until
 * another screen shows. */
export function alertPlayer(text, kind = "error") {
  const box = byTestId("alert");
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = false;
  alertScreen = document.body.dataset.screen;
  alertCount += 1;
  clearTimeout(alertTimer);
  alertTimer = setTimeout(hideAlert, 9000);
}

/** The problem the alert shows now (a number for ``clearProblem``), or 0 if none: taken before
 * an action, so that the action, once it has gone through, can put away a problem it has made
 * out of date ("could not reach the server" after a spin that worked), not one it raised. */
export function problemShown() {
  const box = byTestId("alert");
  return !box.hidden && box.dataset.kind === "error" ? alertCount : 0;
}

/** An action has gone through: the problem ``shown`` (``problemShown()`` before it) goes, if
 * it is still the one on screen. A notice ("moved on in another tab") stays its time. */
export function clearProblem(shown) {
  if (shown && shown === alertCount && !byTestId("alert").hidden) hideAlert();
}

/** A tap or click on the alert puts it away (on a phone it lies over the screen's top). */
export function initAlert() {
  byTestId("alert").addEventListener("click", hideAlert);
}

function hideAlert() {
  clearTimeout(alertTimer);
  byTestId("alert").hidden = true;
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
