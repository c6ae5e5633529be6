// Words and numbers as the player reads them: money, UK dates, the game's labels. No game rule
// lives here; every amount is integer pence the server sent.

const grouped = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 0 });
const ukDate = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
const ukDateTime = new Intl.DateTimeFormat("en-GB", {
  day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit",
});
const ukTime = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit" });

/** Integer pence as £1,234.50 / £5.00 (negative as -£5.00). */
export function money(pence) {
  if (pence === null || pence === undefined) return "—";
  const sign = pence < 0 ? "-" : "";
  const abs = Math.abs(pence);
  return `${sign}£${grouped.format(Math.floor(abs / 100))}.${String(abs % 100).padStart(2, "0")}`;
}

/** A signed net position: +£5.00, -£5.00, £0.00. */
export const signedMoney = (pence) => (pence > 0 ? `+${money(pence)}` : money(pence));

/** "YYYY-MM-DD" (a date of birth) as "1 April 1990"; null when it is not a date. */
export function dayText(iso) {
  if (typeof iso !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(iso)) return null;
  const when = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(when.getTime()) ? null : ukDate.format(when);
}

/** An ISO timestamp as "3 March 2025 at 14:05" in the player's time zone. */
export function dateTimeText(iso) {
  const when = new Date(iso);
  return Number.isNaN(when.getTime()) ? "" : ukDateTime.format(when);
}

/** A moment (milliseconds since 1970, on this page's clock) as "14:05" in the player's time
 * zone. */
export const timeText = (ms) => ukTime.format(new Date(ms));

/** Milliseconds as 01:02:03. */
export function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const two = (n) => String(n).padStart(2, "0");
  return `${two(Math.floor(s / 3600))}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
}

/** A Play Number for examples in messages, with non-breaking hyphens so it never wraps. */
export const EXAMPLE_PLAY_NUMBER = "CC\u20117K3\u2011D9Q\u2011XM4";

/** "1 EXTRA SPIN", "2 EXTRA SPINS": a count before an upper-case plural label. */
function counted(n, plural) {
  return n === 1 && plural.endsWith("S") ? `1 ${plural.slice(0, -1)}` : `${n} ${plural}`;
}

/** Default labels and letters, used only until GET /api/game answers (or if it cannot). */
const DEFAULT_GAME = {
  colours: ["orange", "red", "yellow", "green", "blue", "purple"],
  letters: ["O", "R", "Y", "G", "B", "P"],
  start: "orange",
  pricePence: 500,
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
};

/** The game description from GET /api/game, over the defaults. */
export function readGame(raw) {
  const game = structuredClone(DEFAULT_GAME);
  if (!raw || typeof raw !== "object") return game;
  if (Array.isArray(raw.colours) && raw.colours.length) {
    game.colours = raw.colours.map((c) => (typeof c === "string" ? c : c.name));
    if (raw.colours.every((c) => c && c.letter)) game.letters = raw.colours.map((c) => c.letter);
  }
  if (typeof raw.start_colour === "string") game.start = raw.start_colour;
  if (Number.isInteger(raw.price_pence)) game.pricePence = raw.price_pence;
  if (Array.isArray(raw.bonus_prizes)) {
    for (const p of raw.bonus_prizes) if (p && p.kind && p.label) game.bonusLabels[p.kind] = p.label;
  }
  return game;
}

let G = DEFAULT_GAME;
export const setGame = (game) => { G = game; };
export const game = () => G;

export const letterOf = (colour) => G.letters[G.colours.indexOf(colour)] || "";
const titleCase = (word) => word.charAt(0).toUpperCase() + word.slice(1);
/** "Red (R)". */
export const colourName = (colour) => `${titleCase(colour)} (${letterOf(colour)})`;

const ITEM_NAMES = { bonus: "Bonus symbol", prize_game: "Prize Game symbol" };
/** "Circle", "Bonus symbol". */
export const itemName = (item) => ITEM_NAMES[item] || titleCase(String(item));
const ITEM_PLURALS = { bonus: "Bonus symbols", prize_game: "Prize Game symbols" };
const itemNames = (item, n) => (n === 1 ? itemName(item) : ITEM_PLURALS[item] || `${titleCase(String(item))}s`);

/** A Bonus Prize as its box shows it: "2 EXTRA SPINS", "1 EXTRA SPIN", "PRIZE BOOSTER". */
export function bonusLabel(prize) {
  const label = G.bonusLabels[prize.kind] || String(prize.kind).replace(/_/g, " ").toUpperCase();
  return prize.value ? counted(prize.value, label) : label;
}

/** A Prize Game square: an amount, WIN or WIN x2. */
export function prizeItemText(item) {
  if (item === "win") return "WIN";
  if (item === "win_x2") return "WIN x2";
  return money(item);
}

/** A Prize Game square as short as its box needs: £1,000, £5, 50p, WIN, WIN x2. */
export function prizeSquareText(item) {
  if (typeof item !== "number") return prizeItemText(item);
  if (item < 100) return `${item}p`;
  return item % 100 === 0 ? `£${grouped.format(item / 100)}` : money(item);
}

/** What a spin collected, in words: "2 Circles, Bonus symbol" / "£5.00, WIN". */
export function describeCollected(items) {
  if (!items || !items.length) return "nothing";
  const counts = new Map();
  for (const it of items) counts.set(it, (counts.get(it) || 0) + 1);
  return Array.from(counts, ([it, n]) => {
    if (typeof it === "number" || it === "win" || it === "win_x2") {
      return n > 1 ? `${n} × ${prizeItemText(it)}` : prizeItemText(it);
    }
    return n > 1 ? `${n} ${itemNames(it, n)}` : itemName(it);
  }).join(", ");
}
