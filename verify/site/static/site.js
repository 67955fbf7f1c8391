// The replay controls: play/pause, speed, step forward/back, a scrubber, keys.
// Replay data comes from the page's JSON block; everything reaches the screen through
// textContent and class names, never as HTML. Each contest's script (appended to this one
// when the site is written) registers its replay in `replays` under its page's data-kind.
"use strict";

const replays = {};

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

document.addEventListener("DOMContentLoaded", () => {
  const block = document.getElementById("replay-data");
  const view = document.querySelector(".replay[data-kind]");
  if (!block || !view || !Object.hasOwn(replays, view.dataset.kind)) return;
  replays[view.dataset.kind](JSON.parse(block.textContent));
});
