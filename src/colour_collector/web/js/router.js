// Browser history: each screen has an address (#/lobby, #/my-games, #/my-games/CC-..., #/play),
// so Back and Forward move between the game's screens instead of leaving it. Within a play the
// phases (Main Game, Bonus Game, Prize Game, end) are one address: Back from a play goes to
// the screen before it, and coming back reopens the play where the server has it.

const handlers = new Map();
let sequence = 0;

/** ``handler(params)`` shows the screen; it may return ``redirect(...)`` to show another. */
export function route(name, handler) { handlers.set(name, handler); }

export function hashOf(name, params = {}) {
  if (name === "check") {
    const query = new URLSearchParams();
    for (const key of ["pool", "position", "play"]) {
      if (params[key] !== null && params[key] !== undefined) query.set(key, String(params[key]));
    }
    const text = query.toString();
    return text ? `#/check?${text}` : "#/check";
  }
  if (name === "recall") return `#/my-games/${encodeURIComponent(params.playNumber)}`;
  if (name === "my-games") return params.page > 1 ? `#/my-games?page=${params.page}` : "#/my-games";
  if (name === "account") return "#/";
  if (name === "confirm" || name === "reset") return `#/${name}`;   // the token is not kept in the history
  return `#/${name}`;
}

export function parse(hash) {
  const path = (hash || "").replace(/^#\/?/, "");
  const [head, query = ""] = path.split("?");
  // A part that is not a whole escape ("%E0%A4%A", from a link cut short) is read as typed.
  const decoded = (part) => { try { return decodeURIComponent(part); } catch { return part; } };
  const parts = head.split("/").filter(Boolean).map(decoded);
  if (parts[0] === "my-games" && parts[1]) return { name: "recall", params: { playNumber: parts[1] } };
  if (parts[0] === "my-games") {
    const page = Number.parseInt(new URLSearchParams(query).get("page") || "1", 10);
    return { name: "my-games", params: { page: page > 0 ? page : 1 } };
  }
  if (parts[0] === "check") {
    const search = new URLSearchParams(query);
    const whole = (key, least) => {
      const text = search.get(key);
      const n = text !== null && /^\d{1,13}$/.test(text) ? Number(text) : null;
      return n !== null && n >= least ? n : null;
    };
    const play = search.get("play");
    return { name: "check", params: { pool: whole("pool", 1), position: whole("position", 0), play: play || null } };
  }
  if (parts[0] === "confirm" || parts[0] === "reset") return { name: parts[0], params: { token: parts[1] || "" } };
  if (parts.length === 0) return { name: "account", params: {} };
  return handlers.has(parts[0]) ? { name: parts[0], params: {} } : { name: "account", params: {} };
}

/** Show another screen instead (from inside a handler): ``return redirect("lobby")``. */
export async function redirect(name, params = {}) {
  const shown = await handlers.get(name)(params);
  return shown || { name, params };
}

/**
 * Show the screen ``name`` and record it in the history: a new entry, or in place of the
 * current one with ``replace`` (or when it is the same address, or when the browser's Back or
 * Forward brought us here, ``fromHistory``).
 */
export async function go(name, params = {}, { replace = false, fromHistory = false } = {}) {
  const mine = ++sequence;
  const shown = await redirect(name, params);
  if (mine !== sequence) return;   // a later navigation won
  const url = hashOf(shown.name, shown.params);
  const state = { name: shown.name, params: shown.params };
  if (fromHistory || replace || url === window.location.hash) window.history.replaceState(state, "", url);
  else window.history.pushState(state, "", url);
}

/** Back and Forward: ``run(action)`` runs the navigation (app.js: busy flag, errors shown). */
export function listen(run) {
  window.addEventListener("popstate", () => {
    const { name, params } = parse(window.location.hash);
    run(() => go(name, params, { fromHistory: true }));
  });
}
