// The animations of the Game Procedures, dressing up the change from the board before a step
// to the board after it (both from the server). Each one ends with the screen drawn exactly as
// the server's board says; under reduced motion every length is zero (motion.js) and only the
// result is drawn. Named Web Animations (``id``) let the tests see that an animation ran.
//
//   mainSpin     the wheel turns, squares of its colour highlight, fly to their row or box,
//                the rows' symbols take the colour, new symbols refill, the colours drain
//                and come back
//   unlock       "BONUS GAME" / "PRIZE GAME" turns into "... UNLOCKED"
//   bonusOpen    the Main Game window dims and the Bonus Game panel grows out of its box
//   bonusPick    the reel turns while the Bonus Prizes light in turn, then lands
//   bonusClose   the prizes won animate, the panel shrinks away, their effects show
//   prizeIntro   the Main Game window dims, the Prize Game grid overlays the grid, its amounts
//                turn from white to colour
//   prizeSpin    as mainSpin, the amounts fly into the Prize Pot; WIN x2 doubles it

import { $$, byTestId, el, icon } from "./dom.js";
import { money, prizeItemText } from "./format.js";
import { animate, wait, dur } from "./motion.js";
import { play as sound } from "./sound.js";
import * as view from "./board.js";

const q = byTestId;
const SHAPES = ["circle", "triangle", "square", "diamond", "pentagon", "hexagon", "star"];

/** Thrown out of an animation when the player left the play (Back, another tab's state). */
export class Cancelled extends Error {}
let epoch = 0;
/** Stop every running step animation (at its next stage). */
export function cancelAnimations() { epoch += 1; }
const checker = () => {
  const mine = epoch;
  return () => { if (mine !== epoch) throw new Cancelled("the play was left"); };
};

// ---------------------------------------------------------------- small pieces

/** Count ``node``'s money from ``from`` to ``to`` pence (driven by a Web Animation). */
export function countUp(node, from, to, ms, id) {
  const length = dur(ms);
  if (length === 0 || from === to) { node.textContent = money(to); return Promise.resolve(); }
  const run = node.animate([{ opacity: 1 }, { opacity: 1 }], { duration: length });
  run.id = id;
  return new Promise((resolve) => {
    const done = () => { node.textContent = money(to); resolve(); };
    const tick = () => {
      if (run.playState === "finished" || run.playState === "idle") { done(); return; }
      const t = Math.min(1, Math.max(0, (run.currentTime || 0) / length));
      const eased = 1 - (1 - t) ** 3;
      const value = from + (to - from) * eased;
      node.textContent = money(to - from >= 10000 ? Math.round(value / 100) * 100 : Math.round(value));
      requestAnimationFrame(tick);
    };
    run.finished.then(done, done);
    requestAnimationFrame(tick);
  });
}

/** Move a copy of ``content`` from ``from`` onto ``to``, then drop it. */
async function fly(from, to, content, delay = 0) {
  if (!from || !to || dur(650) === 0) return;
  const a = from.getBoundingClientRect();
  const b = to.getBoundingClientRect();
  const ghost = el("div", { class: "flyer", "aria-hidden": "true" });
  ghost.append(content);
  ghost.style.left = `${a.left + a.width / 2 - 18}px`;
  ghost.style.top = `${a.top + a.height / 2 - 18}px`;
  document.body.append(ghost);
  const dx = b.left + b.width / 2 - (a.left + a.width / 2);
  const dy = b.top + b.height / 2 - (a.top + a.height / 2);
  try {
    await animate(ghost, [
      { transform: "translate(0,0) scale(1.2)", opacity: 1 },
      { transform: `translate(${dx}px,${dy}px) scale(.7)`, opacity: 0.9 },
    ], { duration: 650, delay, easing: "ease-in-out", fill: "forwards", id: "fly" });
  } finally {
    ghost.remove();
  }
}

function flyTarget(item) {
  if (item === "bonus") return $$(".sil", q("bonus-game-box")).find((s) => !s.classList.contains("on")) || q("bonus-game-box");
  if (item === "prize_game") return $$(".sil", q("prize-game-box")).find((s) => !s.classList.contains("on")) || q("prize-game-box");
  const row = q(`prize-row-${SHAPES.indexOf(item)}`);
  return row ? row.querySelector(".boxes") : null;
}

/** The wheel turns to ``colour``; the Segment Indicator takes it when the wheel stops. */
async function turnWheel(colour, check) {
  sound("spin");
  view.setIndicator(null);
  view.setWheel(colour, true);
  await wait(1650);
  check();
  view.setIndicator(colour);
}

/** The squares of ``grid`` take their colours one after another ("refilling with a new colour"). */
async function colourIn(gridEl, squares, check) {
  const cells = Array.from(gridEl.children);
  const runs = [];
  cells.forEach((node, i) => {
    const sq = squares[i];
    if (!sq || !sq.colour || node.classList.contains("gone")) return;
    view.applyColour(node, sq.colour);
    runs.push(animate(node, [{ filter: "saturate(0) brightness(1.6)" }, { filter: "none" }],
      { duration: 420, delay: i * 28, easing: "ease-out", id: "colour-in" }));
  });
  await Promise.all(runs);
  check();
}

// ---------------------------------------------------------------- headings

/** "PRIZE GAME" turns into "PRIZE GAME UNLOCKED" (and the same for the Bonus Game Box). */
export async function unlock(boxId, text) {
  const box = q(boxId);
  const heading = box.querySelector("h2");
  if (heading.textContent === text) return;
  sound("unlock");
  await animate(heading, [{ transform: "rotateX(0deg)", opacity: 1 }, { transform: "rotateX(90deg)", opacity: 0.2 }],
    { duration: 260, easing: "ease-in", id: "heading-out" });
  heading.textContent = text;
  box.classList.add("unlocked");
  await Promise.all([
    animate(heading, [
      { transform: "rotateX(-90deg) scale(1.3)", opacity: 0.2, color: "#ffffff" },
      { transform: "rotateX(0deg) scale(1.15)", opacity: 1, offset: 0.6 },
      { transform: "rotateX(0deg) scale(1)", opacity: 1 },
    ], { duration: 700, easing: "ease-out", id: "heading-unlock" }),
    animate(box, [{ boxShadow: "0 0 0 2px #ffc83d, 0 0 0 #ffc83d" }, { boxShadow: "0 0 0 3px #fff3bf, 0 0 28px #ffc83d" },
      { boxShadow: "0 0 0 2px #ffc83d, 0 0 14px #ffc83d" }], { duration: 900, id: "box-unlock" }),
  ]);
}

async function unlocks(before, after) {
  if (after.phase === "bonus" && before.phase !== "bonus") await unlock("bonus-game-box", "BONUS GAME UNLOCKED");
  if (after.prize_game_unlocked && !before.prize_game_unlocked) await unlock("prize-game-box", "PRIZE GAME UNLOCKED");
}

// ---------------------------------------------------------------- Main Game spin

export async function mainSpin(before, step, after) {
  const check = checker();
  view.drawSpinsLeft(after);   // the Spins Left Indicator goes down as the wheel starts
  await turnWheel(step.wheel, check);
  const cells = step.collected.map((i) => q(`cell-${i}`));
  for (const c of cells) c.classList.add("hit");
  if (cells.length) sound("collect");
  await wait(900);
  check();
  await Promise.all(step.collected.map((sq, k) => {
    const item = step.collected_items[k];
    const ico = icon(item, "item");
    ico.style.fill = `var(--${step.wheel})`;
    const from = q(`cell-${sq}`);
    if (from) from.classList.add("gone");
    return fly(from, flyTarget(item), ico, k * 60);
  }));
  check();
  // The collected symbols land: the rows' symbols take the wheel's colour, boxes fill.
  const marks = view.marksOf(step, before, after);
  view.drawTable(after, marks);
  const pops = [];
  for (const [r, row] of after.prize_table.entries()) {
    if (marks.rowsGained[r]) {
      pops.push(animate(q(`prize-row-${r}`).querySelector(".shape"),
        [{ transform: "scale(1)", fill: "#ffffff" }, { transform: "scale(1.5)" }, { transform: "scale(1)" }],
        { duration: 500, easing: "ease-out", id: "row-colour" }));
    }
    if (row.complete && !before.prize_table[r].complete) {
      sound("row");
      pops.push(animate(q(`prize-row-${r}`), [{ transform: "scale(1)" }, { transform: "scale(1.05)" }, { transform: "scale(1)" }],
        { duration: 900, iterations: 2, id: "row-complete" }));
    }
  }
  await unlocks(before, after);
  view.drawBoxes(after, marks);
  await Promise.all(pops);
  check();
  // New symbols refill the spaces, the colours drain from the grid, then come back.
  view.drawGrid(after.grid, { drained: true, marks });
  await wait(450);
  check();
  await colourIn(q("grid"), after.grid, check);
  return marks;
}

// ---------------------------------------------------------------- Bonus Game

export async function bonusOpen(board) {
  const check = checker();
  view.drawBonusPanel(board);
  view.showBonusPanel(true);
  const panel = q("bonus-panel");
  const from = q("bonus-game-box").getBoundingClientRect();
  const to = panel.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  await animate(panel, [
    { transform: `translate(${dx}px, ${dy}px) scale(.15)`, opacity: 0 },
    { transform: "translate(0, 0) scale(1.03)", opacity: 1, offset: 0.75 },
    { transform: "none", opacity: 1 },
  ], { duration: 650, easing: "ease-out", id: "bonus-panel-in" });
  check();
}

export async function bonusPick(step, picked) {
  const check = checker();
  const items = $$("li", q("bonus-prizes"));
  const reel = q("bonus-reel");
  const chosen = q(`pick-${picked}`);
  chosen.classList.add("chosen");
  const turns = dur(90) === 0 ? 0 : 16;
  for (let k = 0; k < turns; k += 1) {   // cosmetic: the reel turns, the prizes light in turn
    reel.textContent = String(1 + Math.floor(Math.random() * 12));
    for (const li of items) li.classList.remove("lit");
    items[Math.floor(Math.random() * items.length)].classList.add("lit");
    await wait(60 + k * 6);
    check();
  }
  for (const li of items) li.classList.remove("lit");
  reel.textContent = String(step.number);
  reel.dataset.number = String(step.number);
  animate(reel, [{ transform: "scale(1.25)" }, { transform: "scale(1)" }], { duration: 300, id: "reel-stop" });
  const landed = Number.isInteger(step.prize) ? items[step.prize] : null;
  if (step.won) {
    if (landed) landed.classList.add("won");
    sound("bonus");
    await animate(landed, [{ transform: "scale(1)" }, { transform: "scale(1.12)" }, { transform: "scale(1)" }],
      { duration: 500, id: "bonus-prize-won" });
    chosen.classList.remove("chosen");
    return;
  }
  // A wrong pick: the selected button turns red; the Bonus Game is over.
  chosen.classList.add("lost");
  sound("bonus-end");
  await wait(900);
  check();
}

/** The prizes won animate, the panel goes, the main window comes back with their effects. */
export async function bonusClose(before, after) {
  const check = checker();
  const won = $$("li.won", q("bonus-prizes"));
  await Promise.all(won.map((li, i) => animate(li, [
    { transform: "scale(1)", boxShadow: "0 0 0 #ffc83d" },
    { transform: "scale(1.1)", boxShadow: "0 0 22px #ffc83d" },
    { transform: "scale(1)", boxShadow: "0 0 0 #ffc83d" },
  ], { duration: 700, delay: i * 120, iterations: 2, id: "bonus-awarded" })));
  check();
  const panel = q("bonus-panel");
  const to = q("bonus-game-box").getBoundingClientRect();
  const from = panel.getBoundingClientRect();
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  panel.dataset.state = "closing";
  await animate(panel, [
    { transform: "none", opacity: 1 },
    { transform: `translate(${dx}px, ${dy}px) scale(.15)`, opacity: 0 },
  ], { duration: 550, easing: "ease-in", id: "bonus-panel-out" });
  delete panel.dataset.state;
  check();
  view.showBonusPanel(false);
  // What the Bonus Prizes did: amounts, spins, Prize Table boxes, Prize Game Box.
  view.drawTable(after);
  view.drawSpinsLeft(after);
  const changed = [];
  after.prize_table.forEach((row, i) => {
    const was = before.prize_table[i];
    const node = q(`prize-row-${i}`);
    if (row.amount_pence !== was.amount_pence) {
      const amt = node.querySelector(".amt");
      changed.push(countUp(amt, was.amount_pence, row.amount_pence, 900, "amount-up"));
      changed.push(animate(amt, [{ color: "#ffc83d", transform: "scale(1.25)" }, { color: "#ffffff", transform: "scale(1)" }],
        { duration: 1000, id: "amount-boost" }));
    }
    if (row.filled !== was.filled) changed.push(animate(node, [{ background: "rgba(255,200,61,.5)" }, { background: "rgba(255,255,255,.04)" }], { duration: 900, id: "row-filled" }));
  });
  if (after.spins_left !== before.spins_left) {
    changed.push(animate(q("spins-left"), [{ transform: "scale(1.4)", color: "#ffc83d" }, { transform: "scale(1)", color: "#ffffff" }],
      { duration: 900, id: "spins-added" }));
  }
  await unlocks(before, after);
  view.drawBoxes(after);
  if (after.prize_game_box !== before.prize_game_box) {
    changed.push(animate(q("prize-game-box"), [{ transform: "scale(1.08)" }, { transform: "scale(1)" }], { duration: 700, id: "box-filled" }));
  }
  await Promise.all(changed);
  check();
}

// ---------------------------------------------------------------- Prize Game

/** The Main Game window dims; the Prize Game grid overlays the grid; amounts turn to colour. */
export async function prizeIntro(board) {
  const check = checker();
  sound("unlock");
  const boardEl = q("board");
  boardEl.classList.add("prize-window");
  q("grid").hidden = true;
  q("bonus-game-box").hidden = true;
  q("prize-pot").hidden = false;
  q("grid-heading").textContent = "PRIZE GAME";
  view.drawSpinsLeft(board);
  view.drawPot(board, 0);
  view.drawPrizeGrid(board, { drained: true });   // white amounts first
  q("prize-grid").hidden = false;
  await Promise.all([
    animate(q("prize-grid"), [{ transform: "scale(.6)", opacity: 0 }, { transform: "scale(1)", opacity: 1 }],
      { duration: 700, easing: "ease-out", id: "prize-grid-in" }),
    animate(q("prize-pot"), [{ transform: "scale(.6)", opacity: 0 }, { transform: "scale(1)", opacity: 1 }],
      { duration: 700, easing: "ease-out", id: "prize-pot-in" }),
    animate(q("prize-table"), [{ filter: "none" }, { filter: "brightness(.62) saturate(.5)" }],
      { duration: 700, id: "main-window-dim" }),
  ]);
  check();
  await wait(350);
  check();
  await colourIn(q("prize-grid"), board.prize_game.grid, check);
}

export async function prizeSpin(before, step, after) {
  const check = checker();
  await turnWheel(step.wheel, check);
  const cells = step.collected.map((i) => q(`prize-cell-${i}`));
  for (const c of cells) c.classList.add("hit");
  if (cells.length) sound("collect");
  await wait(900);
  check();
  await Promise.all(step.collected.map((sq, k) => {
    const from = q(`prize-cell-${sq}`);
    if (from) from.classList.add("gone");
    const label = el("span", { class: "amount", text: prizeItemText(step.collected_items[k]) });
    label.style.color = `var(--${step.wheel})`;
    return fly(from, q("pot-amount"), label, k * 60);
  }));
  check();
  const marks = view.marksOf(step, before, after);
  const prize = after.prize_game;
  sound("pot");
  await countUp(q("pot-amount"), before.prize_game.pot_pence, prize.pot_pence, 700, "pot-fill");
  view.setPotAmount(prize.pot_pence);
  check();
  if (prize.over) {
    view.drawPrizeGrid(after, { marks });
    if (prize.doubled && after.result) {
      await wait(500);
      check();
      view.drawPot(after, prize.pot_pence);
      await Promise.all([
        animate(q("pot-double"), [{ transform: "scale(.3)", opacity: 0 }, { transform: "scale(1.1)", opacity: 1, offset: 0.7 }, { transform: "scale(1)", opacity: 1 }],
          { duration: 700, easing: "ease-out", id: "pot-doubled" }),
        countUp(q("pot-amount"), prize.pot_pence, after.result.prize_game_pence, 900, "pot-double-up"),
      ]);
      view.drawPot(after);
      check();
    }
    await wait(700);
    check();
    return marks;
  }
  view.drawPrizeGrid(after, { drained: true, marks });
  await wait(450);
  check();
  await colourIn(q("prize-grid"), prize.grid, check);
  return marks;
}

/** The start of a play: the grid's white symbols take on their colours. */
export async function intro(board) {
  const check = checker();
  if (board.phase !== "main") return;
  view.drawGrid(board.grid, { drained: true });
  await wait(350);
  check();
  await colourIn(q("grid"), board.grid, check);
}
