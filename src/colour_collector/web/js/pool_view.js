// Prize pools, drawing: the panel of the pool on sale, and the result of a check (what was
// checked, the play at the position, its starting grid).

import { byTestId, el, icon, focusHeading } from "./dom.js";
import { money, itemName, colourName } from "./format.js";

const q = byTestId;
const count = (n) => Number(n).toLocaleString("en-GB");

/** The pool on sale in the panel ``pool-info-<where>``; hidden when ``pool`` is null. */
export function drawPoolInfo(where, pool) {
  const box = q(`pool-info-${where}`);
  if (!box) return;
  box.replaceChildren();
  box.hidden = !pool;
  if (!pool) return;
  const heading = `pool-info-${where}-h`;
  box.setAttribute("aria-labelledby", heading);
  box.append(el("h2", { id: heading, text: `Prize pool ${pool.id}` }));
  box.append(el("p", { "data-testid": `pool-left-${where}`, text: `${count(pool.left)} of ${count(pool.size)} plays left` }));
  if (pool.top_prizes.length) {
    // Near the end of a pool the server withholds how many are left (null): over a few open
    // plays it would tell something of their prizes before they are revealed.
    const withheld = pool.top_prizes.some((top) => top.left === null);
    const rows = pool.top_prizes.map((top) => el("tr", {},
      el("th", { scope: "row", text: top.tier }),
      el("td", { text: withheld ? `${count(top.total)} in the pool` : `${count(top.left)} of ${count(top.total)} left` })));
    box.append(el("table", { class: "tops", "data-testid": `pool-tops-${where}` },
      el("caption", { text: withheld ? "Top prizes" : "Top prizes left" }), el("tbody", {}, ...rows)));
    if (withheld) {
      box.append(el("p", { class: "hint", "data-testid": `pool-tops-withheld-${where}`,
        text: "Near the end of a pool, how many are left is not shown: it would give away something of the last plays' prizes." }));
    }
  }
  box.append(el("p", { class: "commit" }, "Commitment, published before the sale: ",
    el("code", { "data-testid": `pool-commitment-${where}`, text: pool.commitment })));
  box.append(el("p", {}, el("a", { href: `#/check?pool=${pool.id}`, "data-testid": `pool-check-${where}`, text: "Check a play" })));
}

export function clearCheck() {
  const box = q("check-result");
  box.hidden = true;
  q("check-verdicts").replaceChildren();
  q("check-facts").replaceChildren();
  q("check-grid").hidden = true;
  q("check-grid").replaceChildren();
  q("check-grid-heading").hidden = true;
}

const MARK = { true: "✓", false: "✗", null: "–" };

/** The result of a check: the verdicts, the play at the position, its starting grid. */
export function drawCheck({ pool, position, verdicts, regenerated }) {
  const list = q("check-verdicts");
  list.replaceChildren(...verdicts.map((v) => el("li", { "data-ok": String(v.ok), "data-testid": "check-verdict" },
    el("span", { class: "mark", "aria-hidden": "true", text: MARK[String(v.ok)] }), ` ${v.text}`)));
  const facts = [["Pool", `${pool.id} (${count(pool.size)} plays)`], ["Position", count(position)],
    ["Commitment", pool.commitment]];
  if (regenerated) {
    facts.push(["The play", regenerated.tier ? `wins ${money(regenerated.prize_pence)}: ${regenerated.tier}` : "no win"]);
    facts.push(["Steps", count(regenerated.steps)]);
    facts.push(["Record SHA-256", regenerated.record_sha256]);
  }
  q("check-facts").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", { text: k }),
    el("dd", { text: v, "data-testid": `check-fact-${k.toLowerCase().replace(/[^a-z]+/g, "-")}` })]));
  const grid = q("check-grid");
  if (regenerated) {
    grid.replaceChildren(...regenerated.start.grid.map((square, i) => el("li", { "data-item": square.item },
      icon(square.item, "grid-ico"),
      el("span", { text: `${itemName(square.item)}${square.colour ? `, ${colourName(square.colour)}` : ""}` }),
      el("span", { class: "sr-only", text: ` (square ${i + 1})` }))));
    grid.hidden = false;
    q("check-grid-heading").hidden = false;
  }
  q("check-result").hidden = false;
  focusHeading(q("check-result-heading"));
}
