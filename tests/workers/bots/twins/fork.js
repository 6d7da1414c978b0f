// Hostile (fork_bomb.py's twin): at its first decision, starts node processes until the kernel refuses, then plays on.
const { spawn } = require("child_process");
let started = 0;
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type !== "decide") return;
  if (started === 0) {
    for (let i = 0; i < 200; i++) {
      try {
        const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
        child.on("error", (error) => console.error(`spawn failed: ${error.code}`));
        started++;
      } catch (error) {
        console.error(`spawn threw after ${started}: ${error.code}`);
        break;
      }
    }
    console.error(`started ${started}`);
  }
  process.stdout.write(JSON.stringify({ seq: message.seq, choice: 0 }) + "\n");
});
