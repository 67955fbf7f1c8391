"""``verify check`` for a maze entry: a smoke test of each role it declares.

- architect: asked for the contest's smallest and largest mazes (15 and 50,
  seed 1); each must be valid and of that size.
- solver: walks the reference 15x15 maze (``generate_maze(15, 1)``) in its own
  mode; it must arrive within the step limit (size^3).

The tournament (``verify koth maze``) is what ranks entries; this only says
whether an entry works at all, with the shared verdicts.
"""
from __future__ import annotations

import time
from typing import Any

from verify.challenges.maze.controller import MazeLimits, build_maze, solver_driver
from verify.challenges.maze.generate import generate_maze
from verify.challenges.maze.match import Match
from verify.verdict import Verdict

ARCHITECT_SIZES = (15, 50)
CHECK_SEED = 1
SOLVER_MAZE = (15, 1)


def check_entry(entry: Any, limits: Any) -> list:
    from verify.judging import CaseResult

    roles = entry.options
    maze_limits = MazeLimits(architect=limits)
    results = []
    if roles.architect is not None:
        for size in ARCHITECT_SIZES:
            built = build_maze(roles.architect, size, CHECK_SEED, maze_limits)
            if built.maze is not None:
                maze = built.maze
                path = maze.shortest_path()
                verdict = Verdict.accept(f"valid {size}x{size} maze: {maze.wall_count} walls, shortest path "
                                         f"{len(path) - 1} steps", walls=maze.wall_count,
                                         manhattan=maze.manhattan, shortest_path=len(path) - 1)
            else:
                verdict = Verdict(built.status, f"forfeit: {built.forfeit}")
            results.append(CaseResult(entry.label, f"architect {size}x{size} seed {CHECK_SEED}", verdict,
                                      time=built.wall_time))
    if roles.solver is not None:
        maze = generate_maze(*SOLVER_MAZE)
        failures: list[dict[str, Any]] = []

        def record(item: dict[str, Any]) -> None:
            if item.get("failure") and len(failures) < 1:
                failures.append(item)

        started = time.perf_counter()
        with solver_driver(roles.solver, roles.persistent, maze_limits) as driver:
            result = Match(maze).play(driver, record)
        stats = {"steps": result.steps, "failed_steps": result.failed_steps,
                 "solver_score": round(result.solver_score, 4), "mode": driver.mode}
        if result.arrived:
            verdict = Verdict.accept(f"arrived in {result.steps} steps ({result.failed_steps} failed)", **stats)
        else:
            first = f"; first failed step {failures[0]['n']}: {failures[0]['failure']}" if failures else ""
            verdict = Verdict.wrong(f"did not arrive: {result.ended} after {result.steps_taken} steps{first}",
                                    **stats)
        results.append(CaseResult(entry.label, f"solver on the reference {SOLVER_MAZE[0]}x{SOLVER_MAZE[0]} maze "
                                               f"(seed {SOLVER_MAZE[1]})", verdict,
                                  time=time.perf_counter() - started))
    return results
