// Prize pools, state and flow: the pool on sale (on the start screen and in the lobby) and the
// "check a play" page.
//
// Every play is fixed before the sale by its pool's secret. Before the sale the pool publishes
// its commitment, the SHA-256 of its parameters, a newline and the secret; when it closes it
// publishes the secret. The page checks the secret against the commitment here, in the browser
// (WebCrypto), without trusting the server's word for it, then asks the server for the play the
// secret gives at a position and compares it with the player's own play (its record's SHA-256).
// The commitment is compared first with the one this browser was shown while the pool was on
// sale (kept in localStorage), so the check does not rest on the server's word for it either.
// The independent check of a play itself is `colour-collector pool check` (docs/pools.md).

import { get, ApiError } from "./api.js";
import { showScreen } from "./screens.js";
import { showErrors, clearErrors } from "./problems.js";
import { byTestId } from "./dom.js";
import * as view from "./pool_view.js";
import { initCheckInput, fillCheckForm } from "./check_input.js";
import { seenCommitments } from "./storage.js";
import { dateTimeText } from "./format.js";

const q = byTestId;

/** Draw the pool on sale in the start screen's or the lobby's panel (hidden when none). */
export async function showPoolInfo(where) {
  let current = null;
  try {
    current = await get("/api/pools/current");
  } catch {
    current = null;   // the panel is information only: the screen works without it
  }
  if (current && current.pool) seenCommitments.remember(current.pool.id, current.pool.commitment);
  view.drawPoolInfo(where, current ? current.pool : null);
}

/** Hide the pool panels (a Try play is never dealt from a pool). */
export const hidePoolInfo = () => { view.drawPoolInfo("start", null); view.drawPoolInfo("lobby", null); };

const HEX = "0123456789abcdef";

function bytesOfHex(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = Number.parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

/** SHA-256(parameters || "\n" || secret) in hex, or null where the browser has no WebCrypto. */
export async function commitmentOf(parameters, secretHex) {
  if (!window.crypto || !window.crypto.subtle) return null;
  const text = new TextEncoder().encode(parameters);
  const secret = bytesOfHex(secretHex.toLowerCase());
  const data = new Uint8Array(text.length + 1 + secret.length);
  data.set(text, 0);
  data[text.length] = 10;
  data.set(secret, text.length + 1);
  const digest = new Uint8Array(await window.crypto.subtle.digest("SHA-256", data));
  return Array.from(digest, (b) => HEX[b >> 4] + HEX[b & 15]).join("");
}

let current = { play: null };

/** ``initPools({open, guard})``: wire the check page (app.js passes the router and the guard). */
export function initPools({ open, guard, loggedIn }) {
  initCheckInput({
    guard,
    onCheck: (values) => check({ ...values, play: current.play }),
    onDone: () => guard(() => open(loggedIn() ? "lobby" : "account")),
  });
}

/** The check page: ``params`` may name a pool, a position and the player's play. */
export async function showCheck({ pool = null, position = null, play = null } = {}) {
  current = { play };
  view.clearCheck();
  fillCheckForm({ pool, position, secret: "" });
  showScreen("check");
  if (pool === null) return;
  let info = null;
  try {
    info = await get(`/api/pools/${pool}`);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
  }
  if (info && info.secret) fillCheckForm({ pool, position, secret: info.secret });
  if (info && position !== null) await check({ pool, position, secret: info.secret || "", play });
}

/** Check position ``position`` of pool ``pool`` with ``secret`` (the published one if empty). */
async function check({ pool, position, secret, play }) {
  const form = q("check-form");
  clearErrors(form);
  view.clearCheck();
  let info;
  try {
    info = await get(`/api/pools/${pool}`);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 422)) {
      showErrors(form, { fields: { pool: `There is no pool ${pool}. Pools are numbered from 1.` }, form: null });
      return;
    }
    throw error;
  }
  if (position >= info.size) {
    showErrors(form, { fields: { position: `Pool ${pool} has ${info.size.toLocaleString("en-GB")} plays: positions 0 to ${(info.size - 1).toLocaleString("en-GB")}.` }, form: null });
    return;
  }
  const given = (secret || info.secret || "").toLowerCase();
  const result = { pool: info, position, verdicts: [], play: null, regenerated: null };
  // The commitment itself: the one this browser was shown while the pool was on sale, if it was.
  const seen = seenCommitments.get(pool);
  if (seen && seen.commitment !== info.commitment) {
    result.verdicts.push({ ok: false, text: `Pool ${pool}'s commitment is not the one this browser was shown on ${dateTimeText(seen.seen_at)}, while the pool was on sale (${seen.commitment}): it has changed since.` });
    view.drawCheck(result);
    return;
  }
  result.verdicts.push(seen
    ? { ok: true, text: `The commitment is the one this browser was shown on ${dateTimeText(seen.seen_at)}, while the pool was on sale.` }
    : { ok: null, text: `This browser was not shown pool ${pool} on sale, so it cannot vouch for the commitment: compare it with one you kept (colour-collector pool check --commitment does).` });
  if (!given) {
    result.verdicts.push({ ok: null, text: `Pool ${pool}'s secret is not published yet: it is published once the pool is closed and every play of it is finished. Until then, keep its commitment: ${info.commitment}.` });
    view.drawCheck(result);
    return;
  }
  const computed = await commitmentOf(info.parameters, given);
  if (computed === null) {
    result.verdicts.push({ ok: null, text: "This browser cannot work out a SHA-256 here (it needs a secure connection): check the secret with colour-collector pool check." });
  } else if (computed !== info.commitment) {
    result.verdicts.push({ ok: false, text: `This secret does not match the commitment pool ${pool} published before its sale: it is not the secret the pool was fixed with.` });
    view.drawCheck(result);
    return;
  } else {
    // Only a commitment this browser saw on sale is known to be the one published before it.
    result.verdicts.push({ ok: true, text: seen
      ? `The secret matches the commitment pool ${pool} published before its sale, worked out in this browser.`
      : `The secret matches the commitment the server gives for pool ${pool} now, worked out in this browser.` });
  }
  if (!info.secret) {
    result.verdicts.push({ ok: null, text: `Pool ${pool}'s secret is not published yet: its plays can be shown once it is.` });
    view.drawCheck(result);
    return;
  }
  result.regenerated = await get(`/api/pools/${pool}/plays/${position}`);
  if (play) {
    try {
      result.play = await get(`/api/my-games/${encodeURIComponent(play)}`);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      result.play = null;
      // Not a word here read as a play checked: say why it was not compared.
      result.verdicts.push(error.status === 401
        ? { ok: null, text: `Log in to compare your play ${play} with this one: only its player can see it.` }
        : { ok: false, text: `Play ${play} is not one of your plays: it cannot be compared with this one.` });
    }
    if (result.play) {
      const mine = result.play;
      const same = mine.play.pool_id === pool && mine.play.pool_position === position
        && mine.record_sha256 === result.regenerated.record_sha256;
      result.verdicts.push(same
        ? { ok: true, text: `Your play ${mine.play.play_number} is this play: the same record, SHA-256 ${mine.record_sha256}.` }
        : { ok: false, text: `Your play ${mine.play.play_number} is not the play at this position.` });
    }
  }
  view.drawCheck(result);
}
