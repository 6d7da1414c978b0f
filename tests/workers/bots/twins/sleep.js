// Hostile (sleeper.py's twin): answers twice, then sleeps a minute in its third decision.
let count = 0;
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type !== "decide") return;
  if (++count === 3) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
  process.stdout.write(JSON.stringify({ seq: message.seq, choice: 0 }) + "\n");
});
