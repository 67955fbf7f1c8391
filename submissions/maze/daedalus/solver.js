// Daedalus's solver: a left-hand wall follower.
// Persistent (entry.toml says so): it must remember which way it faces.
// It starts facing up; at each cell it tries, in order, to turn left, go
// straight, turn right, turn back, and takes the first move on offer.
// In a maze whose walls all touch the outer edge this always arrives; a wall
// island around the start traps it until the step limit.
"use strict";
const DIRS = [[-1, 0], [0, 1], [1, 0], [0, -1]]; // up, right, down, left (clockwise)
let facing = 0;
let pending = "";
let lines = [];

function answer(state) {
  const here = state[5].trim().split(/\s+/).map(Number);
  const offered = new Set(state[6].trim().split(",").map((m) => m.trim().split(/\s+/).map(Number).join(" ")));
  for (const turn of [3, 0, 1, 2]) { // left, straight, right, back
    const d = (facing + turn) % 4;
    const next = [here[0] + DIRS[d][0], here[1] + DIRS[d][1]];
    if (offered.has(next.join(" "))) {
      facing = d;
      return next.join(" ");
    }
  }
  return [...offered][0];
}

process.stdin.setEncoding("ascii");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let newline;
  const out = [];
  while ((newline = pending.indexOf("\n")) >= 0) {
    lines.push(pending.slice(0, newline));
    pending = pending.slice(newline + 1);
    if (lines.length === 7) {
      out.push(answer(lines) + "\n");
      lines = [];
    }
  }
  if (out.length) process.stdout.write(out.join(""));
});
