"""King of the Hill: every architect against every solver, over sizes and seeds.

Each maze is built once (architect, size, seed) and given to every solver of
another entry (the spec: solvers walk "mazes made by other contestants'
architects"). Architect score = mean over all its (maze, solver) pairs, a
forfeited maze counting 0 against every solver; solver score = mean over the
mazes it walked (forfeited mazes excluded).

:class:`MazeTournament` is the contest's side of the core's driver
(:mod:`verify.pipeline.tournament`): two stages of plain-data jobs, every maze
(:class:`MazeJob`), then every walk of a maze that exists (:class:`MatchJob`), each
played over the grader and returning the JSON form of its result; the boards come
from :class:`TournamentResult`, whose matches are sorted by key, so the same seeds
give the same tables.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

from verify.contests.contract import (
    Board,
    Contestant,
    Grader,
    Matrix,
    Standing,
    Standings,
    Tournament,
    TournamentOption,
    TournamentPreset,
)
from verify.contests.maze.match import DEFAULT_PATIENCE, Match, MatchResult, step_limit
from verify.contests.maze.matchlog import LogWriter
from verify.contests.maze.model import CONTEST_SIZES, Maze
from verify.contests.maze.play import BuiltMaze, MazeLimits, build_maze, solver_mode
from verify.contests.maze.roles import MazeRoles
from verify.errors import VerifyError
from verify.runner import Program
from verify.sizes import NumbersError, int_list
from verify.verdict import Status


@dataclass
class MatchOutcome:
    architect: str
    solver: str
    size: int
    seed: int
    result: MatchResult
    log: Path | None = None

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"architect": self.architect, "solver": self.solver, "size": self.size,
                                  "seed": self.seed}
        record.update({k: v for k, v in self.result.to_json().items() if k != "type"})
        if self.log is not None:
            record["log"] = str(self.log)
        return record

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> MatchOutcome:
        result = MatchResult(record["steps"], record["arrived"], record["steps_taken"], record["failed_steps"],
                             record["architect_score"], record["solver_score"], record["ended"])
        log = Path(record["log"]) if record.get("log") is not None else None
        return cls(record["architect"], record["solver"], record["size"], record["seed"], result, log)


@dataclass
class TournamentResult:
    sizes: list[int]
    seeds: list[int]
    architects: list[str]
    solvers: list[str]
    mazes: dict[tuple[str, int, int], BuiltMaze]
    matches: list[MatchOutcome]

    def opponents(self, architect: str) -> list[str]:
        return [s for s in self.solvers if s != architect]

    def architect_board(self) -> list[Standing]:
        board = []
        for name in self.architects:
            scores, forfeits = [], 0
            for (arch, _size, _seed), built in self.mazes.items():
                if arch != name:
                    continue
                if built.maze is None:
                    forfeits += 1
                    scores += [0.0] * len(self.opponents(name))
            scores += [m.result.architect_score for m in self.matches if m.architect == name]
            board.append(Standing(name, fmean(scores) if scores else None, len(scores),
                                  {"forfeits": forfeits, "mazes": sum(1 for k in self.mazes if k[0] == name)}))
        return _ranked(board)

    def solver_board(self) -> list[Standing]:
        board = []
        for name in self.solvers:
            mine = [m for m in self.matches if m.solver == name]
            board.append(Standing(name, fmean(m.result.solver_score for m in mine) if mine else None, len(mine),
                                  {"arrived": sum(m.result.arrived for m in mine),
                                   "failed_steps": sum(m.result.failed_steps for m in mine)}))
        return _ranked(board)

    def matrix(self) -> dict[str, dict[str, dict[str, Any]]]:
        """architect -> solver -> mean scores of that pairing (forfeits count 0 for the architect)."""
        table: dict[str, dict[str, dict[str, Any]]] = {}
        for arch in self.architects:
            row = table.setdefault(arch, {})
            forfeits = sum(1 for k, b in self.mazes.items() if k[0] == arch and b.maze is None)
            for solver in self.opponents(arch):
                played = [m.result for m in self.matches if m.architect == arch and m.solver == solver]
                architect_scores = [r.architect_score for r in played] + [0.0] * forfeits
                row[solver] = {
                    "architect_score": fmean(architect_scores) if architect_scores else None,
                    "solver_score": fmean(r.solver_score for r in played) if played else None,
                    "mazes": len(played), "forfeits": forfeits,
                    "arrived": sum(r.arrived for r in played)}
        return table

    def to_json(self) -> dict[str, Any]:
        def standing(s: Standing) -> dict[str, Any]:
            return {"name": s.name, "score": s.score, "games": s.games, **s.detail}
        return {
            "sizes": self.sizes, "seeds": self.seeds,
            "architects": [standing(s) for s in self.architect_board()],
            "solvers": [standing(s) for s in self.solver_board()],
            "matrix": self.matrix(),
            "mazes": [{"architect": k[0], **{x: y for x, y in built.to_json().items() if x != "type"}}
                      for k, built in sorted(self.mazes.items())],
            "matches": [m.to_json() for m in self.matches],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], sizes: range = CONTEST_SIZES) -> TournamentResult:
        """The inverse of :meth:`to_json` (the boards and the matrix are computed again)."""
        mazes = {(m["architect"], m["size"], m["seed"]): BuiltMaze.from_json(m, sizes) for m in data["mazes"]}
        return cls(list(data["sizes"]), list(data["seeds"]), sorted(s["name"] for s in data["architects"]),
                   sorted(s["name"] for s in data["solvers"]), mazes,
                   [MatchOutcome.from_json(m) for m in data["matches"]])


CONTEST_RANGE = f"{CONTEST_SIZES.start}..{CONTEST_SIZES.stop - 1}"
CONTEST_SEEDS = "1..20"
"""The preset ``contest``'s seeds: what fits a day on 2 cores (docs/maze.md, "The contest preset")."""


def _ranked(board: list[Standing]) -> list[Standing]:
    return sorted(board, key=lambda s: (s.score is None, -(s.score or 0.0), s.name))


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _numbers(option: str, text: str) -> tuple[int, ...]:
    try:
        return tuple(int_list(option, text))
    except NumbersError as error:
        raise VerifyError(str(error)) from None


def size_range(text: str) -> range:
    """``LOW..HIGH`` (``--size-range``) as a range of sizes."""
    low, sep, high = text.partition("..")
    try:
        lo, hi = int(low), int(high)
    except ValueError:
        raise VerifyError(f"--size-range: expected LOW..HIGH, not {text!r}") from None
    if not sep or not 2 <= lo <= hi:
        raise VerifyError(f"--size-range: expected LOW..HIGH with 2 <= LOW <= HIGH, not {text!r}")
    return range(lo, hi + 1)


def _number(option: str, text: str, low: float, kind: type[float] | type[int]) -> float:
    try:
        value = kind(text)
    except ValueError:
        raise VerifyError(f"{option}: expected a number, not {text!r}") from None
    if value < low:
        raise VerifyError(f"{option}: {text} is below {low}")
    return value


@dataclass(frozen=True)
class MazeOptions:
    """What a maze tournament plays: its sizes and seeds, the runs' limits, the solvers' patience."""

    sizes: tuple[int, ...]
    seeds: tuple[int, ...]
    limits: MazeLimits = MazeLimits()
    patience: int = DEFAULT_PATIENCE

    def __post_init__(self) -> None:
        for size in self.sizes:
            if size not in self.limits.sizes:
                raise VerifyError(f"size {size} is outside {self.limits.sizes.start}..{self.limits.sizes.stop - 1}")


@dataclass(frozen=True)
class MazeJob:
    """One maze to ask an architect for (plain data: it may run on a cluster's worker)."""

    architect: str
    program: Program | None
    size: int
    seed: int
    limits: MazeLimits
    broken: str | None              # why the architect cannot run (it does not build): a forfeit


@dataclass(frozen=True)
class MatchJob:
    """One solver in one maze (plain data)."""

    maze_key: tuple[str, int, int]
    maze: Maze
    solver: Contestant[MazeRoles]
    limits: MazeLimits
    patience: int
    broken: str | None


def play_maze(grader: Grader, job: MazeJob, log_path: Path | None) -> dict[str, Any]:
    """The maze (or the forfeit), in its JSON form, logged where ``log_path`` says."""
    if job.broken is not None or job.program is None:
        built = BuiltMaze(job.size, job.seed, None, job.broken, status=Status.COMPILE_ERROR)
    else:
        built = build_maze(grader, job.program, job.size, job.seed, job.limits)
    record = built.to_json()
    with LogWriter(log_path) as log:
        log({"type": "architect", "architect": job.architect, **{k: v for k, v in record.items() if k != "type"}})
    return record


def play_match(grader: Grader, maze_key: tuple[str, int, int], maze: Maze, solver: Contestant[MazeRoles],
               limits: MazeLimits, log_path: Path | None, patience: int, broken: str | None = None) -> MatchOutcome:
    architect, size, seed = maze_key
    roles: MazeRoles = solver.options
    assert roles.solver is not None
    match = Match(maze)
    persistent = roles.persistent
    with LogWriter(log_path) as log:
        log({"type": "match", "architect": architect, "solver": solver.name, "size": size, "seed": seed,
             "mode": solver_mode(persistent), "step_limit": match.limit})
        log({"type": "maze", "text": maze.to_text()})
        if broken:
            log({"type": "event", "step": 0, "event": broken})
            result = match.result(broken)
            log(result.to_json())
        else:
            with grader.interactive(roles.solver, persistent, limits.solver(persistent),
                                    limits.step_timeout) as ask:
                result = match.play(ask, log, patience)
    return MatchOutcome(architect, solver.name, size, seed, result, log_path)


class MazeTournament(Tournament[MazeRoles, MazeOptions]):
    """Stage 0: every architect's mazes; stage 1: every other entry's solver in each maze built."""

    stages = 2
    options = (
        TournamentOption("--sizes", "Maze sizes: numbers and ranges, comma-separated (15,20..30:5).", "15,20"),
        TournamentOption("--seeds", "Seeds given to the architects: numbers and ranges (1..3).", "1,2"),
        TournamentOption("--step-timeout", "Seconds a solver may take per step.", "2.0"),
        TournamentOption("--patience", "Abandon a solver after this many failed steps in a row (0: never) "
                         f"[default: {DEFAULT_PATIENCE}]."),
        TournamentOption("--size-range", "Sizes allowed (the contest's 15..50; smaller for quick trials).",
                         CONTEST_RANGE),
    )

    presets = (
        TournamentPreset("contest", f"The contest's own sizes, {CONTEST_RANGE}, each with seeds {CONTEST_SEEDS} "
                         "(docs/maze.md: about a day on 2 cores with the bundled entries).",
                         {"sizes": CONTEST_RANGE, "seeds": CONTEST_SEEDS}),
    )

    def parse_options(self, values: Mapping[str, str | None]) -> MazeOptions:
        step_timeout = _number("--step-timeout", values.get("step_timeout") or "2.0", 0.01, float)
        patience = values.get("patience")
        limits = MazeLimits(step_timeout=step_timeout, sizes=size_range(values.get("size_range") or "15..50"))
        return MazeOptions(_numbers("--sizes", values.get("sizes") or ""),
                           _numbers("--seeds", values.get("seeds") or ""), limits,
                           DEFAULT_PATIENCE if patience is None else int(_number("--patience", patience, 0, int)))

    def schedule(self, stage: int, contestants: Sequence[Contestant[MazeRoles]], options: MazeOptions,
                 broken: Mapping[Program, str], earlier: Sequence[Sequence[Any]]) -> list[MazeJob] | list[MatchJob]:
        if stage == 0:
            return [MazeJob(c.name, c.options.architect, size, seed, options.limits,
                            _why_broken(broken, c.options.architect))
                    for c in _architects(contestants) for size in options.sizes for seed in options.seeds]
        mazes = _mazes(contestants, options, earlier[0])
        solvers = _solvers(contestants)
        return [MatchJob(key, built.maze, solver, options.limits, options.patience,
                         _why_broken(broken, solver.options.solver))
                for key, built in mazes.items() if built.maze is not None
                for solver in solvers if solver.name != key[0]]

    def play(self, grader: Grader, job: MazeJob | MatchJob, log: Path | None) -> dict[str, Any]:
        if isinstance(job, MazeJob):
            return play_maze(grader, job, log)
        return play_match(grader, job.maze_key, job.maze, job.solver, job.limits, log, job.patience,
                          job.broken).to_json()

    def programs(self, job: MazeJob | MatchJob) -> list[Program]:
        if job.broken is not None:
            return []
        program = job.program if isinstance(job, MazeJob) else job.solver.options.solver
        return [program] if program is not None else []

    def describe(self, job: MazeJob | MatchJob, result: dict[str, Any]) -> str:
        if isinstance(job, MazeJob):
            return (f"maze {job.architect} size {job.size} seed {job.seed}: "
                    + ("ok" if "maze" in result else f"forfeit: {result.get('forfeit')}"))
        architect, size, seed = job.maze_key
        return (f"{job.solver.name} in {architect}'s maze size {size} seed {seed}: "
                f"{result['ended']} ({result['steps']} steps)")

    def log_name(self, job: MazeJob | MatchJob) -> str:
        if isinstance(job, MazeJob):
            return f"mazes/{_safe(job.architect)}-{job.size}-{job.seed}.jsonl"
        architect, size, seed = job.maze_key
        return f"matches/{_safe(architect)}-{size}-{seed}--{_safe(job.solver.name)}.jsonl"

    def relogged(self, job: MazeJob | MatchJob, result: dict[str, Any], log: Path | None) -> dict[str, Any]:
        if isinstance(job, MazeJob):        # a maze's record names no log
            return result
        record = {key: value for key, value in result.items() if key != "log"}
        return record if log is None else {**record, "log": str(log)}

    def cost(self, job: MazeJob | MatchJob) -> float:
        # the longest walks first (bigger mazes); the mazes in their order
        return 0.0 if isinstance(job, MazeJob) else float(step_limit(job.maze_key[1]))

    def standings(self, contestants: Sequence[Contestant[MazeRoles]], options: MazeOptions,
                  results: Sequence[Sequence[Any]]) -> Standings:
        mazes = _mazes(contestants, options, results[0])
        matches = sorted((MatchOutcome.from_json(record) for record in results[1]),
                         key=lambda m: (m.architect, m.size, m.seed, m.solver))
        result = TournamentResult(list(options.sizes), list(options.seeds),
                                  [c.name for c in _architects(contestants)],
                                  [c.name for c in _solvers(contestants)], mazes, matches)
        return board_of(result)


def _why_broken(broken: Mapping[Program, str], program: Program | None) -> str | None:
    return None if program is None else broken.get(program)


def _architects(contestants: Sequence[Contestant[MazeRoles]]) -> list[Contestant[MazeRoles]]:
    return sorted((c for c in contestants if c.options.architect is not None), key=lambda c: c.name)


def _solvers(contestants: Sequence[Contestant[MazeRoles]]) -> list[Contestant[MazeRoles]]:
    return sorted((c for c in contestants if c.options.solver is not None), key=lambda c: c.name)


def _mazes(contestants: Sequence[Contestant[MazeRoles]], options: MazeOptions,
           built: Sequence[dict[str, Any]]) -> dict[tuple[str, int, int], BuiltMaze]:
    keys = [(c.name, size, seed) for c in _architects(contestants) for size in options.sizes for seed in options.seeds]
    return {key: BuiltMaze.from_json(record, options.limits.sizes) for key, record in zip(keys, built, strict=True)}


def board_of(result: TournamentResult) -> Standings:
    """The reports' view of a tournament: both boards and the architect x solver matrix."""
    matrix = result.matrix()
    count = len(result.matches)
    return Standings(
        "Maze tournament",
        f"sizes {', '.join(map(str, result.sizes))}; seeds {', '.join(map(str, result.seeds))}; "
        f"{count} {'match' if count == 1 else 'matches'}",
        [Board("Architects", "architect", (("mazes", "mazes"), ("forfeits", "forfeits"), ("games", "pairs")),
               result.architect_board(), "mean steps / max(dist, #walls); forfeits count 0",
               "Mean of steps / max(dist, #walls) over every maze and solver; a forfeit counts 0."),
         Board("Solvers", "solver", (("games", "mazes"), ("arrived", "arrived"), ("failed_steps", "failed steps")),
               result.solver_board(), "mean max(dist, #walls) / steps",
               "Mean of max(dist, #walls) / steps over every maze walked.")],
        [Matrix("Architect score by pairing", "architect \\ solver", result.architects, result.solvers,
                {arch: {solver: cell["architect_score"] for solver, cell in row.items()}
                 for arch, row in matrix.items()},
                "— : an entry does not walk its own mazes")],
        result.to_json(), result)


TOURNAMENT = MazeTournament()
