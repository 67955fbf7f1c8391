// ------------------------------------------------------------------ maze
// The maze replay (site.js's player and grid): the solver's steps, the walls, the fog.

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
replays.maze = mazeReplay;
