// The end of a play: a takeover with the amount won and FINISH, in proportion to the prize.
//
//   level   prize (stake £5)          what the player sees and hears
//   none    nothing                   "No win this time", plain, silent
//   stake   exactly the stake         "You won £5.00", plain, silent: the price of the play back
//   win     above the stake, < 10x    gold amount, a short jingle
//   big     10x to < 200x (£50+)      BIG WIN!: rays, a burst of coins, the amount counts up, fanfare
//   mega    200x and more (£1,000+)   MEGA WIN!: the same, longer and brighter
//   top     £1,000,000                TOP PRIZE!: as mega
//
// A loss or the stake back is never dressed as a win. Any key or a click on the takeover skips
// the count-up; FINISH works at any time.

import { byTestId, el, focusHeading } from "./dom.js";
import { money, game } from "./format.js";
import { animate, dur, reducedMotion } from "./motion.js";
import { play as sound } from "./sound.js";
import { countUp } from "./animations.js";

const q = byTestId;
const TOP_PRIZE = 100000000;

/** The celebration level of ``prize`` pence for a play costing ``price`` pence. */
export function levelOf(prize, price = game().pricePence) {
  if (!prize || prize <= 0) return "none";
  if (prize <= price) return "stake";
  if (prize < 10 * price) return "win";
  if (prize < 200 * price) return "big";
  return prize >= TOP_PRIZE ? "top" : "mega";
}

const BANNERS = { big: "BIG WIN!", mega: "MEGA WIN!", top: "TOP PRIZE!" };
const COUNT_MS = { big: 2600, mega: 3800, top: 4200 };

/** A seeded generator, so that the same prize draws the same burst (reproducible frames). */
function seeded(seed) {
  let s = seed % 2147483647 || 1;
  return () => { s = (s * 48271) % 2147483647; return s / 2147483647; };
}

function burst(level, prize) {
  const box = document.querySelector(".takeover .burst");
  box.replaceChildren();
  if (!BANNERS[level] || reducedMotion()) return [];
  const rnd = seeded(prize);
  const count = level === "big" ? 26 : 44;
  const runs = [];
  for (let i = 0; i < count; i += 1) {
    const coin = el("span", { class: i % 3 ? "coin" : "coin spark" });
    box.append(coin);
    const angle = rnd() * Math.PI * 2;
    const reach = 120 + rnd() * (level === "big" ? 260 : 420);
    const x = Math.cos(angle) * reach;
    const y = Math.sin(angle) * reach * 0.8 + 80;
    runs.push(animate(coin, [
      { transform: "translate(0, 0) scale(.2) rotate(0deg)", opacity: 0 },
      { transform: `translate(${x * 0.6}px, ${y * 0.6 - 120}px) scale(1) rotate(${180 + rnd() * 360}deg)`, opacity: 1, offset: 0.45 },
      { transform: `translate(${x}px, ${y + 160}px) scale(.8) rotate(${540 + rnd() * 360}deg)`, opacity: 0 },
    ], { duration: 1800 + rnd() * 1400, delay: rnd() * (level === "big" ? 900 : 2200), easing: "cubic-bezier(.2,.7,.4,1)", fill: "both", id: "end-coin" }));
  }
  return runs;
}

/**
 * Show the end takeover for ``board`` (phase over). ``label`` is the Play Number line;
 * ``celebrate`` false shows it at once (resuming a finished play, recall never shows it).
 */
export async function showEnd(board, { label = "", celebrate = true } = {}) {
  const result = board.result;
  const prize = result ? result.prize_pence : 0;
  const level = levelOf(prize);
  const end = q("end-screen");
  end.dataset.level = level;
  const heading = q("end-heading");
  const amount = q("end-amount");
  const detail = q("end-detail");
  const banner = q("win-banner");
  banner.hidden = !BANNERS[level];
  banner.textContent = BANNERS[level] || "";
  detail.textContent = "";
  if (level === "none") {
    heading.textContent = "No win this time";
    amount.textContent = "No win";
  } else if (level === "stake") {
    heading.textContent = "You won";
    amount.textContent = money(prize);
    detail.textContent = "The price of the play back.";
  } else {
    heading.textContent = "Congratulations! You have won";
    amount.textContent = money(prize);
  }
  amount.dataset.pence = String(prize);
  const parts = [];
  if (prize > 0 && result.tier) parts.push(result.tier);
  if (result && result.doubled) parts.push(`Prize Game WIN x2: ${money(result.prize_game_pence)}`);
  q("end-tier").textContent = parts.join(" — ");
  q("end-play-number").replaceChildren();
  if (label.startsWith("Play Number: ")) {
    q("end-play-number").append("Play Number: ", el("span", { class: "pn", text: label.slice(13) }));
  } else {
    q("end-play-number").textContent = label;
  }
  q("end-summary").textContent = `${prize > 0 ? `You won ${money(prize)}` : "No win"}.${parts.length ? ` ${parts.join(". ")}.` : ""}`;
  end.hidden = false;
  document.body.dataset.phase = "over";
  q("finish").disabled = false;
  focusHeading(heading);
  if (!celebrate) return;
  await celebration(level, prize);
}

async function celebration(level, prize) {
  const card = document.querySelector(".end-card");
  if (level === "none" || level === "stake") return;   // plain: no sound, no movement
  if (level === "win") {
    sound("win");
    await animate(card, [{ transform: "scale(.85)", opacity: 0 }, { transform: "scale(1.04)", opacity: 1, offset: 0.7 }, { transform: "scale(1)", opacity: 1 }],
      { duration: 600, easing: "ease-out", id: "end-win" });
    return;
  }
  sound(level === "big" ? "big-win" : "mega-win");
  const amount = q("end-amount");
  const runs = [
    animate(document.querySelector(".takeover .rays"), [{ transform: "rotate(0deg) scale(.4)", opacity: 0 }, { transform: "rotate(25deg) scale(1)", opacity: 1, offset: 0.25 }, { transform: "rotate(120deg) scale(1.1)", opacity: 1 }],
      { duration: COUNT_MS[level] + 800, easing: "linear", fill: "forwards", id: "end-rays" }),
    animate(q("win-banner"), [{ transform: "scale(.2) rotate(-8deg)", opacity: 0 }, { transform: "scale(1.25) rotate(3deg)", opacity: 1, offset: 0.55 }, { transform: "scale(1) rotate(0deg)", opacity: 1 }],
      { duration: 900, easing: "ease-out", fill: "both", id: "end-banner" }),
    animate(card, [{ transform: "scale(.7)", opacity: 0 }, { transform: "scale(1)", opacity: 1 }], { duration: 500, easing: "ease-out", fill: "both", id: "end-card" }),
    countUp(amount, 0, prize, COUNT_MS[level], "end-count"),
    ...burst(level, prize),
  ];
  if (dur(1) > 0) {
    runs.push(animate(amount, [{ transform: "scale(1)" }, { transform: "scale(1.18)", offset: 0.9 }, { transform: "scale(1)" }],
      { duration: COUNT_MS[level] + 300, id: "end-amount-grow" }));
  }
  await Promise.all(runs);
  amount.textContent = money(prize);
}

/** Skip to the end of the celebration (a key or a click on the takeover). */
export function skipCelebration() {
  for (const a of document.getAnimations()) if (a.id && a.id.startsWith("end-")) a.finish();
}

export function hideEnd() {
  q("end-screen").hidden = true;
  q("end-screen").dataset.level = "";
  document.querySelector(".takeover .burst").replaceChildren();
}
