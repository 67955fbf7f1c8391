"""Maze inputs for ``verify fuzz``, and the steps that shrink one (pure).

- A solver walks mazes of every generator family (:mod:`.generate`) with start and
  end anywhere: the ends of the longest path, random cells, corners, the end on the
  border, the end next to the start. Its walk fails at the first failed step (a
  crash, a time limit, no answer, an answer that is not an offered move) or when it
  has not arrived within the step limit (size**3). A failing maze shrinks to smaller
  mazes of the same family (sizes from 2 up, start and end clamped into the smaller
  grid), then to the end or the start one step closer to the other.
- An architect is asked for mazes of sizes across the contest's range and seeds;
  each answer must be a valid maze of the asked size (whose end is reachable). A
  failure shrinks to smaller sizes (within the contest's range) and smaller seeds.
"""
from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from verify.contests.contract import Ask, BatchTask, Fuzzer, InteractiveTask, Task
from verify.contests.maze.generate import FAMILIES, family_walls, longest_path_ends
from verify.contests.maze.match import Match
from verify.contests.maze.model import (
    ANY_SIZE,
    CONTEST_SIZES,
    LINE_NAMES,
    Cell,
    Maze,
    MazeFormatError,
    parse_maze,
)
from verify.contests.maze.play import ArchitectJudge, MazeLimits, solver_mode
from verify.contests.maze.roles import MazeRoles
from verify.errors import InputError
from verify.verdict import Status, Verdict

PLACEMENTS = ("longest", "random", "corners", "border", "adjacent")
SHRINK_SEEDS = 2        # mazes tried for each smaller size


@dataclass(frozen=True)
class SolverInput:
    """A maze for a solver; ``family`` and ``seed`` say how its walls were made ("file": read)."""

    maze: Maze
    family: str = "file"
    seed: int = 0


@dataclass(frozen=True)
class ArchitectInput:
    size: int
    seed: int


@dataclass(frozen=True)
class MazeFuzzSettings:
    solver_sizes: range = range(15, 31)
    architect_sizes: range = CONTEST_SIZES
    limits: MazeLimits = field(default_factory=MazeLimits)

    @classmethod
    def for_size(cls, max_size: int | None, step_timeout: float | None = None) -> MazeFuzzSettings:
        limits = MazeLimits() if step_timeout is None else MazeLimits(step_timeout=step_timeout)
        if max_size is None:
            return cls(limits=limits)
        low = CONTEST_SIZES.start
        solver = range(low, max_size + 1) if max_size >= low else range(2, max_size + 1)
        architect = range(low, min(max(max_size, low), CONTEST_SIZES.stop - 1) + 1)
        return cls(solver, architect, limits)

    def describe(self, roles: list[str]) -> str:
        parts = []
        if "architect" in roles:
            parts.append(f"architects asked for sizes {_span(self.architect_sizes)}")
        if "solver" in roles:
            parts.append(f"solvers on {', '.join(FAMILIES)} mazes of sizes {_span(self.solver_sizes)} "
                         f"(step limit size^3, {self.limits.step_timeout:g} s a step)")
        return "; ".join(parts) + " (--max-size)"


def _span(sizes: range) -> str:
    return f"{sizes.start}..{sizes.stop - 1}"


# ---------------------------------------------------------------- generation

def _place(rng: random.Random, walls: Maze, placement: str) -> tuple[Cell, Cell]:
    n = walls.size
    cells = [(r, c) for r in range(n) for c in range(n)]
    if placement == "longest":
        start, end = longest_path_ends(walls)
        return (start, end) if rng.random() < 0.5 else (end, start)
    if placement == "corners":
        start, end = rng.sample([(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)], 2)
        return start, end
    start = rng.choice(cells)
    if placement == "border":
        choices = [cell for cell in cells if (n - 1 in cell or 0 in cell) and cell != start]
    elif placement == "adjacent":
        choices = [cell for cell in cells if abs(cell[0] - start[0]) + abs(cell[1] - start[1]) == 1]
    else:
        choices = [cell for cell in cells if cell != start]
    return start, rng.choice(choices)


def solver_input(family: str, size: int, seed: int, start: Cell, end: Cell) -> SolverInput:
    horizontal, vertical = family_walls(family, size, seed)
    return SolverInput(Maze(size, start, end, horizontal, vertical), family, seed)


def random_solver_input(rng: random.Random, sizes: range) -> SolverInput:
    family = rng.choice(FAMILIES)
    size, seed = rng.choice(sizes), rng.randrange(1 << 20)
    walls = solver_input(family, size, seed, (0, 0), (0, 1)).maze
    start, end = _place(rng, walls, rng.choice(PLACEMENTS))
    return solver_input(family, size, seed, start, end)


def random_input(rng: random.Random, settings: MazeFuzzSettings, roles: MazeRoles) -> SolverInput | ArchitectInput:
    """An input for one of the entry's roles (chosen at random when it has both)."""
    role = rng.choice([r for r in ("architect", "solver") if getattr(roles, r) is not None])
    if role == "architect":
        return ArchitectInput(rng.choice(settings.architect_sizes), rng.randrange(10_000))
    return random_solver_input(rng, settings.solver_sizes)


# ---------------------------------------------------------------- shrinking

def _clamp(cell: Cell, size: int) -> Cell:
    return (min(cell[0], size - 1), min(cell[1], size - 1))


def _closer(maze: Maze, mover: Cell, other: Cell) -> Cell | None:
    path = maze.shortest_path(mover, other)
    return path[1] if path is not None and len(path) > 2 else None


def shrink_steps(value: SolverInput | ArchitectInput, settings: MazeFuzzSettings) -> Iterator[Any]:
    if isinstance(value, ArchitectInput):
        for size in range(settings.architect_sizes.start, value.size):
            yield ArchitectInput(size, value.seed)
        for seed in sorted({0, 1, value.seed // 2} - {value.seed}):
            if seed < value.seed:
                yield ArchitectInput(value.size, seed)
        return
    maze = value.maze
    if value.family in FAMILIES:
        for size in range(2, maze.size):
            start, end = _clamp(maze.start, size), _clamp(maze.end, size)
            if start != end:
                for seed in dict.fromkeys((value.seed, *range(SHRINK_SEEDS))):
                    yield solver_input(value.family, size, seed, start, end)
    nearer_end = _closer(maze, maze.end, maze.start)
    if nearer_end is not None:
        yield SolverInput(Maze(maze.size, maze.start, nearer_end, maze.horizontal, maze.vertical), value.family,
                          value.seed)
    nearer_start = _closer(maze, maze.start, maze.end)
    if nearer_start is not None:
        yield SolverInput(Maze(maze.size, nearer_start, maze.end, maze.horizontal, maze.vertical), value.family,
                          value.seed)


def size(value: SolverInput | ArchitectInput) -> dict[str, int]:
    if isinstance(value, ArchitectInput):
        return {"size": value.size, "seed": value.seed}
    path = value.maze.shortest_path() or []
    return {"size": value.maze.size, "shortest path": max(0, len(path) - 1)}


# ---------------------------------------------------------------- runs and verdicts

class ClassifyingArchitectJudge(ArchitectJudge):
    """The contest's architect judge; a rejection also names the maze line at fault
    (``stats["problem"]``): the failure class a shrink keeps."""

    def finish(self) -> Verdict:
        verdict = super().finish()
        if verdict.status is Status.WRONG and "problem" not in verdict.stats:
            verdict.stats["problem"] = self._problem()
        return verdict

    def _problem(self) -> str:
        try:
            parse_maze(bytes(self.output), self.sizes, expected_size=self.size)
        except MazeFormatError as error:
            if error.line is not None:
                return f"bad {LINE_NAMES[error.line - 1]}"
            if error.problem.startswith("the end"):
                return "unreachable end"
            return "bad line count"
        return "too big"


def solver_walk(maze: Maze, persistent: bool) -> Any:
    """The walk as a match that ends at the first failed step: ``play(ask)``."""
    def play(ask: Ask) -> Verdict:
        match = Match(maze)
        while not match.over:
            here = match.position
            step = match.apply(ask(match.state()))
            if step.failure:
                return Verdict.wrong(f"step {step.n} at ({here[0]},{here[1]}): {step.failure}",
                                     failure=_step_kind(step.failure), steps=step.n, mode=solver_mode(persistent))
        if match.arrived:
            return Verdict.accept(f"arrived in {match.steps} steps", steps=match.steps)
        return Verdict.wrong(f"did not arrive within the step limit ({match.limit} steps)",
                             failure="step limit", steps=match.steps)
    return play


def _step_kind(failure: str) -> str:
    if failure.startswith("answer "):
        return "invalid answer"
    for status in Status:
        if failure.startswith(status.value):
            return status.value
    return re.split(r"[:(]", failure, maxsplit=1)[0].strip()


def task_for(value: SolverInput | ArchitectInput, roles: MazeRoles, settings: MazeFuzzSettings) -> Task:
    limits = settings.limits
    if isinstance(value, ArchitectInput):
        assert roles.architect is not None
        size, sizes = value.size, settings.architect_sizes
        return BatchTask(f"architect {value.size}x{value.size} seed {value.seed}", roles.architect,
                         f"{value.size} {value.seed}\n".encode(), lambda: ClassifyingArchitectJudge(size, sizes),
                         (str(value.size), str(value.seed)), limits.architect, strict_exit=True)
    assert roles.solver is not None
    return InteractiveTask(f"solver on a {value.maze.size}x{value.maze.size} {value.family} maze", roles.solver,
                           solver_walk(value.maze, roles.persistent), roles.persistent,
                           limits.solver(roles.persistent), limits.step_timeout)


def failure_kind(verdict: Verdict) -> str:
    if verdict.status is Status.WRONG:
        detail = verdict.stats.get("failure") or verdict.stats.get("problem")
        return f"{verdict.status}: {detail}" if detail else str(verdict.status)
    return str(verdict.status)


def show(value: SolverInput | ArchitectInput) -> str:
    if isinstance(value, ArchitectInput):
        return f"architect asked for size {value.size}, seed {value.seed}"
    from verify.contests.maze.render import draw
    maze = value.maze
    return f"{value.family} maze, start ({maze.start[0]},{maze.start[1]}), end ({maze.end[0]},{maze.end[1]}):\n" \
           f"{maze.to_text()}{draw(maze)}"


def file_text(value: SolverInput | ArchitectInput) -> str:
    if isinstance(value, ArchitectInput):
        return f"{value.size} {value.seed}\n"
    return value.maze.to_text()


def parse(data: bytes, source: str, roles: MazeRoles) -> SolverInput | ArchitectInput:
    """A saved input: ``size seed`` for an architect, a maze file for a solver."""
    words = data.split()
    if len(words) == 2 and all(w.isdigit() for w in words):
        if roles.architect is None:
            raise InputError(f"{source}: an architect's input, and the entry has no architect")
        return ArchitectInput(int(words[0]), int(words[1]))
    if roles.solver is None:
        raise InputError(f"{source}: a maze for a solver, and the entry has no solver")
    try:
        return SolverInput(parse_maze(data, ANY_SIZE))
    except MazeFormatError as error:
        raise InputError(f"{source}: {error}") from None


class MazeFuzzer(Fuzzer[None]):
    """Mazes for an entry's solver and sizes and seeds for its architect (each input is for one of them)."""

    def __init__(self, roles: MazeRoles, max_size: int | None, step_timeout: float | None):
        self.roles = roles
        self.settings = MazeFuzzSettings.for_size(max_size, step_timeout)
        names = [name for name, program in (("architect", roles.architect), ("solver", roles.solver))
                 if program is not None]
        self.subject = " and ".join(names)
        self.budget = self.settings.describe(names)

    def generate(self, rng: random.Random) -> SolverInput | ArchitectInput:
        return random_input(rng, self.settings, self.roles)

    def shrink_steps(self, value: SolverInput | ArchitectInput) -> Iterator[Any]:
        return shrink_steps(value, self.settings)

    def work(self, value: SolverInput | ArchitectInput, name: str) -> Task:
        return replace(task_for(value, self.roles, self.settings), name=name)

    def failure_kind(self, verdict: Verdict) -> str:
        return failure_kind(verdict)

    def show(self, value: SolverInput | ArchitectInput) -> str:
        return show(value)

    def file_text(self, value: SolverInput | ArchitectInput) -> str:
        return file_text(value)

    def parse(self, data: bytes, source: str) -> SolverInput | ArchitectInput:
        return parse(data, source, self.roles)

    def size(self, value: SolverInput | ArchitectInput) -> dict[str, int]:
        return size(value)
