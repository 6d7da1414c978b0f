// Hostile (close_stdout.py's twin): answers once, then closes its stdout and waits.
const fs = require("fs");
let count = 0;
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type !== "decide") return;
  if (++count === 2) {
    fs.closeSync(1);
    setInterval(() => {}, 1000);
    return;
  }
  fs.writeSync(1, JSON.stringify({ seq: message.seq, choice: 0 }) + "\n");
});
