"""``verify check`` for a maze entry: a smoke test of each role it declares.

- architect: asked for the contest's smallest and largest mazes (15 and 50,
  seed 1); each must be valid and of that size;
- solver: walks the reference 15x15 maze (``generate_maze(15, 1)``) in its own
  mode; it must arrive within the step limit (size^3).

The tournament (``verify koth maze``) is what ranks entries; this only says
whether an entry works at all, with the shared verdicts. Pure: these are the
tasks the core runs.
"""
from __future__ import annotations

from typing import Any

from verify.contests.contract import Ask, InteractiveTask, Task
from verify.contests.maze.generate import generate_maze
from verify.contests.maze.match import Match
from verify.contests.maze.play import MazeLimits, architect_task, solver_mode
from verify.contests.maze.roles import MazeRoles
from verify.verdict import Verdict

ARCHITECT_SIZES = (15, 50)
CHECK_SEED = 1
SOLVER_MAZE = (15, 1)


def solver_walk(persistent: bool) -> Any:
    """The reference walk as a match: ``play(ask)`` gives the verdict of the solver's walk."""
    def play(ask: Ask) -> Verdict:
        failures: list[dict[str, Any]] = []

        def record(item: dict[str, Any]) -> None:
            if item.get("failure") and not failures:
                failures.append(item)

        result = Match(generate_maze(*SOLVER_MAZE)).play(ask, record)
        stats: dict[str, Any] = {"steps": result.steps, "failed_steps": result.failed_steps,
                 "solver_score": round(result.solver_score, 4), "mode": solver_mode(persistent)}
        if result.arrived:
            return Verdict.accept(f"arrived in {result.steps} steps ({result.failed_steps} failed)", **stats)
        first = f"; first failed step {failures[0]['n']}: {failures[0]['failure']}" if failures else ""
        return Verdict.wrong(f"did not arrive: {result.ended} after {result.steps_taken} steps{first}", **stats)
    return play


def entry_tasks(roles: MazeRoles, limits: MazeLimits = MazeLimits()) -> list[Task]:
    """The architect's runs (under the check's limits) and the solver's walk."""
    tasks: list[Task] = []
    if roles.architect is not None:
        for size in ARCHITECT_SIZES:
            task, _ = architect_task(roles.architect, size, CHECK_SEED, limits.sizes, None)
            tasks.append(task)
    if roles.solver is not None:
        size, seed = SOLVER_MAZE
        tasks.append(InteractiveTask(f"solver on the reference {size}x{size} maze (seed {seed})", roles.solver,
                                     solver_walk(roles.persistent), roles.persistent,
                                     limits.solver(roles.persistent), limits.step_timeout))
    return tasks
