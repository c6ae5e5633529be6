// My Games: the player's plays, ten a page, a look-up by Play Number, and the recall of a past
// play step by step (the board after each step, from GET /api/my-games/{play_number}).

import { get, ApiError } from "./api.js";
import { $, byTestId, el, focusHeading } from "./dom.js";
import { money, dateTimeText, colourName, describeCollected, bonusLabel, EXAMPLE_PLAY_NUMBER } from "./format.js";
import { showScreen } from "./screens.js";
import { explain, showErrors, clearErrors } from "./problems.js";
import { S } from "./state.js";
import * as view from "./board.js";
import { hideEnd } from "./celebrate.js";
import { purchaseOffered } from "./account.js";

const q = byTestId;
const PER_PAGE = 10;
const LAST_PAGE_ASKED = 1000000;   // the highest page the server reads (GET /api/my-games)
// The shapes of a Play Number as the server reads them (service/play_numbers.py): CC and three
// groups of three letters or digits (the first form: 4, 4 and a check symbol), any case, split
// by spaces, hyphens or dashes, or not split at all ("ccyd1gfyzmk"). Text of another shape is
// told at once; a number of the right shape that the server does not find (a mistyped
// character, its check character wrong, or a play of another account) is told "no play with
// that Play Number".
const SEP = "[\\s\\-\\u2010-\\u2015]*";
const PLAY_NUMBER_SHAPE = new RegExp(`^CC${SEP}[0-9A-Z]{3}${SEP}[0-9A-Z]{3}${SEP}[0-9A-Z]{3}$`, "i");
const FIRST_FORM_SHAPE = new RegExp(`^CC${SEP}[0-9A-Z]{4}${SEP}[0-9A-Z]{4}${SEP}[0-9A-Z*~$=]$`, "i");
const STATUS = { in_progress: "In progress", finished: "Finished", auto_finished: "Finished automatically" };

/** ``open(name, params)`` navigates (app.js passes router.go). */
export function initMyGames({ open, guard }) {
  q("mg-prev").addEventListener("click", () => guard(() => open("my-games", { page: S.myGamesPage - 1 }, { replace: true })));
  q("mg-next").addEventListener("click", () => guard(() => open("my-games", { page: S.myGamesPage + 1 }, { replace: true })));
  q("recall-prev").addEventListener("click", () => step(-1));
  q("recall-next").addEventListener("click", () => step(1));
  q("recall-back").addEventListener("click", () => guard(() => open("my-games", { page: S.myGamesPage })));
  $('[data-testid="my-games"] tbody').addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    if (!button) return;
    if (button.dataset.action === "play") guard(() => open("play"));
    else guard(() => open("recall", { playNumber: button.dataset.play }));
  });
  const form = q("lookup-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = q("lookup-number").value.trim();
    guard(async () => {
      clearErrors(form);
      if (!text) {
        showErrors(form, { fields: { play_number: `Enter a Play Number, like ${EXAMPLE_PLAY_NUMBER}.` }, form: null });
        return;
      }
      if (!PLAY_NUMBER_SHAPE.test(text) && !FIRST_FORM_SHAPE.test(text)) {
        showErrors(form, { fields: { play_number: `That is not a Play Number. It looks like ${EXAMPLE_PLAY_NUMBER}.` }, form: null });
        return;
      }
      let found;
      try {
        found = await get(`/api/my-games/${encodeURIComponent(text)}`);
      } catch (error) {
        if (error instanceof ApiError && (error.status === 404 || error.status === 422)) {
          const explained = error.status === 404 ? explain(error, "lookup")
            : { fields: { play_number: `That is not a Play Number. It looks like ${EXAMPLE_PLAY_NUMBER}.` }, form: null };
          showErrors(form, explained);
          return;
        }
        throw error;
      }
      q("lookup-number").value = "";
      if (found.play.status === "in_progress") await open("play");
      else await open("recall", { playNumber: found.play.play_number });
    });
  });
}

export async function showMyGames(page = 1, highlight = null) {
  const asked = Math.min(Math.max(1, page), LAST_PAGE_ASKED);
  const pageOf = (n) => get(`/api/my-games?page=${n}&per_page=${PER_PAGE}`);
  let [list, quote] = await Promise.all([pageOf(asked), get("/api/plays/quote")]);
  // A page past the last (a bookmark, an address typed) shows the last page there is, not
  // "No plays yet." under "Page 7 of 1".
  const last = Math.max(1, Math.ceil((list.total || 0) / PER_PAGE));
  if (asked > last) list = await pageOf(last);
  q("mg-play-again").hidden = !purchaseOffered(quote);
  S.myGamesPage = list.page || page;
  const body = $('[data-testid="my-games"] tbody');
  body.replaceChildren();
  if (!list.items.length) body.append(el("tr", {}, el("td", { colSpan: 5, text: "No plays yet." })));
  for (const item of list.items) {
    const prize = item.prize_pence === null || item.prize_pence === undefined
      ? "—" : item.prize_pence > 0 ? money(item.prize_pence) : "No win";
    const action = item.status === "in_progress"
      ? el("button", { type: "button", class: "btn sm", "data-testid": `continue-${item.play_number}`, text: "Continue", "data-action": "play" })
      : el("button", { type: "button", class: "btn sm", "data-testid": `recall-${item.play_number}`, text: "Recall",
        "aria-label": `Recall play ${item.play_number}`, "data-action": "recall", "data-play": item.play_number });
    const row = el("tr", { "data-testid": `game-row-${item.play_number}`, "data-status": item.status },
      el("th", { scope: "row", class: "pn" }, item.play_number, poolLine(item, "span")),
      el("td", { class: "col-bought", text: item.purchased_at ? dateTimeText(item.purchased_at) : "" }),
      el("td", { class: "col-status", text: STATUS[item.status] || item.status }),
      el("td", { class: "money", text: prize, "data-testid": `game-prize-${item.play_number}` }),
      el("td", {}, action));
    if (highlight === item.play_number) row.classList.add("highlight");
    body.append(row);
  }
  const pages = Math.max(1, Math.ceil((list.total || 0) / (list.per_page || PER_PAGE)));
  q("mg-page").textContent = `Page ${S.myGamesPage} of ${pages}`;
  q("mg-prev").disabled = S.myGamesPage <= 1;
  q("mg-next").disabled = S.myGamesPage >= pages;
  showScreen("mygames");
}

/** The recall of ``text`` by its address (a link, a bookmark, Back) found no play of the
 * player's (``error``, the server's 404 or 422): another player's Play Number, a mistyped one,
 * text that is not one. My Games shows instead, the text in the look-up and the reason at it,
 * as if it had been looked up there; not a blank screen. */
export async function showNotFound(text, error) {
  await showMyGames(1);
  const form = q("lookup-form");
  q("lookup-number").value = text;
  const notFound = error.status === 404 ? error : new ApiError(404, { code: "play_not_found" });
  showErrors(form, explain(notFound, "lookup"));
}

/** "Pool 2, position 1,234" for a play dealt from a prize pool (null for an independent draw). */
export function poolText(play) {
  if (play.pool_id === null || play.pool_id === undefined) return null;
  return `Pool ${play.pool_id}, position ${Number(play.pool_position).toLocaleString("en-GB")}`;
}

function poolLine(play, tag) {
  const text = poolText(play);
  return text ? el(tag, { class: "pool-pos", "data-testid": `game-pool-${play.play_number}`, text }) : null;
}

// ---------------------------------------------------------------- recall

/** Show a past play at its start; ◀ ▶ step through it. */
export async function showRecall(playNumber) {
  const record = await get(`/api/my-games/${encodeURIComponent(playNumber)}`);
  const frames = [{ board: record.start, step: null }, ...record.steps.map((s) => ({ board: s.board, step: s.step }))];
  S.recall = { data: record, frames, index: 0 };
  hideEnd();
  showScreen("game", { focus: false });
  q("recall-bar").hidden = false;
  q("spin").hidden = true;
  const pool = poolText(record.play);
  q("recall-pool").hidden = !pool;
  if (pool) {
    q("recall-pool-text").textContent = `${pool}. `;
    const query = new URLSearchParams({ pool: record.play.pool_id, position: record.play.pool_position, play: record.play.play_number });
    q("recall-check").setAttribute("href", `#/check?${query}`);
  }
  drawRecall();
  focusHeading(q("game-heading"));
}

function step(delta) {
  if (!S.recall) return;
  const next = S.recall.index + delta;
  if (next < 0 || next >= S.recall.frames.length) return;
  S.recall.index = next;
  drawRecall();
}

/** A recalled step in words; ``before`` is the board before it. */
function describeStep(frameStep, before) {
  if (frameStep.kind === "spin" || frameStep.kind === "prize_spin") {
    const what = frameStep.kind === "spin" ? "SPIN" : "PRIZE GAME SPIN";
    return `${what}: the wheel stopped on ${colourName(frameStep.wheel)} and collected ${describeCollected(frameStep.collected_items)}.`;
  }
  const panel = before && before.bonus_game ? before.bonus_game.panel : null;
  const prize = panel && Number.isInteger(frameStep.prize) ? bonusLabel(panel[frameStep.prize]) : "a Bonus Prize";
  return `BONUS GAME: picked ${String(frameStep.pick).toUpperCase()}, the reel showed ${frameStep.number}: ${frameStep.won ? `won ${prize}` : "the Bonus Game ended"}.`;
}

function drawRecall() {
  const { data, frames, index } = S.recall;
  const frame = frames[index];
  const before = index > 0 ? frames[index - 1].board : null;
  document.body.dataset.phase = "recall";
  document.body.dataset.recallIndex = String(index);
  const marks = frame.step ? view.marksOf(frame.step, before, frame.board) : null;
  view.drawBoard(frame.board, { marks, recall: true });
  view.setGameHeading(frame.board, true, data.play.play_number);
  view.showBonusPanel(Boolean(frame.board.bonus_game));
  for (const b of [q("pick-odd"), q("pick-even")]) b.disabled = true;
  q("recall-position").textContent = `${data.play.play_number} — step ${index} of ${frames.length - 1}`;
  let text = index === 0
    ? `Start of the play. Balance before: ${money(data.balance_before_pence)}.`
    : describeStep(frame.step, before);
  if (index === frames.length - 1 && frame.board.result) {
    const r = frame.board.result;
    text += ` Result: ${r.prize_pence > 0 ? `won ${money(r.prize_pence)}${r.tier ? ` — prize tier ${r.tier}` : ""}` : "no win"}.`;
    if (data.balance_after_pence !== null && data.balance_after_pence !== undefined) {
      text += ` Balance after: ${money(data.balance_after_pence)}.`;
    }
  }
  q("recall-step").textContent = text;
  // At either end the arrow pressed is disabled: the focus moves to the other one.
  const pressed = document.activeElement;
  q("recall-prev").disabled = index === 0;
  q("recall-next").disabled = index === frames.length - 1;
  if (pressed === q("recall-next") && pressed.disabled) q("recall-prev").focus();
  if (pressed === q("recall-prev") && pressed.disabled) q("recall-next").focus();
}

export function leaveRecall() {
  S.recall = null;
  q("recall-bar").hidden = true;
  q("recall-pool").hidden = true;
  q("spin").hidden = false;
  delete document.body.dataset.recallIndex;
}
