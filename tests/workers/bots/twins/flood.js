// Hostile (stdout_flood.py's and stderr_flood.py's twin): a 2 MiB line on stdout at its second decision, and 8 MiB on
// stderr, then it plays on.
const fs = require("fs");
let count = 0;
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type !== "decide") return;
  if (++count === 2) {
    fs.writeSync(1, "x".repeat(2 << 20) + "\n");
    for (let i = 0; i < 8192; i++) fs.writeSync(2, `flood ${i} ` + "y".repeat(1000) + "\n");
  }
  fs.writeSync(1, JSON.stringify({ seq: message.seq, choice: 0 }) + "\n");
});
