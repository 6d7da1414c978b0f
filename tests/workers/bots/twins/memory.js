// Hostile (memory_bomb.py's twin): at its first decision, fills memory outside the JavaScript heap until stopped.
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  if (JSON.parse(line).type !== "decide") return;
  const kept = [];
  for (let mib = 0; ; mib += 16) {
    kept.push(Buffer.alloc(16 << 20, 1));
    if (mib % 128 === 0) console.error(`holding ${mib} MiB`);
  }
});
