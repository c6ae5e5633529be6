// Drawing the game screen (the "actuator"): the Prize Table, the Prize Game and Bonus Game
// Boxes, the Colour Wheel and its Segment Indicator, the grid, the Prize Game grid and Prize Pot,
// the Bonus Game panel. Everything is drawn from a `board` the server returned
// (docs/api-plays.md); resuming a play draws the wheel, the indicator and the Prize Table's
// colours where the play left them (board.wheel, prize_table[].colour).
//
// Marks: after a spin, the squares it collected, the boxes it filled and a line saying what it
// collected stay on screen until the player's next action (with reduced motion too: nothing
// here depends on an animation).

import { $, $$, byTestId, el, icon, svgEl, patternLayer } from "./dom.js";
import { money, letterOf, colourName, itemName, prizeItemText, prizeSquareText, bonusLabel, describeCollected, game } from "./format.js";
import { dur } from "./motion.js";

const q = byTestId;
let rotation = 0;   // degrees the wheel has turned in total

// ---------------------------------------------------------------- the wheel

export function mountWheel() {
  const rotor = $(".rotor");
  rotor.replaceChildren();
  const { colours, letters } = game();
  const n = colours.length;
  const r = 96;
  colours.forEach((colour, i) => {
    const a0 = ((i - 0.5) * 360 / n - 90) * Math.PI / 180;
    const a1 = ((i + 0.5) * 360 / n - 90) * Math.PI / 180;
    const d = `M0 0 L${r * Math.cos(a0)} ${r * Math.sin(a0)} A${r} ${r} 0 0 1 ${r * Math.cos(a1)} ${r * Math.sin(a1)} Z`;
    rotor.append(svgEl("path", { d, class: `seg seg-${colour}`, "data-colour": colour }));
    rotor.append(svgEl("path", { d, class: "seg-pat", fill: `url(#wpat-${colour})` }));
  });
  colours.forEach((colour, i) => {
    const am = (i * 360 / n - 90) * Math.PI / 180;
    const g = svgEl("g", { class: "seg-letter", transform: `translate(${62 * Math.cos(am)} ${62 * Math.sin(am)})` });
    g.append(svgEl("circle", { r: "17" }));
    const t = svgEl("text", {});
    t.textContent = letters[i] || "";
    g.append(t);
    rotor.append(g);
  });
  rotor.append(svgEl("circle", { r: "20", class: "hub" }));
  setWheel(game().start, false);
}

const angleOf = (colour) => -Math.max(0, game().colours.indexOf(colour)) * 360 / game().colours.length;

/** Turn the wheel so that ``colour`` is under the Segment Indicator; letters stay upright. */
export function setWheel(colour, animated) {
  const target = angleOf(colour);
  if (animated) {
    let next = rotation + 720;
    next += ((target - next) % 360 + 360) % 360;   // at least two turns, then that segment
    rotation = next;
  } else {
    rotation = target;
  }
  const rotor = $(".rotor");
  const parts = [rotor, ...rotor.querySelectorAll(".seg-letter text")];
  if (!animated) for (const p of parts) p.style.transition = "none";
  rotor.style.transform = `rotate(${rotation}deg)`;
  for (const t of rotor.querySelectorAll(".seg-letter text")) t.style.transform = `rotate(${-rotation}deg)`;
  if (!animated) {
    void rotor.getBoundingClientRect();
    for (const p of parts) p.style.transition = "";
  }
  q("wheel").dataset.turning = animated && dur(1600) > 0 ? "true" : "false";
}

/** The Segment Indicator shows ``colour`` (null: white, while the wheel turns). */
export function setIndicator(colour) {
  $(".pointer").style.fill = colour ? `var(--${colour})` : "#fff";
  q("wheel").dataset.colour = colour || "";
  q("wheel").dataset.turning = "false";
  q("indicator").textContent = colour ? `Segment Indicator: ${colourName(colour)}` : "The wheel is turning";
}

// ---------------------------------------------------------------- a whole board

/**
 * Draw ``board``. ``marks`` (from ``marksOf``) keeps the last step's result on screen;
 * ``recall`` draws a past step read-only.
 */
export function drawBoard(board, { marks = null, recall = false } = {}) {
  setWheel(board.wheel || game().start, false);
  setIndicator(board.wheel || game().start);
  drawTable(board, marks);
  drawBoxes(board, marks);
  const prize = board.prize_game;
  const inPrize = Boolean(prize);
  q("grid").hidden = inPrize;
  q("prize-grid").hidden = !inPrize;
  q("prize-pot").hidden = !inPrize;
  q("bonus-game-box").hidden = inPrize;   // the Prize Game window has the Prize Pot instead
  q("board").classList.toggle("prize-window", inPrize);
  q("grid-heading").textContent = inPrize ? "PRIZE GAME" : "PLAY GRID";
  if (inPrize) drawPrizeGrid(board, { marks }); else drawGrid(board.grid, { marks });
  drawPot(board);
  drawSpinsLeft(board);
  drawLastSpin(marks);
  drawBonusPanel(board);
  setGameHeading(board, recall);
}

export function setGameHeading(board, recall = false, playNumber = "") {
  const names = { main: "Main Game", bonus: "Bonus Game", prize: "Prize Game", over: "the result" };
  const h = q("game-heading");
  if (recall) h.textContent = `Recall of play ${playNumber || ""}`.trim();
  else h.textContent = `Colour Collector: ${names[board.phase] || "Main Game"}`;
}

export function drawSpinsLeft(board) {
  const left = board.spins_left;
  const prize = Boolean(board.prize_game);
  const node = q("spins-left");
  node.textContent = `${left} ${left === 1 ? "SPIN" : "SPINS"} LEFT`;
  node.dataset.value = String(left);
  // In the Prize Game the Main Game's spins are used up: no "0 SPINS LEFT" beside its SPIN.
  node.hidden = prize;
  q("keep-spinning").hidden = !prize || board.prize_game.over;
}

// ---------------------------------------------------------------- Prize Table and boxes

function rowText(row, colour) {
  const shape = itemName(row.shape);
  const tint = colour ? `, ${colour}` : "";
  return `${shape}${tint}: ${Math.min(row.filled, row.boxes)} of ${row.boxes} boxes${row.complete ? ", won" : ""}.`;
}

export function drawTable(board, marks = null) {
  const list = $(".ptable .rows");
  list.replaceChildren();
  board.prize_table.forEach((row, i) => {
    const gained = marks && marks.rowsGained ? marks.rowsGained[i] || 0 : 0;
    const boxes = el("span", { class: "boxes", "aria-hidden": "true" });
    for (let b = 0; b < row.boxes; b += 1) {
      const fresh = b < row.filled && b >= row.filled - gained;
      boxes.append(el("span", { class: `bx${b < row.filled ? " on" : ""}${fresh ? " new" : ""}` }));
    }
    const shape = icon(row.shape, "shape");
    if (row.colour) shape.style.fill = `var(--${row.colour})`;
    const li = el("li", {
      class: `prow${row.complete ? " complete" : ""}${gained ? " gained" : ""}`,
      "data-testid": `prize-row-${i}`,
      "data-shape": row.shape,
      "data-filled": String(row.filled),
      "data-boxes": String(row.boxes),
      "data-amount-pence": String(row.amount_pence),
      "data-colour": row.colour || "",
    },
    el("span", { class: "sr-only", text: rowText(row, row.colour) }),
    shape, boxes,
    el("span", { class: "amt", "data-testid": `prize-amount-${i}`, text: money(row.amount_pence) }));
    list.append(li);
  });
}

export function drawBoxes(board, marks = null) {
  const fill = (id, count, name, heading, unlocked, gained) => {
    const section = q(id);
    section.classList.toggle("unlocked", unlocked);
    section.dataset.count = String(count);
    const h = section.querySelector("h2");
    if (h.textContent !== heading) h.textContent = heading;
    const sils = section.querySelector(".silhouettes");
    sils.replaceChildren();
    const shown = Math.min(count, 6);
    for (let i = 0; i < 6; i += 1) {
      const fresh = i < shown && i >= shown - gained;
      sils.append(icon(name, `sil${i < shown ? " on" : ""}${fresh ? " new" : ""}`));
    }
    q(`${id.replace("-box", "")}-count`).textContent = `${shown} of 6 collected`;
  };
  const bonusOn = board.phase === "bonus";
  fill("bonus-game-box", board.bonus_box, "bonus", bonusOn ? "BONUS GAME UNLOCKED" : "BONUS GAME", bonusOn,
    marks ? marks.bonusGained || 0 : 0);
  fill("prize-game-box", board.prize_game_box, "prize_game",
    board.prize_game_unlocked ? "PRIZE GAME UNLOCKED" : "PRIZE GAME", board.prize_game_unlocked,
    marks ? marks.prizeGained || 0 : 0);
}

// ---------------------------------------------------------------- grids

function cell(i, testid, colour, content, name) {
  const node = el("div", { class: "cell", role: "listitem", "data-testid": `${testid}-${i}` });
  if (content) node.append(content);
  node.append(el("span", { class: "sr-only cell-name", "data-name": name, text: name }));
  applyColour(node, colour);
  return node;
}

/** Give a square its colour (pattern, border, letter) or take it away (``colour`` null: white). */
export function applyColour(node, colour) {
  for (const c of Array.from(node.classList)) if (c.startsWith("c-")) node.classList.remove(c);
  for (const old of node.querySelectorAll(":scope > .pat, :scope > .letter")) old.remove();
  node.dataset.colour = colour || "";
  const name = node.querySelector(".cell-name");
  if (colour) {
    node.classList.add(`c-${colour}`);
    node.prepend(patternLayer(colour));
    node.insertBefore(el("span", { class: "letter", "aria-hidden": "true", text: letterOf(colour) }), name);
  }
  const base = name.dataset.name;
  const extra = name.textContent.includes(". ") ? name.textContent.slice(name.textContent.indexOf(". ")) : "";
  name.textContent = `${colour ? `${base}, ${colour}` : base}${extra}`;
}

function markCollected(node, text) {
  node.classList.add("collected");
  node.dataset.collected = "true";
  node.append(el("span", { class: "tick", "aria-hidden": "true", text: "✓" }));
  node.querySelector(".cell-name").textContent += `. ${text}`;
}

/** The Main Game grid; ``drained``: all white (before colours are applied). */
export function drawGrid(grid, { drained = false, marks = null } = {}) {
  const collected = marks && marks.kind === "spin" ? marks.collected : null;
  q("grid").replaceChildren(...grid.map((sq, i) => {
    const node = cell(i, "cell", drained ? null : sq.colour, icon(sq.item, "item"), itemName(sq.item));
    node.dataset.item = sq.item;
    if (collected && collected.has(i)) {
      markCollected(node, `New here: the last spin collected ${itemName(marks.items[marks.order.get(i)])} from this square`);
    }
    return node;
  }));
}

/** The Prize Game grid. Squares the final spin collected stay empty (nothing refills them). */
export function drawPrizeGrid(board, { drained = false, marks = null } = {}) {
  const prize = board.prize_game;
  const collected = marks && marks.kind === "prize_spin" ? marks.collected : null;
  const final = prize.over;
  q("prize-grid").replaceChildren(...prize.grid.map((sq, i) => {
    const text = prizeSquareText(sq.item);
    const taken = collected && collected.has(i);
    const empty = final && (sq.collected || taken);
    const node = cell(i, "prize-cell", drained || empty ? null : sq.colour,
      empty ? null : el("span", { class: text.length > 5 ? "amount long" : "amount", "aria-hidden": "true", text }), prizeItemText(sq.item));
    node.dataset.item = String(sq.item);
    if (typeof sq.item === "string") node.classList.add("win-sym");
    if (empty) {
      node.classList.add("gone");
      markCollected(node, "Collected");
    } else if (taken) {
      markCollected(node, `New here: the last spin collected ${prizeItemText(marks.items[marks.order.get(i)])} from this square`);
    }
    return node;
  }));
}

// ---------------------------------------------------------------- Prize Pot

/** The pot; on WIN x2 the server's doubled amount and "WIN x2: £a DOUBLED TO £b". */
export function drawPot(board, shownPence = null) {
  const prize = board.prize_game;
  const pot = prize ? prize.pot_pence : 0;
  const dbl = q("pot-double");
  let shown = pot;
  if (prize && prize.doubled && board.result) {
    shown = board.result.prize_game_pence;
    dbl.hidden = false;
    dbl.replaceChildren("WIN x2: ", el("span", { class: "nowrap", text: money(pot) }), " DOUBLED TO ",
      el("span", { class: "nowrap", text: money(shown) }));
    dbl.dataset.pence = String(shown);
  } else {
    dbl.hidden = true;
  }
  setPotAmount(shownPence === null ? shown : shownPence);
}

export function setPotAmount(pence) {
  q("pot-amount").textContent = money(pence);
  q("pot-amount").dataset.pence = String(pence);
}

// ---------------------------------------------------------------- Bonus Game panel

export function drawBonusPanel(board) {
  const bonus = board.bonus_game;
  if (!bonus) return;
  q("bonus-prizes").replaceChildren(...bonus.panel.map((p, i) => el("li", {
    "data-testid": `bonus-prize-${i}`, "data-kind": p.kind, "data-value": String(p.value || 0), text: bonusLabel(p),
  })));
  for (const r of bonus.rounds) {
    const li = q(`bonus-prize-${r.prize}`);
    if (r.won && li) li.classList.add("won");
  }
  const last = bonus.rounds[bonus.rounds.length - 1];
  q("bonus-reel").textContent = last && last.number ? String(last.number) : "?";
  q("bonus-reel").dataset.number = last && last.number ? String(last.number) : "";
  for (const b of $$(".btn.pick")) b.classList.remove("lost", "chosen");
}

export function showBonusPanel(open) {
  q("bonus-panel").hidden = !open;
  q("board").classList.toggle("dim", open);
}

// ---------------------------------------------------------------- marks of the last step

/**
 * What to keep marked after ``step`` took ``before`` to ``after``: the squares collected, the
 * boxes and silhouettes filled (the differences between the two boards) and the wheel's colour.
 */
export function marksOf(step, before, after) {
  if (!step || (step.kind !== "spin" && step.kind !== "prize_spin")) return null;
  const order = new Map(step.collected.map((sq, k) => [sq, k]));
  const marks = {
    kind: step.kind, wheel: step.wheel, items: step.collected_items, collected: new Set(step.collected), order,
    rowsGained: {}, bonusGained: 0, prizeGained: 0,
  };
  if (before && after && step.kind === "spin") {
    after.prize_table.forEach((row, i) => {
      const gained = Math.min(row.filled, row.boxes) - Math.min(before.prize_table[i].filled, row.boxes);
      if (gained > 0) marks.rowsGained[i] = gained;
    });
    const shown = (n) => Math.min(n, 6);
    marks.bonusGained = Math.max(0, shown(after.bonus_box) - shown(before.bonus_box));
    marks.prizeGained = Math.max(0, shown(after.prize_game_box) - shown(before.prize_game_box));
  }
  return marks;
}

export function drawLastSpin(marks) {
  const line = q("last-spin");
  if (!marks) { line.hidden = true; line.textContent = ""; delete line.dataset.colour; return; }
  line.hidden = false;
  line.dataset.colour = marks.wheel;
  line.replaceChildren(
    el("span", { class: `chip c-${marks.wheel}`, "aria-hidden": "true", text: letterOf(marks.wheel) }),
    ` ${marks.wheel.toUpperCase()}: ${marks.items.length ? `collected ${describeCollected(marks.items)}` : "nothing to collect"}`,
  );
}
