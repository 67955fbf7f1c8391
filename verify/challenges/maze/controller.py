"""Running architects and solvers: a thin adapter over :mod:`verify.runner`.

- An architect is run once per (size, seed) with ``size seed`` on standard
  input (one line) and as two arguments. Anything but a valid maze of that
  size -- a crash, a limit, garbage, a wrong size -- forfeits the maze; the
  reason is kept.
- A solver answers one state per step. Per-step mode (the contest protocol):
  a new process per step, the answer is the first line it prints, and it must
  exit with code 0. Persistent mode (``persistent = true``): one process per
  maze reads state after state and answers one line each; if it crashes,
  times out or closes its output, that step fails and a fresh process is
  started for the next state.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from verify.challenges.maze.match import Reply
from verify.challenges.maze.model import CONTEST_SIZES, Maze, MazeFormatError, parse_maze
from verify.errors import VerifyError
from verify.runner import CompileError, Limits, Program, RunResult, Session, SessionError, run_program
from verify.verdict import Status


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


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return f": {lines[-1][:100]}" if lines else ""


def run_failure(result: RunResult, timeout: float) -> str | None:
    """Why a finished run does not count (a limit, a crash), or None if it exited cleanly."""
    if result.limit == "time":
        return f"timeout ({timeout:g} s)"
    if result.limit:
        return f"{result.limit} limit"
    if result.signal is not None:
        return f"crash (signal {result.signal}){_last_line(result.stderr_tail)}"
    if result.exit_code != 0:
        return f"crash (exit code {result.exit_code}){_last_line(result.stderr_tail)}"
    return None


@dataclass
class BuiltMaze:
    """What an architect produced for one (size, seed): a maze, or a forfeit with its reason."""

    size: int
    seed: int
    maze: Maze | None
    forfeit: str | None = None
    wall_time: float = 0.0
    output: str = ""                   # what it printed (kept short), for the log
    status: Status = Status.ACCEPTED   # the forfeit as a shared verdict status (for `verify check`)

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"type": "architect", "size": self.size, "seed": self.seed,
                                  "wall_time": round(self.wall_time, 4)}
        if self.maze is not None:
            record["maze"] = self.maze.to_text()
        else:
            record["forfeit"] = self.forfeit
            record["output"] = self.output
        return record


def build_maze(program: Program, size: int, seed: int, limits: MazeLimits = MazeLimits()) -> BuiltMaze:
    """Run an architect for one maze; never raises for the entry's faults."""
    request = f"{size} {seed}"
    try:
        result = run_program(program, stdin=f"{request}\n".encode(), args=(str(size), str(seed)),
                             limits=limits.architect)
    except CompileError as error:
        return BuiltMaze(size, seed, None, f"could not run: {error}", status=Status.COMPILE_ERROR)
    except VerifyError as error:   # a missing interpreter: not the entry's fault
        return BuiltMaze(size, seed, None, f"could not run: {error}", status=Status.JUDGE_ERROR)
    output = (result.stdout or b"")[:300].decode("ascii", "replace")
    failure = run_failure(result, limits.architect.wall_time)
    if failure:
        status = {"time": Status.TIME_LIMIT, "memory": Status.MEMORY_LIMIT,
                  "output": Status.OUTPUT_LIMIT}.get(result.limit or "", Status.RUNTIME_ERROR)
        return BuiltMaze(size, seed, None, failure, result.wall_time, output, status)
    try:
        maze = parse_maze(result.stdout or b"", limits.sizes, expected_size=size)
    except MazeFormatError as error:
        return BuiltMaze(size, seed, None, f"invalid maze: {str(error).removeprefix('maze: ')}",
                         result.wall_time, output, Status.WRONG)
    return BuiltMaze(size, seed, maze, None, result.wall_time)


class PerStepSolver:
    """The contest protocol: a new process per step, given the state on standard input."""

    mode = "per-step"

    def __init__(self, program: Program, limits: MazeLimits = MazeLimits()):
        self.program = program
        self.limits = limits
        self._step_limits = limits.step

    def __enter__(self) -> "PerStepSolver":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def __call__(self, state: bytes) -> Reply:
        try:
            result = run_program(self.program, stdin=state, limits=self._step_limits)
        except VerifyError as error:
            return Reply(failure=f"could not run: {error}")
        failure = run_failure(result, self.limits.step_timeout)
        if failure:
            return Reply(failure=failure)
        output = result.stdout or b""
        if not output.strip():
            return Reply(failure="no answer (empty output)")
        return Reply(output.split(b"\n", 1)[0].decode("ascii", "replace"))


class PersistentSolver:
    """One process per maze, restarted after a crash, a timeout or the end of its output."""

    mode = "persistent"

    def __init__(self, program: Program, limits: MazeLimits = MazeLimits()):
        self.program = program
        self.limits = limits
        self._session: Session | None = None
        self.restarts = 0

    def __enter__(self) -> "PersistentSolver":
        return self

    def __exit__(self, *exc: object) -> None:
        self._close()

    def _close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def __call__(self, state: bytes) -> Reply:
        if self._session is None:
            try:
                self._session = Session(self.program, self.limits.session).__enter__()
            except VerifyError as error:
                return Reply(failure=f"could not run: {error}")
        try:
            line = self._session.exchange(state, self.limits.step_timeout)
        except SessionError as error:
            self._close()
            self.restarts += 1
            reason = "timeout" if error.reason == "timeout" else error.reason
            return Reply(failure=f"{reason}: {error}{_last_line(error.stderr_tail)}")
        return Reply(line.decode("ascii", "replace"))


def solver_driver(program: Program, persistent: bool, limits: MazeLimits = MazeLimits()):
    return (PersistentSolver if persistent else PerStepSolver)(program, limits)
