// The operator console: log in, the game's state (sales switch, alerts, live figures with 99%
// control bands, the pool, the audit chain's last verification), player look-up. Everything
// comes from /api/operator/*; the read-only tables are sqladmin's, at /operator/tables/.

const $ = (sel) => document.querySelector(sel);
const q = (id) => document.querySelector(`[data-testid="${id}"]`);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined) continue;
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return null;
}

class Problem extends Error {
  constructor(status, body) {
    super((body && body.detail) || `request failed (${status})`);
    this.status = status;
    this.code = body && body.code;
  }
}

async function call(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (method !== "GET") {
    if (!cookie("cc_csrf")) await fetch("/api/csrf", { credentials: "same-origin" });
    init.headers["Content-Type"] = "application/json";
    init.headers["X-CSRF-Token"] = cookie("cc_csrf");
    init.body = JSON.stringify(body || {});
  }
  const answer = await fetch(path, init);
  const text = await answer.text();
  const data = text ? JSON.parse(text) : null;
  if (!answer.ok) throw new Problem(answer.status, data);
  return data;
}

let busy = 0;
function setBusy(on) {
  busy = Math.max(0, busy + (on ? 1 : -1));
  document.body.dataset.busy = busy ? "true" : "false";
}
async function guard(action, errorBox = null) {
  setBusy(true);
  if (errorBox) errorBox.hidden = true;
  try {
    return await action();
  } catch (error) {
    if (error instanceof Problem && error.code === "operator_not_authenticated") { show("login"); return undefined; }
    const box = errorBox || q("console-login-error");
    box.textContent = sayProblem(error);
    box.hidden = false;
    return undefined;
  } finally {
    setBusy(false);
  }
}

function sayProblem(error) {
  if (!(error instanceof Problem)) return "The console could not reach the server.";
  switch (error.code) {
    case "invalid_credentials": return "Wrong operator name or password.";
    case "too_many_attempts": return "Too many failed logins. Wait a few minutes.";
    case "operator_forbidden": return "Your role does not allow this.";
    case "not_found": return "No player found.";
    case "invalid_request": return "Check what you entered.";
    default: return error.message;
  }
}

function announce(text) {
  q("console-live").textContent = "";
  setTimeout(() => { q("console-live").textContent = text; }, 30);
}

function show(view) {
  document.body.dataset.view = view;
  for (const s of document.querySelectorAll("main > section")) s.hidden = s.dataset.view !== view;
  q("console-nav").hidden = view !== "dashboard";
  const heading = $(`section[data-view="${view}"] h1`);
  heading.setAttribute("tabindex", "-1");
  heading.focus({ preventScroll: true });
  if (view === "login") window.history.replaceState(null, "", "#/login");
  else window.history.replaceState(null, "", "#/");
}

const pounds = (pence) => `£${(pence / 100).toLocaleString("en-GB", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const percent = (ratio) => `${(ratio * 100).toFixed(2)}%`;
const prize = (pence) => (pence === 0 ? "No win" : pounds(pence));
const when = (iso) => (iso ? new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" }) : "");

let me = null;
let state = null;

function drawSales() {
  const { sales } = state;
  q("sales-state").textContent = sales.on_sale ? "On sale" : "Sales stopped";
  q("sales-state").dataset.on = String(sales.on_sale);
  q("sales-changed").textContent = sales.changed_at
    ? `${sales.on_sale ? "Restarted" : "Stopped"} by ${sales.changed_by} on ${when(sales.changed_at)}: ${sales.reason}`
    : "Never changed.";
  const button = q("sales-switch");
  button.textContent = sales.on_sale ? "Stop sales" : "Restart sales";
  button.className = sales.on_sale ? "stop" : "go";
  q("sales-form").hidden = me.role !== "manager";
}

function drawFigures() {
  const f = state.figures;
  q("figures-summary").textContent = `${f.plays.toLocaleString("en-GB")} plays sold (${f.in_progress} in progress), stakes ${pounds(f.stakes_pence)}; ${f.paid_plays} prizes paid, ${pounds(f.paid_pence)}.`;
  const p = f.payout;
  q("payout-line").textContent = f.plays === f.in_progress
    ? `No play has finished yet: the payout is measured over finished plays (published ${percent(p.expected)}).`
    : `Payout of the finished plays ${percent(p.observed)} against ${percent(p.expected)} (99% band ${percent(p.low)} to ${percent(p.high)})${p.outside ? ": OUTSIDE THE BAND" : ""}.`;
  const body = $('[data-testid="prize-frequencies"] tbody');
  body.replaceChildren(...f.prizes.map((line) => el("tr", { "data-outside": String(line.plays.outside), "data-testid": `frequency-${line.prize_pence}` },
    el("th", { scope: "row", text: prize(line.prize_pence) }),
    el("td", { text: line.probability < 0.001 ? line.probability.toExponential(2) : line.probability.toFixed(4) }),
    el("td", { text: line.plays.expected.toFixed(1) }),
    el("td", { text: `${line.plays.low} to ${line.plays.high}` }),
    el("td", { text: String(line.plays.observed) }),
    el("td", { text: line.plays.outside ? "Outside" : "Within" }))));
  const alerts = q("alerts");
  alerts.replaceChildren(...(f.alerts.length
    ? f.alerts.map((text) => el("li", { class: "alert", text }))
    : [el("li", { class: "ok", text: "Every figure is within its 99% band." })]));
}

function drawPool() {
  const problem = q("pool-problem");
  problem.textContent = state.pool_problem || "";
  problem.hidden = !state.pool_problem;
  const table = q("pool-table");
  if (!state.pool) {
    q("pool-summary").textContent = `Plays are drawn independently (draw mode ${state.draw_mode}): there is no finite pool to run out.`;
    table.hidden = true;
    return;
  }
  q("pool-summary").textContent = `${state.pool.remaining.toLocaleString("en-GB")} of ${state.pool.size.toLocaleString("en-GB")} plays left.`;
  table.hidden = false;
  $('[data-testid="pool-table"] tbody').replaceChildren(...state.pool.by_prize.map((row) => el("tr", {},
    el("th", { scope: "row", text: prize(row.prize_pence) }), el("td", { text: row.remaining.toLocaleString("en-GB") }))));
}

function drawAudit() {
  const last = state.last_audit_check;
  q("audit-last").textContent = last
    ? `Last verified on ${when(last.checked_at)} by ${last.operator || "the command line"}: ${last.intact ? `intact, ${last.entries} entries, last hash ${last.last_hash.slice(0, 16)}…` : `BROKEN: ${last.problem}`}`
    : "Not verified from the console yet.";
  q("audit-verify").hidden = me.role !== "manager";
}

async function refresh() {
  state = await call("GET", "/api/operator/game");
  drawSales();
  drawFigures();
  drawPool();
  drawAudit();
  q("lookup-panel").hidden = me.role === "viewer";
  q("console-tables").hidden = me.role === "viewer";
}

async function openDashboard() {
  q("console-operator").textContent = `${me.name} (${me.role})`;
  await refresh();
  show("dashboard");
}

/** A break in words. A self-exclusion's term may be over while it still holds: it stays in
 * place until the player asks to play again, and a day after (``ended``, ``returns_at``). */
function breakWords(e) {
  const term = `${e.kind === "time_out" ? "time-out" : "self-exclusion"} ${when(e.starts_at)} to ${when(e.ends_at)}`;
  if (e.kind === "time_out" || !e.ended) return term;
  return e.returns_at
    ? `${term}, ended; the player asked to play again: plays and deposits open ${when(e.returns_at)}`
    : `${term}, ended, but in place until the player asks to play again`;
}

function drawPlayer(file) {
  const box = q("player-file");
  const limits = file.deposit_limits.map((l) => `${l.period} ${l.amount_pence === null ? "none" : pounds(l.amount_pence)}${l.pending ? ` (change to ${l.requested_pence === null ? "none" : pounds(l.requested_pence)} waiting)` : ""}`).join("; ");
  const breaks = file.exclusions.length
    ? file.exclusions.map(breakWords).join("; ")
    : "none";
  const rows = [
    ["Account", `#${file.id}, ${file.email}`],
    ["Date of birth", file.date_of_birth],
    ["Registered", when(file.created_at)],
    ["Balance", pounds(file.balance_pence)],
    ["Deposit limits", `${limits}${file.limits_answered ? "" : " (not asked yet)"}`],
    ["Reality checks", `every ${file.reality_check_minutes} minutes`],
    ["Breaks", breaks],
    ["Plays", `${file.play_count} in all`],
  ];
  const plays = el("table", {}, el("caption", { text: "Latest plays" }),
    el("thead", {}, el("tr", {}, ...["Play Number", "Status", "Prize", "Bought", "Pool"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, ...file.plays.map((p) => el("tr", {}, el("th", { scope: "row", text: p.play_number }),
      el("td", { text: p.status }), el("td", { text: prize(p.prize_pence) }), el("td", { text: when(p.purchased_at) }),
      el("td", { text: p.pool_id === null ? "drawn" : `pool ${p.pool_id}, position ${p.pool_position.toLocaleString("en-GB")}` })))));
  const movements = el("table", {}, el("caption", { text: "Latest movements" }),
    el("thead", {}, el("tr", {}, ...["When", "Kind", "Amount"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, ...file.movements.map((m) => el("tr", {}, el("td", { text: when(m.created_at) }),
      el("th", { scope: "row", text: m.kind }), el("td", { text: pounds(m.amount_pence) })))));
  box.replaceChildren(
    el("dl", { class: "file" }, ...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })])),
    el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Latest plays" }, plays),
    el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Latest movements" }, movements));
  box.hidden = false;
}

function wire() {
  q("console-login").addEventListener("submit", (event) => {
    event.preventDefault();
    guard(async () => {
      me = await call("POST", "/api/operator/login", { name: q("console-name").value, password: q("console-password").value });
      q("console-password").value = "";
      await openDashboard();
    }, q("console-login-error"));
  });
  q("console-logout").addEventListener("click", () => guard(async () => {
    await call("POST", "/api/operator/logout");
    me = null;
    show("login");
  }));
  q("sales-form").addEventListener("submit", (event) => {
    event.preventDefault();
    guard(async () => {
      const reason = q("sales-reason").value.trim();
      if (!reason) { throw new Problem(422, { code: "invalid_request", detail: "" }); }
      const done = await call("POST", "/api/operator/sales", { on_sale: !state.sales.on_sale, reason });
      q("sales-reason").value = "";
      announce(done.on_sale ? "Sales restarted." : "Sales stopped.");
      await refresh();
    }, q("sales-error"));
  });
  q("audit-verify").addEventListener("click", () => guard(async () => {
    await call("POST", "/api/operator/audit/verify");
    announce("Audit chain verified.");
    await refresh();
  }, q("sales-error")));
  q("lookup-form").addEventListener("submit", (event) => {
    event.preventDefault();
    guard(async () => {
      q("player-file").hidden = true;
      drawPlayer(await call("POST", "/api/operator/players/lookup", { query: q("lookup-query").value }));
    }, q("lookup-error"));
  });
}

async function boot() {
  wire();
  try {
    me = await call("GET", "/api/operator/me");
  } catch {
    me = null;
  }
  if (me) await openDashboard();
  else show("login");
}

setBusy(true);
boot().finally(() => setBusy(false));
