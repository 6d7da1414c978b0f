// A complete Ludus bot in JavaScript: plays Evolution and Marine legally (docs/bots.md, "Languages").
"use strict";
const ludus = require("./ludus.js");

let state = 0;
function next() { // a small deterministic generator, seeded by the seat
  state = (state * 1103515245 + 12345) % 2147483648;
  return state;
}

ludus.run((view, decision, bot) => {
  if (state === 0) state = 7 + bot.hello.seat;
  // Any index of decision.options is legal; a real bot weighs them with the view.
  return next() % decision.options.length;
});
