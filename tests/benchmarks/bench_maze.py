"""Maze matches and fog benchmark. Prints figures and ratios; asserts nothing.

    python3 tests/benchmarks/bench_maze.py [--steps 4000] [--spawns 200]

1. Persistent mode: steps per second of the full match driver (fog view, the
   runner's Session in its sandbox, answer parsing, JSON log written to a file)
   against a raw pipe round trip to the same trivial C program (the
   first-move solver, run directly, same state bytes). Target: >= 1/2 the raw rate.
2. Per-step mode: seconds per step of the match driver (a sandboxed process per
   step through run_program) against a bare spawn of the same program
   (subprocess.run, no sandbox). Target: within 20 %.
3. One fog view on a 50x50 maze: reveal a new cell + build the 7-line state,
   and a revisit (nothing new), against rebuilding the whole text each step.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from verify.contests.maze.fog import FogOfWar  # noqa: E402
from verify.contests.maze.match import Match  # noqa: E402
from verify.contests.maze.matchlog import LogWriter  # noqa: E402
from verify.contests.maze.model import ANY_SIZE, Maze, format_cell  # noqa: E402
from verify.contests.maze.play import MazeLimits  # noqa: E402
from verify.grading import LocalRunner  # noqa: E402
from verify.grading.interactive import asker  # noqa: E402
from verify.runner import Limits, Program, prepare, run_program  # noqa: E402

FIRST_MOVE = Program("c", ROOT / "tests" / "fixtures" / "maze" / "first-move" / "first_move.c")
LIMITS = MazeLimits(step_timeout=5.0, sizes=ANY_SIZE)
RUNNER = LocalRunner()      # the isolation the environment's settings ask for


def persistent_solver(program, limits):
    return asker(RUNNER, program, True, limits.solver(True), limits.step_timeout)


def per_step_solver(program, limits):
    return asker(RUNNER, program, False, limits.solver(False), limits.step_timeout)


def cycling_maze(size: int) -> Maze:
    """No walls; the first offered move from (0,1) is (0,0) and back: the first-move
    solver walks to and fro until the step limit, the state stays the full size."""
    return Maze(size, (0, 1), (size - 1, size - 1), "0" * size * (size - 1), "0" * size * (size - 1))


def binary() -> list[str]:
    prepared = prepare(FIRST_MOVE, isolation=RUNNER.resolved)
    return prepared.argv((), Limits())


def persistent(steps: int, rounds: int) -> None:
    size = round(steps ** (1 / 3)) + 1
    maze = cycling_maze(size)
    state = Match(maze).state()
    command = binary()
    print(f"persistent mode, {size}x{size} maze ({len(state)}-byte states), {steps} steps, {rounds} rounds "
          "(raw and match driver alternate; the machine is shared, so look at the median):")
    ratios = []
    for round_number in range(1, rounds + 1):
        raw = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        start = time.perf_counter()
        for _ in range(steps):
            raw.stdin.write(state)
            raw.stdout.readline()
        raw_time = time.perf_counter() - start
        raw.stdin.close()
        raw.wait()

        match = Match(maze, limit=steps)
        with tempfile.TemporaryDirectory() as folder, LogWriter(Path(folder) / "bench.jsonl") as log:
            with persistent_solver(FIRST_MOVE, LIMITS) as solver:
                solver(match.state())                      # start the session outside the timing
                in_exchange = 0.0

                def timed(state: bytes):
                    nonlocal in_exchange
                    begin = time.perf_counter()
                    reply = solver(state)
                    in_exchange += time.perf_counter() - begin
                    return reply

                start = time.perf_counter()
                result = match.play(timed, log, patience=0)
                ours = time.perf_counter() - start
                session = solver._session                  # the runner's exchange alone, same process
                start = time.perf_counter()
                for _ in range(steps):
                    session.exchange(state, LIMITS.step_timeout)
                exchange_only = time.perf_counter() - start
        assert result.steps_taken == steps and result.failed_steps == 0, result
        ratios.append(raw_time / ours)
        print(f"  round {round_number}: raw pipe (same C program, no sandbox) {steps / raw_time:8.0f} steps/s; "
              f"Session.exchange alone {steps / exchange_only:7.0f}/s; "
              f"match driver (fog + Session + parse + JSON log) {steps / ours:7.0f}/s; ratio {raw_time / ours:.2f}")
        print(f"           per step: raw {raw_time / steps * 1e6:.1f} us; exchange alone {exchange_only / steps * 1e6:.1f} us; "
              f"in the match driver: exchange {in_exchange / steps * 1e6:.1f} us + "
              f"the maze layer {(ours - in_exchange) / steps * 1e6:.1f} us")
    print(f"  median ratio match driver/raw: {statistics.median(ratios):.2f} (target >= 0.50)")


def per_step(spawns: int) -> None:
    maze = cycling_maze(15)
    state = Match(maze).state()
    command = binary()
    subprocess.run(command, input=state, capture_output=True, check=True)   # warm caches
    start = time.perf_counter()
    for _ in range(spawns):
        subprocess.run(command, input=state, capture_output=True, check=True)
    bare = (time.perf_counter() - start) / spawns

    start = time.perf_counter()
    for _ in range(spawns):
        run_program(FIRST_MOVE, stdin=state, limits=LIMITS.step, isolation=RUNNER.resolved)
    runner_only = (time.perf_counter() - start) / spawns

    match = Match(maze, limit=spawns)
    with per_step_solver(FIRST_MOVE, LIMITS) as solver:
        start = time.perf_counter()
        result = match.play(solver, patience=0)
        ours = (time.perf_counter() - start) / spawns
    assert result.steps_taken == spawns and result.failed_steps == 0, result
    print(f"per-step mode, 15x15 maze, {spawns} steps (one process each):")
    print(f"  bare spawn (subprocess.run, no sandbox): {bare * 1000:7.2f} ms/step")
    print(f"  run_program alone (sandbox + limits):    {runner_only * 1000:7.2f} ms/step")
    print(f"  match driver (fog + run_program + parse):  {ours * 1000:7.2f} ms/step")
    print(f"  match driver/bare: {ours / bare:.2f} (target <= 1.20); match driver/run_program: {ours / runner_only:.2f}")


def fog_cost(repeats: int = 20000) -> None:
    n = 50
    maze = cycling_maze(n)
    walk = [(r, c if r % 2 == 0 else n - 1 - c) for r in range(n) for c in range(n)]  # boustrophedon: all new
    fog = FogOfWar(maze)
    start = time.perf_counter()
    count = 0
    for cell in walk[1:]:
        fog.move_to(cell)
        fog.view()
        count += 1
    new_cell = (time.perf_counter() - start) / count

    start = time.perf_counter()
    for i in range(repeats):
        fog.move_to(walk[-1 - (i & 1)])
        fog.view()
    revisit = (time.perf_counter() - start) / repeats

    def full_rebuild() -> bytes:   # the naive way: the whole text from the wall strings each step
        h = "".join(maze.horizontal[i] if fog._buffer[fog._h + i] != 63 else "?" for i in range(n * (n - 1)))
        v = "".join(maze.vertical[i] if fog._buffer[fog._v + i] != 63 else "?" for i in range(n * (n - 1)))
        moves = ",".join(format_cell(m) for m in fog.valid_moves())
        return f"{n}\n0 1\n{n - 1} {n - 1}\n{h}\n{v}\n{format_cell(fog.position)}\n{moves}\n".encode()

    start = time.perf_counter()
    for _ in range(200):
        full_rebuild()
    naive = (time.perf_counter() - start) / 200
    print("fog view, 50x50 maze (4900-character wall strings):")
    print(f"  step onto a new cell (reveal <= 4 walls + 7-line state): {new_cell * 1e6:8.2f} us")
    print(f"  step onto a visited cell (nothing revealed):             {revisit * 1e6:8.2f} us")
    print(f"  naive full rebuild of the text, for comparison:         {naive * 1e6:8.2f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4000, help="steps in persistent mode")
    parser.add_argument("--spawns", type=int, default=200, help="steps in per-step mode")
    parser.add_argument("--rounds", type=int, default=3, help="repetitions of the persistent comparison")
    options = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")
    fog_cost()
    persistent(options.steps, options.rounds)
    per_step(options.spawns)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
