// Information before buying, with or without an account: the price, the overall odds, the
// payout percentage, the prize table and the Game Procedures, all from GET /api/game/information.

import { get } from "./api.js";
import { $, byTestId, el } from "./dom.js";
import { money } from "./format.js";
import { showScreen } from "./screens.js";

const q = byTestId;
let loaded = null;

export async function showInfo() {
  loaded = loaded || await get("/api/game/information");
  q("info-price").textContent = money(loaded.price_pence);
  q("info-odds").textContent = loaded.overall_odds;
  q("info-payout").textContent = loaded.payout_percent;
  const body = $('[data-testid="info-prizes"] tbody');
  body.replaceChildren(...loaded.prizes.map((prize) => el("tr", {},
    el("th", { scope: "row", text: prize.name }),
    el("td", { class: "money", text: prize.odds.toLocaleString("en-GB") }))));
  q("info-procedures-text").textContent = loaded.procedures;
  showScreen("info");
}
