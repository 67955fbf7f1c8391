// The replay controls: play/pause, speed, step forward/back, a scrubber, keys.
// Replay data comes from the page's JSON block; everything reaches the screen through
// textContent and class names, never as HTML.
"use strict";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function makePlayer(frames, show) {
  // frames(): how many positions (0 = the start); show(i): draw position i
  const scrubber = document.getElementById("scrubber");
  const play = document.getElementById("play");
  const speed = document.getElementById("speed");
  let index = 0, timer = null;
  function go(i) {
    index = Math.max(0, Math.min(frames() - 1, i));
    scrubber.max = String(Math.max(0, frames() - 1));
    scrubber.value = String(index);
    show(index);
  }
  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    play.textContent = "▶ play";
    play.setAttribute("aria-pressed", "false");
  }
  function start() {
    if (index >= frames() - 1) go(0);
    const rate = Number(speed.value);
    const perTick = Math.max(1, Math.round(rate / 50));
    timer = setInterval(() => {
      go(index + perTick);
      if (index >= frames() - 1) stop();
    }, Math.max(20, 1000 / rate));
    play.textContent = "❚❚ pause";
    play.setAttribute("aria-pressed", "true");
  }
  play.addEventListener("click", () => (timer === null ? start() : stop()));
  document.getElementById("step").addEventListener("click", () => { stop(); go(index + 1); });
  document.getElementById("back").addEventListener("click", () => { stop(); go(index - 1); });
  scrubber.addEventListener("input", () => { stop(); go(Number(scrubber.value)); });
  speed.addEventListener("change", () => { if (timer !== null) { stop(); start(); } });
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLSelectElement || event.altKey || event.ctrlKey || event.metaKey) return;
    const keys = {
      ArrowRight: () => { stop(); go(index + 1); }, ArrowLeft: () => { stop(); go(index - 1); },
      Home: () => { stop(); go(0); }, End: () => { stop(); go(frames() - 1); },
      " ": () => (timer === null ? start() : stop()),
      "+": () => { speed.selectedIndex = Math.min(speed.options.length - 1, speed.selectedIndex + 1); },
      "-": () => { speed.selectedIndex = Math.max(0, speed.selectedIndex - 1); },
    };
    if (event.target instanceof HTMLInputElement && event.target.type === "range" && event.key !== " ") return;
    const action = keys[event.key];
    if (action) { event.preventDefault(); action(); }
  });
  return { go, stop, reset: () => { stop(); go(0); } };
}

function makeGrid(table, height, width) {
  const cells = [];
  for (let r = 0; r < height; r++) {
    const row = table.insertRow();
    for (let c = 0; c < width; c++) {
      const cell = row.insertCell();
      cell.dataset.row = String(r);
      cell.dataset.col = String(c);
      cells.push(cell);
    }
  }
  return cells;
}

// ------------------------------------------------------------------ desert

function desertReplay(data) {
  const width = data.width, height = data.height, squares = width * height;
  const base = new Array(squares).fill(0);
  if (data.rows) data.rows.forEach((row, r) => [...row].forEach((ch, c) => {
    if (ch >= "1" && ch <= "9") base[r * width + c] = Number(ch);
  }));
  const startIndex = data.start[0] * width + data.start[1];
  const endIndex = data.end[0] * width + data.end[1];
  const table = document.getElementById("grid");
  const cells = table ? makeGrid(table, height, width) : [];
  const attemptSelect = document.getElementById("attempt");
  let attempt = data.attempts[0];

  // frame i of an attempt: 0 the start, then one per kept turn (sections in order)
  function frames() {
    return 1 + attempt.sections.reduce((sum, s) => sum + s.turns.length, 0);
  }
  function locate(i) {  // the section and how many of its turns are played at frame i
    let left = i;
    for (let k = 0; k < attempt.sections.length; k++) {
      const section = attempt.sections[k];
      if (left <= section.turns.length || k === attempt.sections.length - 1) return [k, Math.min(left, section.turns.length)];
      left -= section.turns.length;
    }
    return [0, 0];
  }
  function stateAt(i) {
    const [k, played] = locate(i);
    const section = attempt.sections[k];
    // a later run's state: one character a square (the water on it; "1" for visited)
    const water = section.state.water ? [...section.state.water].map(Number) : base.slice();
    const visited = new Set();
    [...section.state.visited].forEach((flag, index) => { if (flag === "1") visited.add(index); });
    visited.add(startIndex);
    let at = section.state.at, carried = section.state.carried;
    const route = [at[0] * width + at[1]];
    for (let t = 0; t < played; t++) {
      const turn = section.turns[t];
      at = [turn[0], turn[1]];
      carried = turn[2];
      if (turn.length > 3) water[turn[3]] = turn[5];
      visited.add(turn[0] * width + turn[1]);
      route.push(turn[0] * width + turn[1]);
    }
    const number = played === 0 ? section.first - 1 : section.first + played - 1;
    return { at, carried, water, visited, route: new Set(route), number, k, played };
  }
  function show(i) {
    const s = stateAt(i);
    document.getElementById("turn").textContent = String(s.number);
    document.getElementById("turns").textContent = String(attempt.turns);
    document.getElementById("position").textContent = `(${s.at[0]},${s.at[1]})`;
    document.getElementById("carried").textContent = String(s.carried);
    document.getElementById("water-meter").textContent = "[" + "=".repeat(s.carried) + "-".repeat(Math.max(0, 5 - s.carried)) + "]";
    const gap = document.getElementById("gap");
    const section = attempt.sections[s.k];
    gap.hidden = !(s.k > 0 && s.played === 1);   // the first turn after the turns not kept
    if (!gap.hidden) gap.textContent = `turns ${attempt.sections[s.k - 1].first + attempt.sections[s.k - 1].turns.length} to ${section.first - 1} are not shown`;
    const failure = attempt.failure;
    const last = i === frames() - 1;
    const ended = { dead: "✗ the traveller dies here", won: "✓ the traveller reaches E" }[attempt.outcome];
    document.getElementById("outcome").textContent = last && ended && s.number === attempt.turns ? ended : "";
    const failureBox = document.getElementById("failure");
    failureBox.hidden = !(failure && last);
    if (failure) failureBox.textContent = `✗ ${failure.message}`;
    const bad = failure && last && failure.square ? failure.square[0] * width + failure.square[1] : -1;
    const here = s.at[0] * width + s.at[1];
    cells.forEach((cell, index) => {
      let mark, kind;
      if (index === here) { mark = "@"; kind = "traveller"; }
      else if (index === startIndex) { mark = "S"; kind = "start"; }
      else if (index === endIndex) { mark = "E"; kind = "end"; }
      else if (s.water[index] > 0) { mark = String(s.water[index]); kind = "water"; }
      else if (s.visited.has(index)) { mark = "#"; kind = "visited"; }
      else { mark = "."; kind = "dry"; }
      if (index === bad) { mark = index === here ? "@!" : "!"; kind += " illegal"; }
      if (s.route.has(index) && index !== here) kind += " route";
      cell.className = `cell ${kind}`;
      cell.textContent = mark;
      cell.title = `(${Math.floor(index / width)},${index % width}) ${kind}`;
    });
  }
  const player = makePlayer(frames, show);
  attemptSelect.addEventListener("change", () => {
    attempt = data.attempts[Number(attemptSelect.value)];
    player.reset();
  });
  player.go(0);
}

// ------------------------------------------------------------------ maze

function mazeReplay(data) {
  const n = data.size;
  const table = document.getElementById("grid");
  const cells = makeGrid(table, n, n);
  const fog = document.getElementById("fog");
  const positions = [data.start].concat(data.steps.map((s) => [s[0], s[1]]));
  const firstSeen = new Array(n * n).fill(Infinity);   // the step a cell was first stood on
  positions.forEach((p, i) => { const k = p[0] * n + p[1]; if (firstSeen[k] === Infinity) firstSeen[k] = i; });
  const frames = () => positions.length;
  let current = 0;
  function known(a, b, step) {  // a wall between cells a and b is seen once either was visited
    return firstSeen[a] <= step || firstSeen[b] <= step;
  }
  function show(step) {
    current = step;
    const hidden = fog.checked;
    const here = positions[step];
    let failed = 0;
    const failedCells = new Set();
    for (let i = 0; i < step; i++) if (data.steps[i][2]) { failed++; failedCells.add(data.steps[i][0] * n + data.steps[i][1]); }
    document.getElementById("turn").textContent = String(step);
    document.getElementById("turns").textContent = String(positions.length - 1);
    document.getElementById("position").textContent = `(${here[0]},${here[1]})`;
    document.getElementById("failed").textContent = String(failed);
    const failureBox = document.getElementById("failure");
    const failure = step > 0 ? data.failures[String(step)] : undefined;
    failureBox.hidden = !failure;
    if (failure) failureBox.textContent = `✗ step ${step} failed: ${failure}`;
    cells.forEach((cell, k) => {
      const r = Math.floor(k / n), c = k % n;
      const classes = ["cell"];
      for (const [side, dr, dc] of [["s", 1, 0], ["e", 0, 1]]) {
        const rr = r + dr, cc = c + dc;
        if (rr >= n || cc >= n) continue;
        const wall = side === "s" ? data.horizontal[r * n + c] : data.vertical[r * (n - 1) + c];
        const seen = !hidden || known(k, rr * n + cc, step);
        if (!seen) classes.push(`unknown-${side}`);
        else if (wall === "1") classes.push(`wall-${side}`);
      }
      let mark = "";
      if (r === here[0] && c === here[1]) { mark = "@"; classes.push("traveller"); }
      else if (r === data.end[0] && c === data.end[1]) { mark = "E"; classes.push("end"); }
      else if (r === data.start[0] && c === data.start[1]) { mark = "S"; classes.push("start"); }
      else if (failedCells.has(k)) { mark = "x"; classes.push("failed"); }
      else if (firstSeen[k] <= step) { mark = "·"; classes.push("visited"); }
      cell.className = classes.join(" ");
      cell.textContent = mark;
    });
  }
  fog.addEventListener("change", () => show(current));
  makePlayer(frames, show).go(0);
}

document.addEventListener("DOMContentLoaded", () => {
  const block = document.getElementById("replay-data");
  if (!block) return;
  const data = JSON.parse(block.textContent);
  if (document.getElementById("desert") && data.attempts.length) desertReplay(data);
  if (document.getElementById("maze")) mazeReplay(data);
});
