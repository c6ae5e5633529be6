// Timing of every animation. Under prefers-reduced-motion nothing moves: each length is zero and
// the screen goes straight to the result, which then stays until the player's next action (the
// marks of a spin are drawn by board.js, not by an animation). The test-speed switch
// (storage.js) divides every length.

import { prefs } from "./storage.js";

const query = window.matchMedia("(prefers-reduced-motion: reduce)");
export const reducedMotion = () => query.matches;

/** Milliseconds for an animation that normally takes ``ms``. */
export const dur = (ms) => (reducedMotion() ? 0 : ms / prefs.animationSpeed);

/** Resolve after ``dur(ms)``. */
export const wait = (ms) => new Promise((resolve) => { setTimeout(resolve, dur(ms)); });

/** CSS lengths follow the same factor: calc(300ms * var(--t)). */
export function syncCssTiming() {
  document.documentElement.style.setProperty("--t", String(dur(1000) / 1000));
}
query.addEventListener("change", syncCssTiming);

/**
 * Run a Web Animation on ``element`` and resolve when it ends (at once when motion is reduced).
 * ``options.id`` names it, so that tests can see which animation ran.
 */
export function animate(element, keyframes, options) {
  const duration = dur(options.duration);
  if (!element || duration === 0) return Promise.resolve();
  const run = element.animate(keyframes, { ...options, duration, delay: dur(options.delay || 0) });
  if (options.id) run.id = options.id;
  return run.finished.then(() => undefined, () => undefined);
}
