// Arrow path: read a puzzle on stdin, print the solved board.
//
// The given numbers cut the path into gaps (from a given k to the next given m).
// Depth-first search fills the gaps one cell at a time, always extending the gap
// whose next cell has the fewest possibilities. Before going deeper, every
// unfinished gap must still be walkable over unused cells (the cells reachable
// from its front in j steps and reaching its end in the remaining steps exist for
// every j), and every unused cell must lie in some gap. Cell sets are arrays of
// 32-bit words. Assumes 1 is given (as in every test case).
"use strict";

const STEPS = { N: [-1, 0], NE: [-1, 1], E: [0, 1], SE: [1, 1], S: [1, 0], SW: [1, -1], W: [0, -1], NW: [-1, -1] };

const lines = require("fs").readFileSync(0, "utf8").split("\n");
const header = lines[0].trim();
const size = header.split(/\s+/).map(Number);
const rows = size[0], cols = size.length > 1 ? size[1] : size[0];
const n = rows * cols, words = (n + 31) >> 5;
const tokens = lines.slice(1, rows + 1).join(" ").trim().split(/\s+/);
const names = tokens.map((t) => t.replace(/^\d+/, ""));
const given = tokens.map((t) => parseInt(t, 10));
given[names.indexOf("")] = n;

const newSet = () => new Uint32Array(words);
const add = (set, c) => { set[c >> 5] |= 1 << (c & 31); };
const has = (set, c) => (set[c >> 5] >>> (c & 31)) & 1;
const ctz = (x) => 31 - Math.clz32(x & -x);
const popcount = (x) => { let count = 0; while (x) { x &= x - 1; count++; } return count; };

const succ = [], pred = [];
for (let c = 0; c < n; c++) { succ.push(newSet()); pred.push(newSet()); }
for (let c = 0; c < n; c++) {
  if (!names[c]) continue;
  const [dr, dc] = STEPS[names[c]];
  let r = Math.floor(c / cols) + dr, q = (c % cols) + dc;
  while (r >= 0 && r < rows && q >= 0 && q < cols) {
    add(succ[c], r * cols + q);
    add(pred[r * cols + q], c);
    r += dr; q += dc;
  }
}

const cellOf = new Int32Array(n + 1).fill(-1);
given.forEach((v, c) => { if (v) cellOf[v] = c; });
const answer = given.slice();
const front = [], frontNumber = [], goalNumber = [];
let previous = 0;
for (let v = 1; v <= n; v++) {
  if (cellOf[v] < 0) continue;
  if (previous) { front.push(cellOf[previous]); frontNumber.push(previous); goalNumber.push(v); }
  previous = v;
}
const gaps = front.length;

// out = (union of moves[c] for c in layer) & allowed
function step(layer, moves, allowed, out) {
  out.fill(0);
  for (let i = 0; i < words; i++) {
    let bits = layer[i];
    while (bits) {
      const c = (i << 5) + ctz(bits);
      bits &= bits - 1;
      const m = moves[c];
      for (let j = 0; j < words; j++) out[j] |= m[j];
    }
  }
  for (let j = 0; j < words; j++) out[j] &= allowed[j];
}

const backLayers = Array.from({ length: n + 1 }, newSet);

// Can every unfinished gap still be walked over the free cells, covering them all?
// Returns null if not, else { gap, options } for the gap with the fewest next cells (gap -1: all done).
function feasible(free) {
  const covered = newSet();
  let layer = newSet(), next = newSet();
  let best = { gap: -1, options: null }, fewest = Infinity;
  for (let g = 0; g < gaps; g++) {
    const length = goalNumber[g] - frontNumber[g], goal = cellOf[goalNumber[g]];
    if (length === 1) {
      if (!has(succ[front[g]], goal)) return null;
      continue;
    }
    backLayers[0].fill(0);
    add(backLayers[0], goal);
    for (let j = 1; j < length; j++) step(backLayers[j - 1], pred, free, backLayers[j]);
    layer.fill(0);
    add(layer, front[g]);
    for (let j = 1; j < length; j++) {
      step(layer, succ, free, next);
      let any = 0;
      for (let i = 0; i < words; i++) {
        layer[i] = next[i] & backLayers[length - j][i];
        covered[i] |= layer[i];
        any |= layer[i];
      }
      if (!any) return null;
      if (j === 1) {
        let count = 0;
        for (let i = 0; i < words; i++) count += popcount(layer[i]);
        if (count < fewest) { fewest = count; best = { gap: g, options: layer.slice() }; }
      }
    }
  }
  for (let i = 0; i < words; i++) if (covered[i] !== free[i]) return null;
  return best;
}

function search(free) {
  const choice = feasible(free);
  if (choice === null) return false;
  if (choice.gap < 0) return true;
  const g = choice.gap, oldFront = front[g];
  for (let i = 0; i < words; i++) {
    let bits = choice.options[i];
    while (bits) {
      const cell = (i << 5) + ctz(bits);
      bits &= bits - 1;
      const rest = free.slice();
      rest[cell >> 5] &= ~(1 << (cell & 31));
      front[g] = cell;
      frontNumber[g]++;
      answer[cell] = frontNumber[g];
      if (search(rest)) return true;
      frontNumber[g]--;
    }
  }
  front[g] = oldFront;
  return false;
}

const free = newSet();
for (let c = 0; c < n; c++) if (!given[c]) add(free, c);
if (cellOf[1] < 0 || !search(free)) {
  process.stderr.write("no solution\n");
  process.exit(1);
}
const out = [header];
for (let r = 0; r < rows; r++) {
  const row = [];
  for (let q = 0; q < cols; q++) row.push(answer[r * cols + q] + names[r * cols + q]);
  out.push(row.join(" "));
}
process.stdout.write(out.join("\n") + "\n");
