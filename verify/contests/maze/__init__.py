"""Inception maze (King of the Hill): architects build mazes, solvers walk them in fog.

Rooms: ``model`` (maze, format, distances), ``fog`` (the solver's view),
``render`` (drawings), ``match`` (one walk, scores), ``roles`` (the entry's
``[maze.architect]`` / ``[maze.solver]`` tables), ``play`` (what the tournament
asks the core to run), ``matchlog`` (JSON-lines logs and their replay),
``tournament`` (every architect against every solver, leaderboards), ``check``
(the tasks of ``verify check`` for a maze entry), ``generate`` (a reference maze),
``report`` (leaderboards as tables), ``cli`` (``verify koth maze``, ``verify maze show``,
``verify gen maze``).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from verify.contests.contract import Contest, FuzzBudget, Fuzzer, Scoring, Task
from verify.contests.maze.check import entry_tasks
from verify.contests.maze.roles import MazeRoles, parse_roles
from verify.runner import Program


class MazeContest(Contest[MazeRoles, None]):
    name = "maze"
    title = "Inception maze"
    scoring = Scoring.TOURNAMENT
    commands = {"gen": "verify.contests.maze.cli:gen_maze", "": "verify.contests.maze.cli:maze_group"}
    presenter = "verify.contests.maze.presenter:PRESENTER"
    tournament = "verify.contests.maze.tournament:TOURNAMENT"

    def parse_options(self, entry: str, table: dict[str, Any], folder: Path) -> MazeRoles:
        return parse_roles(entry, table, folder)

    def entry_tasks(self, options: MazeRoles) -> Sequence[Task]:
        """``verify check``: each declared role works (see ``check.py``)."""
        return entry_tasks(options)

    def programs(self, options: MazeRoles) -> Iterator[Program]:
        return iter([p for p in (options.architect, options.solver) if p is not None])

    def fuzzer(self, options: MazeRoles, budget: FuzzBudget) -> Fuzzer[None]:
        from verify.contests.maze.fuzzing import MazeFuzzer  # the generators only when fuzzing
        return MazeFuzzer(options, budget.max_size, budget.step_timeout)


CONTEST = MazeContest()
