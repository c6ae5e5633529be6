// HOW TO PLAY: the seven panels, in the Game Procedures' own words.

import { $, focusHeading } from "./dom.js";

export const PANELS = [
  { heading: null, text: "YOU START THE GAME WITH 6 SPINS. BEFORE EACH SPIN, ONE OF SIX COLOURS WILL BE APPLIED TO EVERY SYMBOL ON THE PLAY GRID." },
  { heading: null, text: "TAP THE SPIN BUTTON TO REVEAL A COLOUR. ALL SYMBOLS MATCHING THAT COLOUR WILL BE COLLECTED! NEW SYMBOLS WILL BE ADDED TO FILL THE SPACES IN THE PLAY GRID." },
  { heading: null, text: "COLLECT 6 SYMBOLS TO ACTIVATE THE BONUS GAME. COLLECT 6 SYMBOLS TO ACTIVATE THE PRIZE GAME, WHERE YOU ARE GUARANTEED TO WIN." },
  { heading: "BONUS GAME", text: "TAP ODD OR EVEN TO REVEAL A NUMBER BETWEEN 1 AND 12. SELECT THE CORRECT ANSWER AND WIN THE HIGHLIGHTED BONUS PRIZE." },
  { heading: "BONUS GAME", text: "KEEP CHOOSING ODD OR EVEN. IF YOU CONTINUE TO SELECT THE CORRECT ANSWER, YOU WILL CONTINUE TO COLLECT BONUS PRIZES. SELECT INCORRECTLY, AND YOU WILL RETURN TO THE MAIN GAME." },
  { heading: "PRIZE GAME", text: "ONE OF SIX COLOURS WILL BE APPLIED TO EVERY PRIZE AMOUNT ON THE PLAY GRID. TAP THE SPIN BUTTON TO REVEAL A COLOUR. ALL PRIZES MATCHING THAT COLOUR WILL BE COLLECTED!" },
  { heading: "PRIZE GAME", text: "NEW PRIZE AMOUNTS WILL BE ADDED TO FILL THE SPACES IN THE PLAY GRID. KEEP SPINNING AND COLLECTING PRIZES UNTIL YOU COLLECT A WIN SYMBOL. IF YOU COLLECT A WIN X2 SYMBOL YOUR PRIZE POT WILL BE DOUBLED!" },
];

let page = 0;
let onClose = null;
let returnFocus = null;

function show() {
  const panel = PANELS[page];
  const sub = $('[data-testid="how-to-subheading"]');
  sub.hidden = !panel.heading;
  sub.textContent = panel.heading || "";
  $('[data-testid="how-to-text"]').textContent = panel.text;
  $('[data-testid="how-to-page"]').textContent = `${page + 1} / ${PANELS.length}`;
  const next = $('[data-testid="how-to-next"]');
  const hadFocus = document.activeElement === next;
  next.disabled = page === PANELS.length - 1;
  if (next.disabled && hadFocus) $('[data-testid="how-to-close"]').focus();
}

/** Open the panels; ``close`` runs when the X is selected (the procedures: on to the Main Game). */
export function openHowTo(close) {
  onClose = close;
  returnFocus = document.activeElement;
  page = 0;
  $('[data-testid="how-to"]').hidden = false;
  document.body.dataset.overlay = "howto";
  show();
  focusHeading($("#howto-h"));
}

function closeHowTo() {
  const done = dismissHowTo();
  if (done) done();
  else if (returnFocus) returnFocus.focus();
}

/** Put the panels away without going on (another screen shows: Back, Forward, a link); returns
 * what the X would have run. Left open, they would lie over that screen, and their X would
 * start the play they were opened from under another address. */
export function dismissHowTo() {
  $('[data-testid="how-to"]').hidden = true;
  delete document.body.dataset.overlay;
  const done = onClose;
  onClose = null;
  return done;
}

export function initHowTo() {
  $('[data-testid="how-to-next"]').addEventListener("click", () => {
    if (page < PANELS.length - 1) { page += 1; show(); }
  });
  $('[data-testid="how-to-close"]').addEventListener("click", closeHowTo);
  $('[data-testid="how-to"]').addEventListener("keydown", (event) => {
    if (event.key === "Escape") { event.preventDefault(); closeHowTo(); }
    if (event.key === "ArrowRight" && page < PANELS.length - 1) { event.preventDefault(); page += 1; show(); }
    if (event.key === "Tab") {  // keep focus inside the dialog
      const items = [$('[data-testid="how-to-close"]'), $('[data-testid="how-to-next"]')].filter((b) => !b.disabled);
      const i = items.indexOf(document.activeElement);
      event.preventDefault();
      items[(i + (event.shiftKey ? items.length - 1 : 1)) % items.length].focus();
    }
  });
}
