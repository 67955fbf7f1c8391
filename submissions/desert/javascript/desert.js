// Desert crossing in JavaScript: solves any valid map, after one death to watch.
//
// Strategy: walk a shortest path S = p[0] .. p[d] = E, horizontal leg first, and push
// caches of water outward along it. A "trip" to p[j] leaves S full, takes one unit
// from each cache on the way out (so it stays full), drops up to 3 units on p[j], and
// walks back taking one unit only when it would run dry. supply(j, n) makes trips to
// p[j] until it holds n units, topping every earlier cache up to 2 first (farthest
// first). The final walk needs 1 unit on p[1..d-5] and arrives on E with its last unit.
// No tile ever exceeds 9: water already on the path counts as cache.
"use strict";

const STEP = { U: [-1, 0], D: [1, 0], L: [0, -1], R: [0, 1] };
const BACK = { U: "D", D: "U", L: "R", R: "L" };

class Attempt {
  constructor(rows, write) {
    this.rows = rows;
    this.write = write;
    this.water = rows.map((row) => [...row].map((ch) => (ch >= "1" && ch <= "9" ? +ch : 0)));
    this.seen = rows.map((row) => [...row].map(() => false));
    rows.forEach((row, r) => [...row].forEach((ch, c) => {
      if (ch === "S") this.start = [r, c];
      if (ch === "E") this.end = [r, c];
    }));
    this.at = this.start.slice();
    this.carried = 5;
    this.buffer = [];
  }

  isAt([r, c]) { return this.at[0] === r && this.at[1] === c; }

  // One turn: move, drink one unit, then pick up (units > 0) or drop (units < 0).
  turn(direction, units = 0) {
    const [dr, dc] = STEP[direction];
    this.at = [this.at[0] + dr, this.at[1] + dc];
    const [r, c] = this.at;
    this.seen[r][c] = true;
    this.carried -= 1;
    this.buffer.push(direction + (units < 0 ? "-" : "+") + Math.abs(units));
    if (this.buffer.length >= 8192) this.flush();
    if (this.isAt(this.end)) return;
    if (!this.isAt(this.start)) this.water[r][c] -= units;
    this.carried += units;
  }

  flush() {
    if (this.buffer.length) this.write(this.buffer.join("\n") + "\n");
    this.buffer = [];
  }

  finish() {
    this.flush();
    const lines = this.rows.map((row, r) => [...row].map((ch, c) => {
      if (ch === "S" || ch === "E") return ch;
      if (this.water[r][c]) return String(this.water[r][c]);
      return this.seen[r][c] ? "#" : ".";
    }).join(""));
    this.write(lines.join("\n") + "\n");
  }
}

function shortestPath([sr, sc], [er, ec]) {
  return (ec > sc ? "R" : "L").repeat(Math.abs(ec - sc)) + (er > sr ? "D" : "U").repeat(Math.abs(er - sr));
}

function cross(attempt) {
  const path = shortestPath(attempt.start, attempt.end);
  const squares = [attempt.start];
  for (const d of path) {
    const [r, c] = squares[squares.length - 1];
    squares.push([r + STEP[d][0], c + STEP[d][1]]);
  }
  const cache = (i) => attempt.water[squares[i][0]][squares[i][1]];

  const trip = (j, drop) => {
    for (let i = 1; i < j; i++) attempt.turn(path[i - 1], 1);
    attempt.turn(path[j - 1], -drop);
    for (let i = j - 1; i > 0; i--) attempt.turn(BACK[path[i]], attempt.carried === 1 ? 1 : 0);
    attempt.turn(BACK[path[0]], 6 - attempt.carried); // back on S: fill up
  };
  const supply = (j, need) => {
    while (cache(j) < need) {
      for (let i = j - 1; i > 0; i--) supply(i, 2);
      trip(j, Math.min(3, 9 - cache(j)));
    }
  };

  const d = path.length;
  for (let i = d - 5; i > 0; i--) supply(i, 1);
  [...path].forEach((direction, k) => attempt.turn(direction, k + 1 <= d - 5 ? 1 : 0));
}

// A death to watch: pace between S and a neighbour that is not E until the water is gone.
function death(rows, write) {
  const attempt = new Attempt(rows, write);
  const [sr, sc] = attempt.start;
  for (const d of "LRUD") {
    const r = sr + STEP[d][0], c = sc + STEP[d][1];
    if (r < 0 || c < 0 || r >= rows.length || c >= rows[0].length || rows[r][c] === "E") continue;
    for (let k = 0; k < 5; k++) attempt.turn(k % 2 ? BACK[d] : d);
    attempt.finish();
    return;
  }
}

const input = require("fs").readFileSync(0, "utf8");
const rows = input.split("\n").filter((row) => row.length);
const out = (text) => process.stdout.write(text);
death(rows, out);
const winner = new Attempt(rows, out);
cross(winner);
winner.finish();
