"""What the tournament asks the core to run, and how the rules read the outcome.

- An architect is run once per (size, seed) with ``size seed`` on standard input
  (one line) and as two arguments. Anything but a valid maze of that size -- a
  crash, a limit, garbage, a wrong size -- forfeits the maze; the reason is kept.
- A solver answers one state per step, in its own mode (per step: a process per
  state; persistent: one process per maze). A step it fails (a crash, a limit,
  no answer) is a failed step of the match (:mod:`.match`).

Nothing here starts a process: the runs go through the :class:`Grader` the core
gives (:mod:`verify.grading`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from verify.contests.contract import BatchTask, Grader
from verify.contests.maze.model import CONTEST_SIZES, MAX_MAZE_BYTES, Maze, MazeFormatError, parse_maze
from verify.runner import Limits, Program
from verify.verdict import Status, Verdict

OUTPUT_KEPT = 300
"""Bytes of a forfeited architect's output kept for the log."""


@dataclass(frozen=True)
class MazeLimits:
    """Limits of the tournament's runs (see docs/maze.md)."""

    architect: Limits = field(default_factory=lambda: Limits(
        wall_time=10.0, cpu_time=10.0, memory=512 << 20, output=1 << 20))
    step_timeout: float = 2.0          # seconds of wall time per step (both modes)
    step_memory: int = 512 << 20
    step_output: int = 64 << 10        # bytes a step may print (per-step) / longest line (persistent)
    session_time: float = 900.0        # lifetime of one persistent process (then it is restarted)
    sizes: range = CONTEST_SIZES       # sizes an architect may be asked for

    @property
    def step(self) -> Limits:
        return Limits(wall_time=self.step_timeout, cpu_time=self.step_timeout,
                      memory=self.step_memory, output=self.step_output)

    @property
    def session(self) -> Limits:
        return Limits(wall_time=self.session_time, cpu_time=self.session_time,
                      memory=self.step_memory, output=self.step_output)

    def solver(self, persistent: bool) -> Limits:
        """The limits of a solver's runs: each step's, or a persistent process's whole life."""
        return self.session if persistent else self.step


def solver_mode(persistent: bool) -> str:
    return "persistent" if persistent else "per-step"


class ArchitectJudge:
    """Reads an architect's output: a valid maze of the size asked for (at most MAX_MAZE_BYTES)."""

    def __init__(self, size: int, sizes: range):
        self.size, self.sizes = size, sizes
        self.output = bytearray()
        self.maze: Maze | None = None

    def feed(self, chunk: bytes) -> Verdict | None:
        self.output += chunk
        if len(self.output) > MAX_MAZE_BYTES:
            return Verdict.wrong(f"invalid maze: more than {MAX_MAZE_BYTES} bytes")
        return None

    def finish(self) -> Verdict:
        try:
            maze = parse_maze(bytes(self.output), self.sizes, expected_size=self.size)
        except MazeFormatError as error:
            return Verdict.wrong(f"invalid maze: {str(error).removeprefix('maze: ')}")
        path = maze.shortest_path()
        assert path is not None, "parse_maze refuses a maze whose end cannot be reached"
        self.maze = maze
        return Verdict.accept(f"valid {maze.size}x{maze.size} maze: {maze.wall_count} walls, shortest path "
                              f"{len(path) - 1} steps", walls=maze.wall_count, manhattan=maze.manhattan,
                              shortest_path=len(path) - 1)


def architect_task(program: Program, size: int, seed: int, sizes: range,
                   limits: Limits | None) -> tuple[BatchTask, ArchitectJudge]:
    """The run that asks ``program`` for the maze (size, seed), and the judge that will hold it."""
    judge = ArchitectJudge(size, sizes)
    task = BatchTask(f"architect {size}x{size} seed {seed}", program, f"{size} {seed}\n".encode(),
                     lambda: judge, (str(size), str(seed)), limits, strict_exit=True)
    return task, judge


@dataclass
class BuiltMaze:
    """What an architect produced for one (size, seed): a maze, or a forfeit with its reason."""

    size: int
    seed: int
    maze: Maze | None
    forfeit: str | None = None
    wall_time: float = 0.0
    output: str = ""                   # what it printed (kept short), for the log
    status: Status = Status.ACCEPTED   # the forfeit as a shared verdict status

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"type": "architect", "size": self.size, "seed": self.seed,
                                  "wall_time": round(self.wall_time, 4)}
        if self.maze is not None:
            record["maze"] = self.maze.to_text()
        else:
            record["forfeit"] = self.forfeit
            record["status"] = self.status.value
            record["output"] = self.output
        return record

    @classmethod
    def from_json(cls, record: dict[str, Any], sizes: range = CONTEST_SIZES) -> BuiltMaze:
        maze = parse_maze(record["maze"], sizes) if "maze" in record else None
        return cls(record["size"], record["seed"], maze, record.get("forfeit"), record.get("wall_time", 0.0),
                   record.get("output", ""), Status(record.get("status", Status.ACCEPTED.value)))


def build_maze(grader: Grader, program: Program, size: int, seed: int,
               limits: MazeLimits = MazeLimits()) -> BuiltMaze:
    """Ask an architect for one maze; never raises for the entry's faults."""
    task, judge = architect_task(program, size, seed, limits.sizes, limits.architect)
    verdict, wall_time = grader.run_batch(task)
    if judge.maze is not None and verdict.accepted:
        return BuiltMaze(size, seed, judge.maze, None, wall_time)
    output = bytes(judge.output[:OUTPUT_KEPT]).decode("ascii", "replace")
    return BuiltMaze(size, seed, None, verdict.summary(), wall_time, output, verdict.status)
