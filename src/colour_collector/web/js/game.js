// The game screen: Prize Table, Prize Game Box, Bonus Game Box, Colour Wheel, grid, Bonus Game
// panel, Prize Game and the end takeover.
//
// Everything drawn comes from a `board` the server returned (see docs/api-plays.md). `render`
// draws a board as it is; the `animate*` functions only dress up the change from the board before
// a step to the board after it, using the `step` the server described. No rule of the game is
// computed here: what was collected, what a Bonus Prize did and what the play won are all read
// from the server's answers.

import { $, $$, el, icon, svgEl, money, wait, dur } from "./util.js";

const SHAPES = ["circle", "triangle", "square", "diamond", "pentagon", "hexagon", "star"];
const ITEM_NAMES = {
  bonus: "Bonus symbol",
  prize_game: "Prize Game symbol",
};

let G = null;          // normalised game description (colours, letters, labels)
let current = null;    // the board on screen
let mode = "play";     // "play" | "try" | "recall"
let busy = false;
let rotation = 0;      // degrees the wheel has turned in total
let handlers = {};     // { step(kind, pick) -> {step, board}, finish() }
let rowColours = {};   // row index -> colour the row's symbol took on the last collection
let playLabel = "";    // "Play Number: CC-..." on the end screen

const q = (id) => $(`[data-testid="${id}"]`);

export function setBusy(value) {
  busy = value;
  document.body.dataset.busy = value ? "true" : "false";
  updateButtons();
}

export function announce(text) {
  const live = q("live");
  live.textContent = "";
  // A fresh text node in a new task so screen readers announce repeats too.
  setTimeout(() => { live.textContent = text; }, 30);
}

const letterOf = (colour) => G.letters[G.colours.indexOf(colour)] || "";
const colourName = (colour) => `${colour.toUpperCase()} (${letterOf(colour)})`;
const itemName = (item) => ITEM_NAMES[item] || item;
function bonusLabel(prize) {
  const label = G.bonusLabels[prize.kind] || prize.kind.replace(/_/g, " ").toUpperCase();
  return prize.value ? `${prize.value} ${label}` : label;
}
function prizeItemText(item) {
  if (item === "win") return "WIN";
  if (item === "win_x2") return "WIN x2";
  return money(item);
}

// ---------------------------------------------------------------- set up

export function mountGame(game, stepHandlers) {
  G = game;
  handlers = stepHandlers;
  const rotor = $(".rotor");
  rotor.replaceChildren();
  const n = G.colours.length;
  const r = 96;
  G.colours.forEach((colour, i) => {
    const a0 = ((i - 0.5) * 360 / n - 90) * Math.PI / 180;
    const a1 = ((i + 0.5) * 360 / n - 90) * Math.PI / 180;
    const path = `M0 0 L${r * Math.cos(a0)} ${r * Math.sin(a0)} A${r} ${r} 0 0 1 ${r * Math.cos(a1)} ${r * Math.sin(a1)} Z`;
    rotor.append(svgEl("path", { d: path, fill: `var(--${colour})`, stroke: "#0b1330", "stroke-width": "3", "data-colour": colour }));
    const am = (i * 360 / n - 90) * Math.PI / 180;
    const t = svgEl("text", { x: 64 * Math.cos(am), y: 64 * Math.sin(am) });
    t.textContent = G.letters[i] || "";
    rotor.append(t);
  });
  rotor.append(svgEl("circle", { r: "20", fill: "#0b1330", stroke: "#fff", "stroke-width": "3" }));
  resetWheel();

  q("spin").addEventListener("click", () => spin());
  for (const b of $$(".btn.pick")) b.addEventListener("click", () => pick(b.dataset.pick));
  q("finish").addEventListener("click", () => finish());
  document.addEventListener("keydown", (event) => {
    if (document.body.dataset.screen !== "game" || mode === "recall" || document.body.dataset.overlay) return;
    const target = event.target;
    if (target && target.closest && target.closest("button, input, select, textarea, a")) return;
    if ((event.key === " " || event.key === "Enter") && !q("spin").disabled) { event.preventDefault(); spin(); }
    if (current && current.next === "bonus_pick" && !busy) {
      if (event.key === "o" || event.key === "O") { event.preventDefault(); pick("odd"); }
      if (event.key === "e" || event.key === "E") { event.preventDefault(); pick("even"); }
    }
  });
}

export function resetWheel() {
  const i = Math.max(0, G.colours.indexOf(G.start));
  rotation = -i * 360 / G.colours.length;
  setRotation(false);
  setIndicator(G.start);
}

/** Turn the wheel to ``rotation``; its letters stay upright. */
function setRotation(animated = true) {
  const rotor = $(".rotor");
  const parts = [rotor, ...rotor.querySelectorAll("text")];
  if (!animated) for (const p of parts) p.style.transition = "none";
  rotor.style.transform = `rotate(${rotation}deg)`;
  for (const t of rotor.querySelectorAll("text")) t.style.transform = `rotate(${-rotation}deg)`;
  if (!animated) {
    void rotor.getBoundingClientRect();
    for (const p of parts) p.style.transition = "";
  }
}

function setIndicator(colour) {
  $(".pointer").style.fill = colour ? `var(--${colour})` : "#fff";
  q("wheel").dataset.colour = colour || "";
  q("indicator").textContent = colour ? `Segment Indicator: ${colourName(colour)}` : "";
}

// ---------------------------------------------------------------- drawing a board

/** Show ``board`` in ``how``: "play" or "try" (live, buttons work) or "recall" (read only). */
export function show(board, how, label = "") {
  mode = how;
  playLabel = label;
  rowColours = {};
  current = board;
  render(board);
  if (mode !== "recall") openPanels(board);
}

function render(board) {
  current = board;
  document.body.dataset.phase = mode === "recall" ? "recall" : board.phase;
  renderTable(board);
  renderBoxes(board);
  const prize = board.prize_game;
  const inPrize = Boolean(prize);
  q("grid").hidden = inPrize;
  q("prize-grid").hidden = !inPrize;
  q("prize-pot").hidden = !inPrize;
  q("bonus-game-box").hidden = inPrize;  // the Prize Game window has the Prize Pot instead
  q("keep-spinning").hidden = !inPrize || prize.over;
  q("grid-heading").textContent = inPrize ? "PRIZE GAME" : "PLAY GRID";
  if (inPrize) renderPrizeGrid(board); else renderGrid(board.grid);
  renderPot(board);
  setSpinsLeft(board.spins_left);
  renderBonusPanel(board);
  updateButtons();
}

function setSpinsLeft(left) {
  q("spins-left").textContent = `${left} ${left === 1 ? "SPIN" : "SPINS"} LEFT`;
  q("spins-left").dataset.value = String(left);
}

function renderTable(board) {
  const list = $(".ptable .rows");
  const before = $$(".prow", list).map((r) => r.dataset.amountPence);
  list.replaceChildren();
  board.prize_table.forEach((row, i) => {
    const boxes = el("span", { class: "boxes", "aria-hidden": "true" });
    for (let b = 0; b < row.boxes; b += 1) boxes.append(el("span", { class: b < row.filled ? "bx on" : "bx" }));
    const shape = icon(row.shape, "shape");
    if (rowColours[i]) shape.style.fill = `var(--${rowColours[i]})`;
    const li = el("li", {
      class: row.complete ? "prow complete" : "prow",
      "data-testid": `prize-row-${i}`,
      "data-shape": row.shape,
      "data-filled": String(row.filled),
      "data-boxes": String(row.boxes),
      "data-amount-pence": String(row.amount_pence),
      "aria-label": `${row.shape}: ${row.filled} of ${row.boxes} boxes, ${money(row.amount_pence)}${row.complete ? ", won" : ""}`,
    }, shape, boxes, el("span", { class: "amt", "data-testid": `prize-amount-${i}`, text: money(row.amount_pence) }));
    if (before[i] !== undefined && before[i] !== String(row.amount_pence)) li.classList.add("flash");
    list.append(li);
  });
}

function renderBoxes(board) {
  const fill = (box, count, name, heading, unlocked) => {
    const section = q(box);
    section.classList.toggle("unlocked", unlocked);
    section.dataset.count = String(count);
    const h = section.querySelector("h2");
    h.textContent = heading;
    const sils = section.querySelector(".silhouettes");
    sils.replaceChildren();
    for (let i = 0; i < 6; i += 1) sils.append(icon(name, i < count ? "sil on" : "sil"));
    sils.setAttribute("aria-label", `${Math.min(count, 6)} of 6 collected`);
  };
  const bonusOn = board.phase === "bonus";
  fill("bonus-game-box", board.bonus_box, "bonus", bonusOn ? "BONUS GAME UNLOCKED" : "BONUS GAME", bonusOn);
  fill("prize-game-box", board.prize_game_box, "prize_game",
    board.prize_game_unlocked ? "PRIZE GAME UNLOCKED" : "PRIZE GAME", board.prize_game_unlocked);
}

function cellFor(i, content, colour, label) {
  const cell = el("div", { class: "cell", role: "listitem", "data-testid": `cell-${i}` });
  cell.append(content);
  if (colour) {
    cell.classList.add(`c-${colour}`);
    cell.append(el("span", { class: "letter", "aria-hidden": "true", text: letterOf(colour) }));
  }
  cell.dataset.colour = colour || "";
  cell.setAttribute("aria-label", colour ? `${label}, ${colour}` : label);
  return cell;
}

function renderGrid(grid, drained = false) {
  const box = q("grid");
  box.replaceChildren(...grid.map((sq, i) => {
    const cell = cellFor(i, icon(sq.item, "item"), drained ? null : sq.colour, itemName(sq.item));
    cell.dataset.item = sq.item;
    return cell;
  }));
}

function renderPrizeGrid(board, drained = false) {
  const box = q("prize-grid");
  box.replaceChildren(...board.prize_game.grid.map((sq, i) => {
    const text = prizeItemText(sq.item);
    const cell = cellFor(i, el("span", { class: "amount", text }), drained ? null : sq.colour, text);
    cell.dataset.item = String(sq.item);
    cell.dataset.testid = `prize-cell-${i}`;
    cell.setAttribute("data-testid", `prize-cell-${i}`);
    if (typeof sq.item === "string") cell.classList.add("win-sym");
    return cell;
  }));
}

function renderPot(board) {
  const prize = board.prize_game;
  const pot = prize ? prize.pot_pence : 0;
  const dbl = q("pot-double");
  let shown = pot;
  if (prize && prize.doubled && board.result) {
    shown = board.result.prize_game_pence;  // the server's doubled amount
    dbl.hidden = false;
    dbl.textContent = `WIN x2: ${money(pot)} DOUBLED TO ${money(shown)}`;
    dbl.dataset.pence = String(shown);
  } else {
    dbl.hidden = true;
  }
  q("pot-amount").textContent = money(shown);
  q("pot-amount").dataset.pence = String(shown);
}

function renderBonusPanel(board, keepMarks = false) {
  const panel = q("bonus-panel");
  const bonus = board.bonus_game;
  const open = Boolean(bonus) && (mode === "recall" || !panel.hidden);
  if (!bonus) { closeBonusPanel(); return; }
  const list = q("bonus-prizes");
  if (!keepMarks) {
    list.replaceChildren(...bonus.panel.map((p, i) => el("li", {
      "data-testid": `bonus-prize-${i}`, "data-kind": p.kind, text: bonusLabel(p),
    })));
    for (const r of bonus.rounds) if (r.won && list.children[r.prize]) list.children[r.prize].classList.add("won");
    const last = bonus.rounds[bonus.rounds.length - 1];
    q("bonus-reel").textContent = last && last.number ? String(last.number) : "?";
    for (const b of $$(".btn.pick")) b.classList.remove("lost", "chosen");
  }
  if (open) openBonusPanel();
}

function openBonusPanel() {
  q("bonus-panel").hidden = false;
  q("board").classList.add("dim");
}
function closeBonusPanel() {
  q("bonus-panel").hidden = true;
  q("board").classList.remove("dim");
}

function openPanels(board) {
  if (board.phase === "bonus") {
    renderBonusPanel(board);
    openBonusPanel();
  }
  showEnd(board);
}

function showEnd(board) {
  const end = q("end-screen");
  if (mode === "recall" || board.phase !== "over" || !board.result) { end.hidden = true; return; }
  const won = board.result.prize_pence > 0;
  q("end-heading").textContent = won ? "CONGRATULATIONS! YOU HAVE WON" : "NOT A WINNER THIS TIME";
  q("end-amount").textContent = won ? money(board.result.prize_pence) : "No win";
  q("end-amount").dataset.pence = String(board.result.prize_pence);
  const parts = [];
  if (won && board.result.tier) parts.push(board.result.tier);
  if (board.result.doubled) parts.push(`Prize Game WIN x2: ${money(board.result.prize_game_pence)}`);
  q("end-tier").textContent = parts.join(" — ");
  q("end-play-number").textContent = playLabel;
  end.hidden = false;
  document.body.dataset.phase = "over";
  q("finish").disabled = false;
  q("finish").focus();
}

export function hideEnd() { q("end-screen").hidden = true; }

function updateButtons() {
  const live = mode !== "recall" && current;
  const canSpin = live && !busy && (current.next === "spin" || current.next === "prize_spin");
  q("spin").disabled = !canSpin;
  const canPick = live && !busy && current.next === "bonus_pick";
  for (const b of $$(".btn.pick")) b.disabled = !canPick;
  q("spin").hidden = mode === "recall";
}

// ---------------------------------------------------------------- animations

async function turnWheel(colour) {
  const n = G.colours.length;
  const i = G.colours.indexOf(colour);
  const target = -i * 360 / n;
  let next = rotation + 720;
  next += ((target - next) % 360 + 360) % 360;  // at least two turns, then land on the segment
  rotation = next;
  setIndicator(null);
  setRotation(true);
  await wait(1650);
  setIndicator(colour);
}

/** Move a copy of ``from`` onto ``to`` (both elements), then drop it. */
async function fly(from, to, content, delay = 0) {
  if (!from || !to) return;
  const a = from.getBoundingClientRect();
  const b = to.getBoundingClientRect();
  const ghost = el("div", { class: "flyer" });
  ghost.append(content);
  ghost.style.left = `${a.left + a.width / 2 - 18}px`;
  ghost.style.top = `${a.top + a.height / 2 - 18}px`;
  document.body.append(ghost);
  const dx = b.left + b.width / 2 - (a.left + a.width / 2);
  const dy = b.top + b.height / 2 - (a.top + a.height / 2);
  try {
    await ghost.animate(
      [{ transform: "translate(0,0) scale(1.2)", opacity: 1 }, { transform: `translate(${dx}px,${dy}px) scale(.7)`, opacity: 0.9 }],
      { duration: dur(650), delay: dur(delay), easing: "ease-in-out", fill: "forwards" },
    ).finished;
  } finally {
    ghost.remove();
  }
}

function flyTarget(item) {
  if (item === "bonus") return q("bonus-game-box").querySelector(".silhouettes");
  if (item === "prize_game") return q("prize-game-box").querySelector(".silhouettes");
  const row = SHAPES.indexOf(item);
  const li = q(`prize-row-${row}`) || $(`.prow[data-shape="${item}"]`);
  return li ? li.querySelector(".boxes") : null;
}

function describeCollected(items) {
  if (!items.length) return "nothing";
  const counts = new Map();
  for (const it of items) {
    const name = typeof it === "number" ? money(it) : it === "win" ? "WIN" : it === "win_x2" ? "WIN x2" : itemName(it);
    counts.set(name, (counts.get(name) || 0) + 1);
  }
  return Array.from(counts, ([name, c]) => (c > 1 ? `${c} × ${name}` : name)).join(", ");
}

async function animateMainSpin(before, step, after) {
  await turnWheel(step.wheel);
  announce(`The wheel stopped on ${colourName(step.wheel)}. Collected: ${describeCollected(step.collected_items)}.`);
  const cells = step.collected.map((i) => q(`cell-${i}`));
  cells.forEach((c) => c && c.classList.add("hit"));
  await wait(900);
  await Promise.all(step.collected.map((sq, k) => {
    const item = step.collected_items[k];
    const ico = icon(item, "item");
    ico.style.fill = `var(--${step.wheel})`;
    ico.style.width = "36px"; ico.style.height = "36px";
    const from = q(`cell-${sq}`);
    if (from) from.classList.add("gone");
    return fly(from, flyTarget(item), ico, k * 60);
  }));
  // The collected symbols land: the Prize Table rows take the wheel's colour, boxes fill.
  for (const item of step.collected_items) {
    const row = SHAPES.indexOf(item);
    if (row >= 0) rowColours[row] = step.wheel;
  }
  renderTable(after);
  renderBoxes(after);
  for (const [r, row] of after.prize_table.entries()) {
    if (row.complete && !before.prize_table[r].complete) {
      announce(`Row complete: ${row.shape} wins ${money(row.amount_pence)}.`);
    }
  }
  // New symbols refill the spaces; the colours drain, then come back for the next spin.
  renderGrid(after.grid, true);
  for (const i of step.collected) { const c = q(`cell-${i}`); if (c) c.classList.add("hit"); }
  await wait(500);
  renderGrid(after.grid, false);
  await wait(300);
}

async function animatePrizeSpin(before, step, after) {
  await turnWheel(step.wheel);
  announce(`The wheel stopped on ${colourName(step.wheel)}. Collected: ${describeCollected(step.collected_items)}.`);
  const cells = step.collected.map((i) => q(`prize-cell-${i}`));
  cells.forEach((c) => c && c.classList.add("hit"));
  await wait(900);
  await Promise.all(step.collected.map((sq, k) => {
    const from = q(`prize-cell-${sq}`);
    if (from) from.classList.add("gone");
    const label = el("span", { class: "amount", text: prizeItemText(step.collected_items[k]) });
    label.style.color = `var(--${step.wheel})`;
    return fly(from, q("pot-amount"), label, k * 60);
  }));
  // The pot fills with what was collected (the doubling, if any, comes after).
  q("pot-amount").textContent = money(after.prize_game.pot_pence);
  q("pot-amount").dataset.pence = String(after.prize_game.pot_pence);
  q("pot-amount").classList.add("flash");
  setTimeout(() => q("pot-amount").classList.remove("flash"), dur(1500));
  if (after.prize_game.over) {
    const doubled = after.prize_game.doubled;
    announce(doubled
      ? `WIN x2 collected! The Prize Pot of ${money(after.prize_game.pot_pence)} is doubled to ${money(after.result.prize_game_pence)}.`
      : `WIN collected! You win the Prize Pot: ${money(after.result.prize_game_pence)}.`);
    if (doubled) {
      await wait(700);
      renderPot(after);
      q("pot-double").classList.add("flash");
      q("pot-amount").classList.add("flash");
    }
    await wait(1400);
    return;
  }
  renderPrizeGrid(after, true);
  await wait(500);
  renderPrizeGrid(after, false);
  await wait(300);
}

async function animateBonusPick(before, step, after, picked) {
  const list = q("bonus-prizes");
  const items = Array.from(list.children);
  const reel = q("bonus-reel");
  const chosen = $(`.btn.pick[data-pick="${picked}"]`);
  chosen.classList.add("chosen");
  const spins = reducedSpins();
  for (let k = 0; k < spins; k += 1) {   // cosmetic: the reel flickers, the prizes light in turn
    reel.textContent = String(1 + Math.floor(Math.random() * 12));
    items.forEach((li) => li.classList.remove("lit"));
    const lit = items[Math.floor(Math.random() * items.length)];
    if (lit) lit.classList.add("lit");
    await wait(90);
  }
  items.forEach((li) => li.classList.remove("lit"));
  reel.textContent = String(step.number);
  reel.dataset.number = String(step.number);
  const landed = Number.isInteger(step.prize) ? items[step.prize] : null;
  if (landed) landed.classList.add("landed");
  if (step.won) {
    if (landed) landed.classList.add("won");
    announce(`${String(step.pick).toUpperCase()}: the reel shows ${step.number}. You win ${landed ? landed.textContent : "a Bonus Prize"}!`);
    chosen.classList.remove("chosen");
    await wait(700);
    if (landed) landed.classList.remove("landed");
    return;
  }
  chosen.classList.add("lost");
  const wonNames = items.filter((li) => li.classList.contains("won")).map((li) => li.textContent);
  announce(`${String(step.pick).toUpperCase()}: the reel shows ${step.number}. The Bonus Game is over.${wonNames.length ? ` Awarded: ${wonNames.join(", ")}.` : ""}`);
  await wait(1200);
  for (const li of items) if (li.classList.contains("won")) li.classList.add("flash");
  await wait(900);
  closeBonusPanel();
  // The awarded prizes take effect on the main screen: draw the new board, changed parts flash.
  render(after);
  if (before.spins_left !== after.spins_left) q("spins-left").classList.add("flash");
  if (before.prize_game_box !== after.prize_game_box) q("prize-game-box").classList.add("flash");
  await wait(1300);
  q("spins-left").classList.remove("flash");
  q("prize-game-box").classList.remove("flash");
}

const reducedSpins = () => (dur(100) < 50 ? 2 : 16);

// ---------------------------------------------------------------- actions

async function afterStep(after) {
  // Phase changes the server reported: a Bonus Game opens, the Prize Game starts, or the end.
  if (after.phase === "bonus") {
    renderBoxes(after);
    announce("BONUS GAME UNLOCKED. Select ODD or EVEN.");
    await wait(900);
    renderBonusPanel(after);
    openBonusPanel();
    render(after);
    q("pick-odd").focus();
    return;
  }
  if (after.phase === "prize" && current && !current.prize_game) {
    announce("PRIZE GAME. Keep spinning until you collect WIN!");
  }
  render(after);
  if (after.phase === "over") {
    await wait(500);
    showEnd(after);
    return;
  }
  q("spin").focus();
}

export async function spin() {
  if (busy || !current || mode === "recall") return;
  const kind = current.next;
  if (kind !== "spin" && kind !== "prize_spin") return;
  const before = current;
  setBusy(true);
  try {
    const answer = await handlers.step(kind, null);
    if (!answer) return;
    if (kind === "spin") {
      // Spins Left goes down as the wheel starts, as the procedures describe.
      setSpinsLeft(answer.board.spins_left);
      await animateMainSpin(before, answer.step, answer.board);
    } else {
      await animatePrizeSpin(before, answer.step, answer.board);
    }
    current = answer.board;
    await afterStep(answer.board);
  } finally {
    setBusy(false);
    if (current && current.next === "bonus_pick") q("pick-odd").focus();
    else if (current && current.next) q("spin").focus();
  }
}

export async function pick(which) {
  if (busy || !current || current.next !== "bonus_pick" || mode === "recall") return;
  const before = current;
  setBusy(true);
  try {
    const answer = await handlers.step("bonus_pick", which);
    if (!answer) return;
    await animateBonusPick(before, answer.step, answer.board, which);
    current = answer.board;
    if (answer.step.won) {
      renderBonusPanel(answer.board, true);
      render(answer.board);
      openBonusPanel();
    } else if (answer.board.phase === "bonus") {
      announce("Another BONUS GAME! Select ODD or EVEN.");
      renderBonusPanel(answer.board);
      openBonusPanel();
      render(answer.board);
    } else {
      await afterStep(answer.board);
    }
  } finally {
    setBusy(false);
    if (current && current.next === "bonus_pick") q(`pick-${which}`).focus();
    else if (current && current.next) q("spin").focus();
  }
}

async function finish() {
  if (busy) return;
  setBusy(true);
  q("finish").disabled = true;
  try {
    await handlers.finish();
  } finally {
    setBusy(false);
    q("finish").disabled = false;
  }
}

/** The opening flourish: the grid's symbols take on their colours. */
export async function intro() {
  if (!current || current.phase !== "main") return;
  setBusy(true);
  try {
    renderGrid(current.grid, true);
    await wait(400);
    renderGrid(current.grid, false);
    await wait(300);
  } finally {
    setBusy(false);
    q("spin").focus();
  }
}

export const board = () => current;

// ---------------------------------------------------------------- recall

/** Describe a recalled step in words; ``before`` is the board before it. */
export function describeStep(step, before) {
  if (step.kind === "spin") {
    return `SPIN: the wheel stopped on ${colourName(step.wheel)} and collected ${describeCollected(step.collected_items)}.`;
  }
  if (step.kind === "prize_spin") {
    return `PRIZE GAME SPIN: the wheel stopped on ${colourName(step.wheel)} and collected ${describeCollected(step.collected_items)}.`;
  }
  const panel = before && before.bonus_game ? before.bonus_game.panel : null;
  const prize = panel && Number.isInteger(step.prize) ? bonusLabel(panel[step.prize]) : "a Bonus Prize";
  return `BONUS GAME: picked ${String(step.pick).toUpperCase()}, the reel showed ${step.number}: ${step.won ? `won ${prize}` : "the Bonus Game ended"}.`;
}

/** Draw a recalled board with the wheel on the step's colour. */
export function showRecall(boardAt, step) {
  mode = "recall";
  rowColours = {};
  if (step && step.wheel) {
    const i = G.colours.indexOf(step.wheel);
    rotation = -i * 360 / G.colours.length;
    setRotation(false);
    setIndicator(step.wheel);
    for (const item of step.collected_items || []) {
      const row = SHAPES.indexOf(item);
      if (row >= 0) rowColours[row] = step.wheel;
    }
  } else {
    resetWheel();
  }
  q("end-screen").hidden = true;
  render(boardAt);
  if (boardAt.bonus_game) openBonusPanel(); else closeBonusPanel();
}
