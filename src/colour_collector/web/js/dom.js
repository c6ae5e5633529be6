// DOM helpers shared by the drawing modules.

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
export const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

/** ``el("p", {class: "x", text: "hi", "data-testid": "y"}, child...)``. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("data-") || k.startsWith("aria-") || k === "role" || k === "type" || k === "id") node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

const SVG = "http://www.w3.org/2000/svg";
/** An <svg> showing one of the sprite symbols (#s-circle ... #s-prize_game). */
export function icon(name, cls = "") {
  const svg = document.createElementNS(SVG, "svg");
  if (cls) svg.setAttribute("class", cls);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", `#s-${name}`);
  svg.append(use);
  return svg;
}

export function svgEl(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** The square's colour pattern: an <svg> filling its box with url(#pat-<colour>). */
export function patternLayer(colour) {
  const svg = svgEl("svg", { class: "pat", "aria-hidden": "true", focusable: "false" });
  svg.append(svgEl("rect", { width: "100%", height: "100%", fill: `url(#pat-${colour})` }));
  return svg;
}

/** Give ``heading`` the focus (a screen or panel just opened), without scrolling the page. */
export function focusHeading(heading) {
  if (!heading) return;
  if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
  heading.focus({ preventScroll: true });
}
