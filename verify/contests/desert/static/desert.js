// ------------------------------------------------------------------ desert
// The desert replay (site.js's player and grid): the traveller, the water, the attempts.

function desertReplay(data) {
  if (!data.attempts.length) return;
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
replays.desert = desertReplay;
