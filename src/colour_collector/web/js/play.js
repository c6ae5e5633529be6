// State and flow of the play on screen (the "game manager"): which play, the board the server
// last sent, the next step, and what happens between a player's action and the next one.
//
// Every step names its index (`step`: the board's `revealed`), so a retried request never
// reveals a second step, and a tab that is behind (the play went on in another tab) is refused
// with 409 step_out_of_order, or, one step behind, is answered that step again (`repeated`): it
// tells the player and reloads the play as the server has it, instead of animating a step over
// an old grid. A play finished in another tab goes on to My Games. A step whose answers were
// all lost may have been revealed: the next action first reads the play, and shows that step
// if it was (see lostStep).

import { get, post, ApiError, retriable } from "./api.js";
import { byTestId, focusHeading } from "./dom.js";
import { colourName, describeCollected, money, bonusLabel } from "./format.js";
import { wait } from "./motion.js";
import { showScreen, announce, alertPlayer, problemShown, clearProblem, setBusy, isBusy } from "./screens.js";
import { sayProblem } from "./problems.js";
import * as view from "./board.js";
import * as anim from "./animations.js";
import { showEnd, hideEnd } from "./celebrate.js";

const q = byTestId;

const P = {
  mode: null,        // "play" | "try"
  playNumber: null,  // a purchased play
  tryId: null,       // a Try play
  board: null,       // the board on screen, as the server sent it
  marks: null,       // the last step's marks (kept until the next action)
  label: "",         // "Play Number: CC-..." on the end screen
  lost: false,       // the last step's answers were all lost: the server may have revealed it
};
let onFinished = async () => {};
let onGone = async () => {};

export const currentPlay = () => P;

/** ``finished(mode, answer, play)`` runs after FINISH was accepted (``answer``), or when the
 * play turns out to be finished elsewhere (``answer`` null, ``play`` as the server has it);
 * app.js goes to the next screen. ``gone(mode, error)`` runs when the play on screen can no
 * longer be played here (see ``isGone``): app.js leaves it for another screen and says why. */
export function initPlay({ finished, gone }) { onFinished = finished; onGone = gone; }

/** The play on screen cannot go on in this tab: the login ended (a log out in another tab, a
 * password reset, the session's end), or a Try is no longer kept (two days). Asking again
 * would be refused again, so the game is not left on screen. */
function isGone(error) {
  return error instanceof ApiError
    && (error.code === "not_authenticated" || (P.mode === "try" && error.code === "play_not_found"));
}

async function gone(error) {
  const mode = P.mode;
  leave();
  P.board = null;
  await onGone(mode, error);
}

const stepPath = () => (P.mode === "try" ? `/api/try/${P.tryId}/steps` : `/api/plays/${P.playNumber}/steps`);
const statePath = () => (P.mode === "try" ? `/api/try/${P.tryId}` : `/api/plays/${P.playNumber}`);

/** Take over the play ``board`` of a purchased play (``id`` its Play Number) or a Try;
 * ``last`` (the server's step revealed last, with the board before it) marks what that step
 * did, so a play opened again looks as it was left. */
export function load(mode, id, board, last = null) {
  anim.cancelAnimations();
  P.mode = mode;
  P.playNumber = mode === "play" ? id : null;
  P.tryId = mode === "try" ? id : null;
  P.board = board;
  P.marks = marksLeft(last, board);
  P.lost = false;
  P.label = mode === "play" ? `Play Number: ${id}` : "TRY — no money: this play has no Play Number and pays nothing.";
  hideEnd();
  view.showBonusPanel(false);
  q("recall-bar").hidden = true;
  q("spin").hidden = false;
  view.drawBoard(board);
}

/** What the step revealed last left marked on ``board`` (``last``: that step and the board
 * before it), as its live answer left it: nothing once it has opened the Prize Game, whose
 * window shows no Main Game marks. */
function marksLeft(last, board) {
  if (!last || (board.prize_game && !last.before.prize_game)) return null;
  return view.marksOf(last.step, last.before, board);
}

/** The start screen (before PLAY), for a play with nothing revealed yet. */
export function showStart() {
  showScreen("start");
}

/**
 * Show the game screen for the loaded play: the board, its open panel (Bonus Game, end) and the
 * focus on the heading of what shows. ``fresh``: the play is just starting (colours animate in).
 */
export async function enterGame({ fresh = false } = {}) {
  showScreen("game", { focus: false });
  const board = P.board;
  document.body.dataset.phase = board.phase;
  view.drawBoard(board, { marks: P.marks });
  if (board.phase === "bonus") view.showBonusPanel(true);
  updateButtons();
  if (board.phase === "over") {
    await showEnd(board, { label: P.label, celebrate: false });
    return;
  }
  focusPhaseHeading(board);
  if (fresh && board.revealed === 0) {
    setBusy(true);
    try { await anim.intro(board); } catch (error) { if (!(error instanceof anim.Cancelled)) throw error; } finally {
      setBusy(false);
      updateButtons();
    }
  }
}

function focusPhaseHeading(board) {
  if (board.phase === "bonus") focusHeading(q("bonus-heading"));
  else focusHeading(q("game-heading"));   // the h1 names the phase: "…: Prize Game"
}

function updateButtons() {
  const board = P.board;
  const live = board && document.body.dataset.phase !== "recall" && !isBusy();
  q("spin").disabled = !(live && (board.next === "spin" || board.next === "prize_spin"));
  for (const b of [q("pick-odd"), q("pick-even")]) b.disabled = !(live && board.next === "bonus_pick");
}
document.addEventListener("cc:busy", () => updateButtons());

/** POST the next step, naming its index; a lost answer or a 503 is asked again (same index).
 * Returns the answer, or null when the step was ``repeated`` at the first asking: another tab
 * had taken it. */
async function requestStep(kind, pick) {
  const body = { kind, pick: pick || null, step: P.board.revealed };
  for (let attempt = 0; ; attempt += 1) {
    try {
      const answer = await post(stepPath(), body);
      return answer.repeated && attempt === 0 ? null : answer;
    } catch (error) {
      if (!retriable(error) || attempt >= 2) throw error;
      await new Promise((resolve) => { setTimeout(resolve, 400 * (attempt + 1)); });
    }
  }
}

/** The answers to the step asked last were all lost (``P.lost``), so the board on screen may
 * be one step behind the server's. Read the play: returns the step the server revealed meanwhile
 * as its answer would have been (it is shown now, in place of the action asked for), null when
 * nothing was revealed (the action goes ahead), or ``{movedOn: data}`` when the play is further
 * on than that or finished (another tab has played it too). */
async function lostStep(before) {
  const data = await get(statePath());
  P.lost = false;
  const going = !data.play || data.play.status === "in_progress";
  if (going && data.board.revealed === before.revealed) return null;
  if (going && data.board.revealed === before.revealed + 1 && data.last) {
    return { step: data.last.step, board: data.board };
  }
  return { movedOn: data };
}

/** The play went on elsewhere: say so, then show it as the server has it (``data``: read
 * already); a play finished elsewhere is done with here too (app.js moves on, as after FINISH). */
async function movedOn(data = null) {
  data = data || await get(statePath());
  P.lost = false;
  if (data.play && data.play.status !== "in_progress") {
    const mode = P.mode;
    leave();
    P.board = null;
    await onFinished(mode, null, data.play);
    alertPlayer("This play was finished in another tab or window.", "notice");
    return;
  }
  alertPlayer("This play has moved on in another tab or window. It now shows where the play is.", "notice");
  P.board = data.board;
  P.marks = marksLeft(data.last, data.board);
  view.showBonusPanel(false);
  hideEnd();
  await enterGame();
}

/** SPIN (Main Game or Prize Game) or a Bonus Game pick. */
export async function act(kind, pick = null) {
  const board = P.board;
  if (isBusy() || !board || board.next !== kind || document.body.dataset.phase === "recall") return;
  setBusy(true);
  const problem = problemShown();
  const before = board;
  let focusAfter = null;   // a button takes the focus only once it is enabled again
  try {
    // The last step's marks stay until this action.
    P.marks = null;
    view.drawLastSpin(null);
    let answer = null;
    try {
      if (P.lost) answer = await lostStep(before);
      if (answer === null) {
        answer = await requestStep(kind, pick);
        if (answer === null) answer = { movedOn: null };
      }
    } catch (error) {
      if (error instanceof ApiError && error.code === "step_out_of_order") { await movedOn(); return; }
      if (isGone(error)) { await gone(error); return; }
      // No answer: the server may have revealed the step all the same. The next action reads
      // the play first, rather than ask for this step again and be told it was "repeated".
      if (retriable(error)) P.lost = true;
      alertPlayer(sayProblem(error));
      view.drawBoard(before, { marks: null });
      return;
    }
    if ("movedOn" in answer) { await movedOn(answer.movedOn); return; }
    clearProblem(problem);   // the server answered: "could not reach the server" is out of date
    // A lost step is shown as its answer would have shown it, with its own pick.
    focusAfter = await reveal(before, answer.step, answer.board, answer.step.pick || pick);
  } catch (error) {
    if (error instanceof anim.Cancelled) return;
    throw error;
  } finally {
    setBusy(false);
    updateButtons();
    if (focusAfter && !focusAfter.disabled) focusAfter.focus();
  }
}

async function reveal(before, step, after, pick) {
  P.board = after;
  let marks = null;
  if (step.kind === "spin") {
    marks = await anim.mainSpin(before, step, after);
    announce(`The wheel stopped on ${colourName(step.wheel)}. Collected: ${describeCollected(step.collected_items)}.`);
  } else if (step.kind === "prize_spin") {
    marks = await anim.prizeSpin(before, step, after);
    announce(`The wheel stopped on ${colourName(step.wheel)}. Collected: ${describeCollected(step.collected_items)}. Prize Pot ${money(after.prize_game.pot_pence)}.`);
    if (after.prize_game.over) {
      announce(after.prize_game.doubled
        ? `WIN x2 collected! The Prize Pot of ${money(after.prize_game.pot_pence)} is doubled to ${money(after.result.prize_game_pence)}.`
        : `WIN collected! You win the Prize Pot: ${money(after.result.prize_game_pence)}.`);
    }
  } else {
    await anim.bonusPick(step, pick);
    const prize = before.bonus_game && Number.isInteger(step.prize) ? bonusLabel(before.bonus_game.panel[step.prize]) : "a Bonus Prize";
    announce(step.won
      ? `${pick.toUpperCase()}: the reel shows ${step.number}. You win ${prize}! Pick again.`
      : `${pick.toUpperCase()}: the reel shows ${step.number}. The Bonus Game is over.`);
    if (!step.won) await anim.bonusClose(before, after);
  }
  for (const [r, row] of after.prize_table.entries()) {
    if (row.complete && !before.prize_table[r].complete) announce(`Row complete: ${row.shape} wins ${money(row.amount_pence)}.`);
  }
  P.marks = marks;
  return changePhase(before, step, after);
}

/** After a step: a Bonus Game opens, the Prize Game starts, the play ends, or the same goes on.
 * Returns the button to focus once the step is done (null: the focus is already placed). */
async function changePhase(before, step, after) {
  document.body.dataset.phase = after.phase;
  const lostPick = step.kind === "bonus_pick" && !step.won;
  if (after.phase === "bonus" && (before.phase !== "bonus" || lostPick)) {
    view.drawBoard(after, { marks: P.marks });
    view.showBonusPanel(false);
    announce("BONUS GAME UNLOCKED. Select ODD or EVEN.");
    await anim.bonusOpen(after);
    focusHeading(q("bonus-heading"));
    return null;
  }
  if (after.phase === "bonus") {   // a won pick: pick again
    view.drawBoard(after, { marks: P.marks });
    view.showBonusPanel(true);
    return q(`pick-${after.bonus_game.rounds[after.bonus_game.rounds.length - 1].pick}`);
  }
  if (after.prize_game && !before.prize_game) {
    announce("PRIZE GAME. Keep spinning until you collect WIN!");
    await anim.prizeIntro(after);
    view.drawBoard(after);
    focusHeading(q("game-heading"));   // "Colour Collector: Prize Game"
    return null;
  }
  view.drawBoard(after, { marks: P.marks });
  if (after.phase === "over") {
    await wait(300);
    await showEnd(after, { label: P.label, celebrate: true });
    return null;
  }
  if (before.phase === "bonus") {   // back to the Main Game window
    focusHeading(q("game-heading"));
    return null;
  }
  return q("spin");
}

/** FINISH: the play is settled by the server; app.js moves on. */
export async function finish() {
  if (!P.board || P.board.phase !== "over") return;
  setBusy(true);
  const problem = problemShown();
  q("finish").disabled = true;
  try {
    const path = P.mode === "try" ? `/api/try/${P.tryId}/finish` : `/api/plays/${P.playNumber}/finish`;
    const done = await post(path, {});
    clearProblem(problem);
    const mode = P.mode;
    anim.cancelAnimations();
    hideEnd();
    P.board = null;
    await onFinished(mode, done);
  } catch (error) {
    if (isGone(error)) await gone(error);
    else alertPlayer(sayProblem(error));
  } finally {
    q("finish").disabled = false;
    setBusy(false);
  }
}

/** Leave the play (another screen): running animations stop; the server keeps the play. */
export function leave() {
  anim.cancelAnimations();
  hideEnd();
  view.showBonusPanel(false);
}
