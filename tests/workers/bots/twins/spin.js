// Hostile (loop_first.py's twin): spins forever at its first decision.
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  if (JSON.parse(line).type === "decide") for (;;) {}
});
