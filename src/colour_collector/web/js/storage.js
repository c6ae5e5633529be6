// What the browser remembers. localStorage (every tab, kept): the sound setting, whether this
// browser logged in before, the commitments of the prize pools it was shown on sale, and the
// test-speed switch. sessionStorage (this tab only): the Try
// play in progress. Nothing about money or a play's state is kept here: the server has it.

function read(area, key) {
  try { return JSON.parse(area.getItem(key)); } catch { return null; }
}
function write(area, key, value) {
  try {
    if (value === null || value === undefined) area.removeItem(key);
    else area.setItem(key, JSON.stringify(value));
  } catch { /* storage full or blocked: the game works without it */ }
}

export const prefs = {
  /** Sound on? Off until the player turns it on. */
  get sound() { return read(localStorage, "cc_sound") === true; },
  set sound(on) { write(localStorage, "cc_sound", Boolean(on)); },
  /** Did this browser log in before (only decides whether to ask GET /api/me on load)? */
  get maybeLoggedIn() { return read(localStorage, "cc_maybe_logged_in") === true; },
  set maybeLoggedIn(yes) { write(localStorage, "cc_maybe_logged_in", yes ? true : null); },
  /** Test-speed switch: animations run this many times faster (tests set it; default 1). */
  get animationSpeed() {
    const speed = read(localStorage, "cc_animation_speed");
    return typeof speed === "number" && speed > 0 ? speed : 1;
  },
};

const KEPT_POOLS = 20;

/** The commitments of the prize pools this browser was shown on sale, by pool: the first one
 * shown and when (the last ``KEPT_POOLS`` pools). A check after the pool closes compares the
 * commitment with this one, not only with what the server says then. */
export const seenCommitments = {
  get(poolId) {
    const all = read(localStorage, "cc_commitments");
    const seen = all && all[String(poolId)];
    return seen && typeof seen.commitment === "string" ? seen : null;
  },
  remember(poolId, commitment, now = new Date()) {
    const all = read(localStorage, "cc_commitments") || {};
    if (all[String(poolId)]) return;   // the first one shown is the one to hold the pool to
    all[String(poolId)] = { commitment, seen_at: now.toISOString() };
    const kept = Object.keys(all).sort((a, b) => Number(b) - Number(a)).slice(0, KEPT_POOLS);
    write(localStorage, "cc_commitments", Object.fromEntries(kept.map((id) => [id, all[id]])));
  },
};

export const tab = {
  get tryId() { return read(sessionStorage, "cc_try_id"); },
  set tryId(id) { write(sessionStorage, "cc_try_id", id); },
};
