// The Ludus SDK for JavaScript (Node.js), the shape of the Python one (docs/bots.md, "The SDK"):
// run(act) reads the engine's JSON lines on stdin, asks for view patches, rebuilds each view, calls
// act(view, decision) and writes {"seq", "choice"}. console.log goes to stderr: printing is logging.
"use strict";
const readline = require("readline");

function unescape(token) {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

// RFC 6902 add, remove and replace: the operations the engine's patches use.
function applyPatch(view, patch) {
  for (const op of patch) {
    if (op.path === "") {
      view = structuredClone(op.value);
      continue;
    }
    const parts = op.path.split("/").slice(1).map(unescape);
    const last = parts.pop();
    let parent = view;
    for (const part of parts) parent = parent[Array.isArray(parent) ? Number(part) : part];
    if (Array.isArray(parent)) {
      const index = last === "-" ? parent.length : Number(last);
      if (op.op === "add") parent.splice(index, 0, structuredClone(op.value));
      else if (op.op === "remove") parent.splice(index, 1);
      else parent[index] = structuredClone(op.value);
    } else if (op.op === "remove") {
      delete parent[last];
    } else {
      parent[last] = structuredClone(op.value);
    }
  }
  return view;
}

function run(act) {
  const write = (message) => process.stdout.write(JSON.stringify(message) + "\n");
  console.log = console.error; // stdout carries only the protocol
  const bot = { hello: null, clock: null, outcome: null };
  let view = null;
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  lines.on("line", (line) => {
    const message = JSON.parse(line);
    if (message.type === "hello") {
      bot.hello = message;
      if (message.protocol >= 2) write({ type: "hello", views: "patch" });
    } else if (message.type === "decide") {
      view = message.patch ? applyPatch(view, message.patch) : message.view;
      bot.clock = message.clock;
      const choice = act(structuredClone(view), message.decision, bot);
      write({ seq: message.seq, choice: choice });
    } else if (message.type === "result") {
      bot.outcome = message.outcome;
      lines.close();
    }
  });
  return bot;
}

module.exports = { run, applyPatch };
