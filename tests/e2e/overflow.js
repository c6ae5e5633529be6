// Text that does not fit, measured on screen (tests/e2e/e2e_support.py: check_no_overflow).
// For every visible element with text of its own: its content is no wider than its box, each
// line of its text lies inside its box, the element lies inside its parent's box, and inside
// the window. Visually hidden text (for screen readers), SVG and decorations are skipped.
() => {
  const problems = [];
  const vw = document.documentElement.clientWidth;
  const skip = '.sr-only, svg, .sprite, .flyer, .burst, .rays, .skip';
  const label = (el) => `${el.dataset.testid || el.tagName.toLowerCase() + (el.className ? '.' + el.className : '')}`
    + ` "${el.textContent.trim().replace(/\s+/g, ' ').slice(0, 50)}"`;
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest(skip)) continue;
    const texts = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
    if (!texts.length || !el.checkVisibility({ visibilityProperty: true })) continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue;   // empty, or visually hidden (read by screen readers)
    const cs = getComputedStyle(el);
    const slack = parseFloat(cs.fontSize) * 0.3;
    if (cs.display !== 'inline' && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${label(el)}: its text is ${el.scrollWidth}px wide in a ${el.clientWidth}px box`);
    }
    for (const t of texts) {
      const range = document.createRange();
      range.selectNodeContents(t);
      for (const tr of range.getClientRects()) {
        if (tr.width === 0) continue;
        if (tr.left < r.left - 1 || tr.right > r.right + 1 || tr.top < r.top - slack || tr.bottom > r.bottom + slack) {
          problems.push(`${label(el)}: its text spills out of its box`);
        }
      }
    }
    let parent = el.parentElement;
    while (getComputedStyle(parent).display === 'contents') parent = parent.parentElement;
    const pr = parent.getBoundingClientRect();
    if (r.left < pr.left - 1 || r.right > pr.right + 1 || r.top < pr.top - slack || r.bottom > pr.bottom + slack) {
      problems.push(`${label(el)}: outside its parent ${label(parent)}`);
    }
    if (r.left < -1 || r.right > vw + 1) problems.push(`${label(el)}: outside the window`);
  }
  return problems;
}
