// Input (the "input manager"): the game's buttons and keys, turned into the play's actions.
//
//   Enter / Space   on the game screen with no control focused: SPIN (Main Game, Prize Game)
//   O / E           in a Bonus Game, no control focused: ODD / EVEN
//   any key, click  on a big-win takeover: skip to the end of the celebration
//   Tab             in the end takeover: stays on FINISH (a modal dialog)
// Buttons keep their own Enter and Space.

import { byTestId } from "./dom.js";
import { currentPlay, act, finish } from "./play.js";
import { skipCelebration } from "./celebrate.js";

const q = byTestId;

function spin() {
  const board = currentPlay().board;
  if (board && (board.next === "spin" || board.next === "prize_spin")) act(board.next);
}

export function initInput() {
  q("spin").addEventListener("click", spin);
  q("pick-odd").addEventListener("click", () => act("bonus_pick", "odd"));
  q("pick-even").addEventListener("click", () => act("bonus_pick", "even"));
  q("finish").addEventListener("click", () => finish());
  q("end-screen").addEventListener("click", (event) => {
    if (!event.target.closest("button")) skipCelebration();
  });
  document.addEventListener("keydown", (event) => {
    if (document.body.dataset.screen !== "game" || document.body.dataset.overlay) return;
    const phase = document.body.dataset.phase;
    if (phase === "recall") return;
    const endOpen = !q("end-screen").hidden;
    if (endOpen && event.key === "Tab") {   // the takeover is modal: FINISH is its only control
      event.preventDefault();
      q("finish").focus();
      return;
    }
    const target = event.target;
    if (target && target.closest && target.closest("button, input, select, textarea, a")) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (endOpen) {
      if (event.key === "Enter" || event.key === " " || event.key === "Escape") { event.preventDefault(); skipCelebration(); }
      return;
    }
    const board = currentPlay().board;
    if (!board) return;
    if ((event.key === " " || event.key === "Enter") && (board.next === "spin" || board.next === "prize_spin")) {
      event.preventDefault();
      spin();
    } else if (board.next === "bonus_pick" && (event.key === "o" || event.key === "O")) {
      event.preventDefault();
      act("bonus_pick", "odd");
    } else if (board.next === "bonus_pick" && (event.key === "e" || event.key === "E")) {
      event.preventDefault();
      act("bonus_pick", "even");
    }
  });
}
