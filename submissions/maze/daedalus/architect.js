// Daedalus's architect: a perfect maze chosen against the common solvers.
//
// It carves a recursive-backtracker maze, then tries start/end pairs (the two
// ends of the longest path, plus 80 random pairs at least `size` steps apart)
// and keeps the pair where the best of three common solvers does worst: a
// depth-first explorer preferring the goal's direction, and left- and
// right-hand wall followers (simulated exactly, as the solvers walk).
// Input: "size seed" on stdin (or as two arguments). Same size and seed, same maze.
"use strict";
const fs = require("fs");

function request() {
  let words = [];
  try { words = fs.readFileSync(0, "ascii").split("\n")[0].trim().split(/\s+/).filter(Boolean); } catch (e) { /* no stdin */ }
  if (!words.length) words = process.argv.slice(2);
  return [parseInt(words[0], 10), words[1] || "0"];
}

function mulberry32(seed) {
  return function () {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hash(text) {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return h >>> 0;
}

const [n, seed] = request();
const random = mulberry32(hash(`daedalus-${n}-${seed}`));
const h = new Uint8Array(n * (n - 1)).fill(1); // wall between (r,c) and (r+1,c) at r*n+c
const v = new Uint8Array(n * (n - 1)).fill(1); // wall between (r,c) and (r,c+1) at r*(n-1)+c
const DIRS = [[-1, 0], [0, 1], [1, 0], [0, -1]]; // up, right, down, left (clockwise)

function open(r, c, d) { // is the way from (r,c) in direction d open?
  const rr = r + DIRS[d][0], cc = c + DIRS[d][1];
  if (rr < 0 || rr >= n || cc < 0 || cc >= n) return false;
  if (d === 0) return !h[rr * n + c];
  if (d === 2) return !h[r * n + c];
  if (d === 3) return !v[r * (n - 1) + cc];
  return !v[r * (n - 1) + c];
}

function carve() {
  const seen = new Uint8Array(n * n);
  const stack = [0];
  seen[0] = 1;
  while (stack.length) {
    const cell = stack[stack.length - 1], r = Math.floor(cell / n), c = cell % n;
    const options = [];
    for (let d = 0; d < 4; d++) {
      const rr = r + DIRS[d][0], cc = c + DIRS[d][1];
      if (rr >= 0 && rr < n && cc >= 0 && cc < n && !seen[rr * n + cc]) options.push(d);
    }
    if (!options.length) { stack.pop(); continue; }
    const d = options[Math.floor(random() * options.length)], rr = r + DIRS[d][0], cc = c + DIRS[d][1];
    if (d === 0) h[rr * n + c] = 0; else if (d === 2) h[r * n + c] = 0;
    else if (d === 3) v[r * (n - 1) + cc] = 0; else v[r * (n - 1) + c] = 0;
    seen[rr * n + cc] = 1;
    stack.push(rr * n + cc);
  }
}

function distances(from) {
  const dist = new Int32Array(n * n).fill(-1);
  const queue = [from];
  dist[from] = 0;
  for (let i = 0; i < queue.length; i++) {
    const cell = queue[i], r = Math.floor(cell / n), c = cell % n;
    for (let d = 0; d < 4; d++) {
      if (!open(r, c, d)) continue;
      const next = (r + DIRS[d][0]) * n + c + DIRS[d][1];
      if (dist[next] < 0) { dist[next] = dist[cell] + 1; queue.push(next); }
    }
  }
  return dist;
}

const LIMIT = n * n * n;
const READING_ORDER = [0, 3, 1, 2]; // the order moves are offered: up, left, right, down

function goalDfs(start, end) {
  const er = Math.floor(end / n), ec = end % n;
  const visited = new Uint8Array(n * n), stack = [start];
  visited[start] = 1;
  let steps = 0;
  while (stack[stack.length - 1] !== end && steps < LIMIT) {
    const cell = stack[stack.length - 1], r = Math.floor(cell / n), c = cell % n;
    let best = -1, bestDist = Infinity;
    for (const d of READING_ORDER) {
      if (!open(r, c, d)) continue;
      const rr = r + DIRS[d][0], cc = c + DIRS[d][1];
      const far = Math.abs(rr - er) + Math.abs(cc - ec);
      if (!visited[rr * n + cc] && far < bestDist) { best = rr * n + cc; bestDist = far; }
    }
    if (best >= 0) { visited[best] = 1; stack.push(best); } else stack.pop();
    steps++;
  }
  return steps;
}

function follower(start, end, hand) { // hand: 3 = left (turn counter-clockwise first), 1 = right
  let cell = start, facing = 0, steps = 0;
  while (cell !== end && steps < LIMIT) {
    const r = Math.floor(cell / n), c = cell % n;
    for (const turn of [hand, 0, 4 - hand, 2]) {
      const d = (facing + turn) % 4;
      if (open(r, c, d)) { facing = d; cell = (r + DIRS[d][0]) * n + c + DIRS[d][1]; break; }
    }
    steps++;
  }
  return steps;
}

carve();
let a = 0, dist = distances(0);
for (let i = 0; i < n * n; i++) if (dist[i] > dist[a]) a = i;
dist = distances(a);
let b = a;
for (let i = 0; i < n * n; i++) if (dist[i] > dist[b]) b = i;
const candidates = [[a, b], [b, a]];
for (let tries = 0; candidates.length < 82 && tries < 10000; tries++) {
  const s = Math.floor(random() * n * n), e = Math.floor(random() * n * n);
  if (s !== e && distances(s)[e] >= n) candidates.push([s, e]);
}
let best = candidates[0], bestScore = -1;
for (const [s, e] of candidates) {
  const score = Math.min(goalDfs(s, e), follower(s, e, 3), follower(s, e, 1));
  if (score > bestScore) { best = [s, e]; bestScore = score; }
}
const cell = (x) => `${Math.floor(x / n)} ${x % n}`;
process.stdout.write(`${n}\n${cell(best[0])}\n${cell(best[1])}\n${h.join("")}\n${v.join("")}\n`);
