// Presentation helpers: money, SVG icons, timing, session storage. No game rules live here.

const grouped = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 0 });

/** Integer pence from the server as £1,234.50 / £5.00 (negative as -£5.00). */
export function money(pence) {
  if (pence === null || pence === undefined) return "—";
  const sign = pence < 0 ? "-" : "";
  const abs = Math.abs(pence);
  return `${sign}£${grouped.format(Math.floor(abs / 100))}.${String(abs % 100).padStart(2, "0")}`;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("data-") || k.startsWith("aria-") || k === "role" || k === "type") node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

const SVG = "http://www.w3.org/2000/svg";
/** An <svg> showing one of the sprite symbols (#s-circle ... #s-prize_game). */
export function icon(name, cls = "") {
  const svg = document.createElementNS(SVG, "svg");
  if (cls) svg.setAttribute("class", cls);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", `#s-${name}`);
  svg.append(use);
  return svg;
}
export function svgEl(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

export const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;
/** Milliseconds for an animation step: short under prefers-reduced-motion. */
export const dur = (ms) => (reducedMotion() ? Math.min(ms, Math.max(1, Math.round(ms * 0.02))) : ms);
export const wait = (ms) => new Promise((resolve) => setTimeout(resolve, dur(ms)));

export const store = {
  get(key) { try { return JSON.parse(sessionStorage.getItem(key)); } catch { return null; } },
  set(key, value) { sessionStorage.setItem(key, JSON.stringify(value)); },
  del(key) { sessionStorage.removeItem(key); },
};

export function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const two = (n) => String(n).padStart(2, "0");
  return `${two(Math.floor(s / 3600))}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
}

/** Default labels and letters, used only until GET /api/game answers (or if it cannot). */
export const DEFAULT_GAME = {
  colours: ["orange", "red", "yellow", "green", "blue", "purple"],
  letters: ["O", "R", "Y", "G", "B", "P"],
  start: "orange",
  bonusLabels: {
    extra_spins: "EXTRA SPINS",
    prize_booster: "PRIZE BOOSTER",
    super_prize_booster: "SUPER PRIZE BOOSTER",
    mega_prize_booster: "MEGA PRIZE BOOSTER",
    symbols: "SYMBOLS",
    more_symbols: "MORE SYMBOLS",
    prize_game_symbols: "PRIZE GAME SYMBOLS",
    unlock_prize_game: "UNLOCK PRIZE GAME",
  },
  priceText: "£5.00",
};

/** Read GET /api/game in any of the shapes it may reasonably take; keep defaults otherwise. */
export function normaliseGame(raw) {
  const game = structuredClone(DEFAULT_GAME);
  if (!raw || typeof raw !== "object") return game;
  const c = raw.colours;
  if (Array.isArray(c) && c.length) {
    if (typeof c[0] === "string") game.colours = c.slice();
    else {
      game.colours = c.map((x) => x.name);
      if (c.every((x) => x.letter)) game.letters = c.map((x) => x.letter);
    }
  } else if (c && Array.isArray(c.names)) {
    game.colours = c.names.slice();
    if (Array.isArray(c.letters)) game.letters = c.letters.slice();
  }
  if (Array.isArray(raw.letters)) game.letters = raw.letters.slice();
  const start = raw.start_colour || (c && c.start) || raw.colour_start;
  if (typeof start === "string") game.start = start;
  const labels = raw.bonus_prizes || raw.bonus_prize_labels || (raw.bonus_game && raw.bonus_game.prizes);
  if (labels && typeof labels === "object") {
    for (const [kind, v] of Object.entries(labels)) {
      if (typeof v === "string") game.bonusLabels[kind] = v;
      else if (v && v.label) game.bonusLabels[v.kind || kind] = v.label;
    }
    if (Array.isArray(labels)) for (const v of labels) if (v && v.kind && v.label) game.bonusLabels[v.kind] = v.label;
  }
  if (Number.isInteger(raw.price_pence)) game.priceText = money(raw.price_pence);
  return game;
}
