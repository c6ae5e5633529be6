// Sound effects, made in the browser with the Web Audio API (no sound files). Off until the
// player turns it on with the Sound button in the top bar; the choice is remembered
// (storage.js). A loss and a return of the stake have no sound at all.

import { prefs } from "./storage.js";
import { byTestId } from "./dom.js";

let context = null;
let master = null;

function audio() {
  if (!context) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    context = new Context();
    master = context.createGain();
    master.gain.value = 0.25;
    master.connect(context.destination);
  }
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

/** One note: ``type`` wave at ``freq`` Hz from ``at`` seconds for ``len`` seconds. */
function note(freq, at, len, { type = "sine", gain = 0.5, slide = null } = {}) {
  const ctx = audio();
  if (!ctx) return;
  const start = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const env = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, start);
  if (slide) osc.frequency.exponentialRampToValueAtTime(slide, start + len);
  env.gain.setValueAtTime(0.0001, start);
  env.gain.exponentialRampToValueAtTime(gain, start + 0.012);
  env.gain.exponentialRampToValueAtTime(0.0001, start + len);
  osc.connect(env).connect(master);
  osc.start(start);
  osc.stop(start + len + 0.05);
}

const arpeggio = (freqs, step, len, options) => freqs.forEach((f, i) => note(f, i * step, len, options));

const CUES = {
  /** The wheel turns: clicks slowing down. */
  spin: () => {
    let t = 0;
    for (let i = 0; i < 14; i += 1) { note(1400, t, 0.03, { type: "square", gain: 0.15 }); t += 0.04 + i * 0.009; }
  },
  /** Squares collected. */
  collect: () => arpeggio([660, 880], 0.07, 0.12, { type: "triangle", gain: 0.3 }),
  /** A Prize Table row completed. */
  row: () => arpeggio([523, 659, 784, 1047], 0.09, 0.25, { type: "triangle", gain: 0.35 }),
  /** BONUS GAME / PRIZE GAME unlocked. */
  unlock: () => note(300, 0, 0.5, { type: "sawtooth", gain: 0.18, slide: 900 }),
  /** A Bonus Prize won. */
  bonus: () => arpeggio([784, 1175], 0.08, 0.2, { type: "sine", gain: 0.35 }),
  /** The Bonus Game ends (a wrong pick): neutral, not a buzzer. */
  "bonus-end": () => note(392, 0, 0.25, { type: "sine", gain: 0.2 }),
  /** Amounts go into the Prize Pot. */
  pot: () => arpeggio([880, 1320], 0.05, 0.1, { type: "square", gain: 0.12 }),
  /** A win above the stake. */
  win: () => arpeggio([523, 659, 784], 0.11, 0.3, { type: "triangle", gain: 0.35 }),
  /** A big win (ten times the stake or more): a fanfare. */
  "big-win": () => {
    arpeggio([392, 523, 659, 784, 1047], 0.12, 0.35, { type: "sawtooth", gain: 0.18 });
    arpeggio([1568, 2093, 1568, 2093], 0.09, 0.12, { type: "sine", gain: 0.2 });
  },
  /** £1,000 and more: a longer fanfare. */
  "mega-win": () => {
    arpeggio([392, 523, 659, 784, 1047, 1319, 1568], 0.12, 0.4, { type: "sawtooth", gain: 0.18 });
    for (let i = 0; i < 10; i += 1) note(1800 + (i % 3) * 400, 0.9 + i * 0.08, 0.1, { type: "sine", gain: 0.15 });
  },
};

let on = false;

export function initSound() {
  on = prefs.sound;
  const button = byTestId("sound-toggle");
  show(button);
  button.addEventListener("click", () => {
    on = !on;
    prefs.sound = on;
    show(button);
    if (on) { audio(); play("collect"); }
  });
  // A browser starts audio only after a gesture: wake it on the first one when sound is on.
  const wake = () => { if (on) audio(); };
  document.addEventListener("pointerdown", wake, { once: true });
  document.addEventListener("keydown", wake, { once: true });
}

function show(button) {
  button.setAttribute("aria-pressed", on ? "true" : "false");
  button.querySelector("use").setAttribute("href", on ? "#s-sound-on" : "#s-sound-off");
  button.title = on ? "Sound is on" : "Sound is off";
}

/** Play a cue (nothing when sound is off). The last cue is on <body data-sound> for tests. */
export function play(cue) {
  if (!on || !CUES[cue]) return;
  document.body.dataset.sound = cue;
  try { CUES[cue](); } catch { /* no audio device: the game goes on silently */ }
}
