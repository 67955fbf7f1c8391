"""King of the Hill: every architect against every solver, over sizes and seeds.

Each maze is built once (architect, size, seed) and given to every solver of
another entry (the spec: solvers walk "mazes made by other contestants'
architects"). Architect score = mean over all its (maze, solver) pairs, a
forfeited maze counting 0 against every solver; solver score = mean over the
mazes it walked (forfeited mazes excluded).

The work is three rounds of jobs handed to the core (``Grader.map``): every program
built once, then every maze, then every walk of a maze that exists. Each job is a
module-level function over plain data returning the JSON form of its result, so the
core may run it in a thread here (``jobs`` at once) or on a cluster's worker; results
come back in the jobs' order and are sorted by key, so the same seeds give the same
tables however many workers ran them and in whatever order they finished.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from statistics import fmean
from typing import Any

from verify.challenges.contract import Grader
from verify.challenges.maze.match import DEFAULT_PATIENCE, Match, MatchResult, step_limit
from verify.challenges.maze.matchlog import LogWriter
from verify.challenges.maze.model import CONTEST_SIZES
from verify.challenges.maze.play import BuiltMaze, MazeLimits, build_maze, solver_mode
from verify.challenges.maze.roles import MazeRoles
from verify.errors import VerifyError
from verify.files import folder_digest
from verify.report_escape import one_line
from verify.runner import Program
from verify.verdict import Status


@dataclass(frozen=True)
class Contestant:
    name: str
    roles: MazeRoles


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
class Standing:
    name: str
    score: float | None            # None: nothing to average
    games: int                     # (maze, solver) pairs for an architect; mazes walked for a solver
    detail: dict[str, Any] = field(default_factory=dict)


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


def _ranked(board: list[Standing]) -> list[Standing]:
    return sorted(board, key=lambda s: (s.score is None, -(s.score or 0.0), s.name))


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


class FilesDiffer(VerifyError):
    """A job sees other entry files than the tournament loaded (a worker without the shared folder)."""


def _digest(folder: Path) -> str:
    try:
        return folder_digest(folder)
    except VerifyError:             # changed or gone since it was loaded: no job will find it the same
        return ""


@lru_cache(maxsize=64)
def _check_files(folder: Path, digest: str) -> None:
    """Once per process and entry: the folder a job is about to run is the one the tournament loaded."""
    if _digest(folder) != digest:
        raise FilesDiffer(f"{folder}: the entry's files differ from the ones the tournament loaded "
                          "(a filesystem the workers share, unchanged during the tournament, is needed)")


def _broken(grader: Grader, program: Program) -> str | None:
    """A job: build ``program`` once (cached) and say why it cannot run, or None."""
    return grader.broken(program)


@dataclass(frozen=True)
class MazeJob:
    """One maze to ask an architect for (plain data: it may run on a cluster's worker)."""

    architect: str
    program: Program | None
    size: int
    seed: int
    limits: MazeLimits
    broken: str | None              # why the architect cannot run (it does not build): a forfeit
    digest: str = ""                # of the architect's folder, as the tournament loaded it


def _maze(grader: Grader, job: MazeJob) -> dict[str, Any]:
    """A job: the maze (or the forfeit), in its JSON form."""
    if job.broken is not None or job.program is None:
        built = BuiltMaze(job.size, job.seed, None, job.broken, status=Status.COMPILE_ERROR)
    else:
        _check_files(job.program.folder, job.digest)
        built = build_maze(grader, job.program, job.size, job.seed, job.limits)
    return built.to_json()


@dataclass(frozen=True)
class MatchJob:
    """One solver in one maze (plain data)."""

    maze_key: tuple[str, int, int]
    maze: BuiltMaze
    solver: Contestant
    limits: MazeLimits
    log: Path | None
    patience: int
    broken: str | None
    digest: str = ""                # of the solver's folder, as the tournament loaded it


def _match(grader: Grader, job: MatchJob) -> dict[str, Any]:
    """A job: the walk, in its JSON form (its log written where ``job.log`` says)."""
    if job.broken is None and job.solver.roles.solver is not None:
        _check_files(job.solver.roles.solver.folder, job.digest)
    return play_match(grader, job.maze_key, job.maze, job.solver, job.limits, job.log, job.patience,
                      job.broken).to_json()


def play_match(grader: Grader, maze_key: tuple[str, int, int], built: BuiltMaze, solver: Contestant,
               limits: MazeLimits, log_path: Path | None, patience: int, broken: str | None = None) -> MatchOutcome:
    architect, size, seed = maze_key
    assert built.maze is not None and solver.roles.solver is not None
    match = Match(built.maze)
    persistent = solver.roles.persistent
    with LogWriter(log_path) as log:
        log({"type": "match", "architect": architect, "solver": solver.name, "size": size, "seed": seed,
             "mode": solver_mode(persistent), "step_limit": match.limit})
        log({"type": "maze", "text": built.maze.to_text()})
        if broken:
            log({"type": "event", "step": 0, "event": broken})
            result = match.result(broken)
            log(result.to_json())
        else:
            with grader.interactive(solver.roles.solver, persistent, limits.solver(persistent),
                                    limits.step_timeout) as ask:
                result = match.play(ask, log, patience)
    return MatchOutcome(architect, solver.name, size, seed, result, log_path)


def run_tournament(grader: Grader, contestants: list[Contestant], sizes: list[int], seeds: list[int], *,
                   jobs: int = 2, limits: MazeLimits = MazeLimits(), log_dir: Path | None = None,
                   patience: int = DEFAULT_PATIENCE,
                   progress: Callable[[str], None] = lambda message: None) -> TournamentResult:
    names = [c.name for c in contestants]
    if len(set(names)) != len(names):
        raise VerifyError(f"two entries share a name: {sorted(n for n in names if names.count(n) > 1)[0]!r}")
    for size in sizes:
        if size not in limits.sizes:
            raise VerifyError(f"size {size} is outside {limits.sizes.start}..{limits.sizes.stop - 1}")
    architects = sorted(c.name for c in contestants if c.roles.architect is not None)
    solvers = sorted(c.name for c in contestants if c.roles.solver is not None)
    by_name = {c.name: c for c in contestants}
    roles = [(c.name, role, program) for c in contestants
             for role, program in (("architect", c.roles.architect), ("solver", c.roles.solver)) if program is not None]
    programs = sorted({program for _, _, program in roles}, key=str)
    digests = {program.folder: _digest(program.folder) for program in programs}
    failures = dict(zip(programs, grader.map(_broken, programs, jobs), strict=True))
    broken = {(name, role): failures[program] for name, role, program in roles if failures[program] is not None}

    counted = {"mazes": 0, "matches": 0}      # jobs done, for the progress lines

    def maze_done(index: int, record: dict[str, Any]) -> None:
        job = maze_jobs[index]
        if log_dir is not None:
            with LogWriter(log_dir / "mazes" / f"{_safe(job.architect)}-{job.size}-{job.seed}.jsonl") as log:
                log({"type": "architect", "architect": job.architect,
                     **{k: v for k, v in record.items() if k != "type"}})
        counted["mazes"] += 1
        progress(one_line(f"[{counted['mazes']}/{len(maze_jobs)}] maze {job.architect} size {job.size} "
                          f"seed {job.seed}: " + ("ok" if "maze" in record else f"forfeit: {record.get('forfeit')}")))

    maze_keys = [(a, size, seed) for a in architects for size in sizes for seed in seeds]
    maze_jobs = []
    for name, size, seed in maze_keys:
        architect = by_name[name].roles.architect
        maze_jobs.append(MazeJob(name, architect, size, seed, limits, broken.get((name, "architect")),
                                 digests[architect.folder] if architect is not None else ""))
    mazes = {key: BuiltMaze.from_json(record, limits.sizes)
             for key, record in zip(maze_keys, grader.map(_maze, maze_jobs, jobs, maze_done), strict=True)}

    def match_done(index: int, record: dict[str, Any]) -> None:
        (architect, size, seed), solver = match_jobs[index].maze_key, match_jobs[index].solver.name
        counted["matches"] += 1
        progress(one_line(f"[{counted['matches']}/{len(match_jobs)}] {solver} in {architect}'s maze size {size} "
                          f"seed {seed}: {record['ended']} ({record['steps']} steps)"))

    def log_path(key: tuple[str, int, int], solver: str) -> Path | None:
        if log_dir is None:
            return None
        return log_dir / "matches" / f"{_safe(key[0])}-{key[1]}-{key[2]}--{_safe(solver)}.jsonl"

    solver_digests = {name: digests[c.roles.solver.folder] for name, c in by_name.items() if c.roles.solver is not None}
    match_jobs = [MatchJob(key, mazes[key], by_name[solver], limits, log_path(key, solver), patience,
                           broken.get((solver, "solver")), solver_digests[solver])
                  for key in maze_keys if mazes[key].maze is not None for solver in solvers if solver != key[0]]
    # the longest walks first (bigger mazes), so that every worker stays busy to the end
    match_jobs.sort(key=lambda job: -step_limit(job.maze_key[1]))
    matches = [MatchOutcome.from_json(record) for record in grader.map(_match, match_jobs, jobs, match_done)]
    matches.sort(key=lambda m: (m.architect, m.size, m.seed, m.solver))
    return TournamentResult(list(sizes), list(seeds), architects, solvers, mazes, matches)
