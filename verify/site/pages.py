"""The site's pages: the index (leaderboards), a page per entry, a replay page per case or match."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify.challenges.arrows.checker import first_error
from verify.challenges.arrows.judge import ArrowsJudge
from verify.challenges.arrows.model import parse_text
from verify.challenges.contract import TestCase
from verify.challenges.desert.map import DesertMap
from verify.challenges.maze.matchlog import ReplayedMatch, read_log
from verify.challenges.maze.tournament import TournamentResult
from verify.errors import VerifyError
from verify.golf import Standing
from verify.results import CaseResult
from verify.runner.languages import languages
from verify.site.ahead import replay_built_ahead
from verify.site.capture import OutputCapture
from verify.site.desert import desert_replay
from verify.site.render import Site, slug
from verify.site.svg import arrows_svg

MAX_MAZE_STEPS = 100_000
SHOWN_OUTPUT = 64 << 10


@dataclass
class CaseRun:
    """One case of an entry: its result, the case, and the output kept (None: not captured)."""

    result: CaseResult
    case: TestCase | None = None
    capture: OutputCapture | None = None


@dataclass
class EntryPage:
    label: str
    name: str
    contest: str
    options: Any = None
    language: str = ""
    score: str = ""
    source_name: str = ""
    source: str | None = None
    source_bytes: int = 0
    passed: bool = False
    why_not: str = ""
    error: str | None = None
    runs: list[CaseRun] = field(default_factory=list)
    isolation: str = ""             # what its runs had (or would have had)
    differences: str = ""           # which of its verdicts may differ from a judge with a cgroup per run


@dataclass
class GolfBoard:
    name: str
    title: str
    standings: list[Standing]


def _golf_rows(board: GolfBoard, pages: dict[str, str]) -> list[dict[str, Any]]:
    names = {key: language.name for key, language in languages().items()}
    rows = []
    for standing in board.standings:
        score = standing.score
        rows.append({"rank": standing.rank, "name": standing.name,
                     "language": names.get(standing.language, standing.language),
                     "bytes": score.source_bytes if score else "", "flags": " ".join(score.flags) if score else "",
                     "score": score.total if score else "", "cases": standing.cases,
                     "why_not": standing.why_not, "page": pages.get(standing.label, "#")})
    return rows


def write_check_site(folder: Path, boards: list[GolfBoard], entries: list[EntryPage],
                     tournament: TournamentResult | None = None, *, isolation: str = "",
                     differences: str = "") -> Site:
    """The site of a check or a rank: leaderboards, entry pages, replays of the captured cases.
    The index names `isolation` (the runs') and, when there are some, its `differences` (which
    verdicts may differ from a judge with a cgroup per run)."""
    site = Site(folder)
    pages = {entry.label: _write_entry(site, entry) for entry in entries}
    golf = [{"name": b.name, "title": b.title, "rows": _golf_rows(b, pages)} for b in boards]
    ranked = {standing.label for board in boards for standing in board.standings}
    others = [{"name": e.name, "contest": e.contest, "page": pages[e.label], "passed": e.passed,
               "why_not": e.error or e.why_not} for e in entries if e.label not in ranked]
    koth = [_koth_board(site, tournament)] if tournament is not None else []
    site.write("index.html", "index.html", golf=golf, koth=koth, others=others, isolation=isolation,
               differences=differences)
    return site


def write_koth_site(folder: Path, tournament: TournamentResult, *, isolation: str = "",
                    differences: str = "") -> Site:
    return write_check_site(folder, [], [], tournament, isolation=isolation, differences=differences)


# ------------------------------------------------------------------ entries and cases

def _write_entry(site: Site, entry: EntryPage) -> str:
    entry_slug = slug(entry.label)
    cases = []
    for run in entry.runs:
        result = run.result
        page = _write_replay(site, entry, run, entry_slug)
        cases.append({"name": result.case, "passed": result.passed, "status": str(result.verdict.status),
                      "message": result.verdict.message, "time": result.time, "memory": result.memory,
                      "page": f"../{page}" if page else None})
    values = {"label": entry.label, "name": entry.name, "contest": entry.contest, "language": entry.language,
              "score": entry.score, "source": entry.source, "source_name": entry.source_name,
              "source_bytes": entry.source_bytes, "passed": entry.passed, "why_not": entry.why_not,
              "error": entry.error, "cases": cases, "isolation": entry.isolation, "differences": entry.differences}
    return site.write(f"entries/{entry_slug}.html", "entry.html", entry=values)


def _verdict_values(result: CaseResult, title: str, back: str, back_name: str) -> dict[str, Any]:
    verdict = result.verdict
    return {"title": title, "back": back, "back_name": back_name, "passed": result.passed,
            "status": str(verdict.status), "message": verdict.message, "detail": verdict.detail}


def _write_replay(site: Site, entry: EntryPage, run: CaseRun, entry_slug: str) -> str | None:
    if run.capture is None or run.case is None:
        return None
    relative = f"replays/{entry_slug}/{slug(run.result.case)}.html"
    values = _verdict_values(run.result, f"{entry.name}: {run.result.case}", f"../../entries/{entry_slug}.html",
                             entry.name)
    if entry.contest == "desert":
        desert = run.case.meta.get("map") or DesertMap.parse(run.case.input, source=run.case.name)
        options = entry.options
        rules = (options.notation, options.order, options.deaths)
        stats = run.result.verdict.stats
        replay = (replay_built_ahead(run.capture, desert, stats, *rules)
                  or desert_replay(desert, run.capture, stats, *rules))
        return site.write(relative, "desert.html", replay=replay, unit="turn", **values)
    if entry.contest == "arrows":
        return site.write(relative, "arrows.html", **_arrows_values(entry, run), **values)
    return None


def _arrows_values(entry: EntryPage, run: CaseRun) -> dict[str, Any]:
    assert run.case is not None and run.capture is not None
    puzzle = run.case.meta.get("puzzle")
    if puzzle is None:
        try:
            puzzle = parse_text(run.case.input.decode("ascii"), where=run.case.name)
        except (UnicodeDecodeError, VerifyError):
            puzzle = None
    notation = getattr(entry.options, "arrows", "english")
    output = run.capture.output()
    shown = bytes(run.capture.head[:SHOWN_OUTPUT]).decode("utf-8", "replace")
    if puzzle is None:
        return {"svg": None, "why": "the puzzle could not be read", "output": shown, "size": 0}
    if output is None:
        return {"svg": None, "why": f"the output is {run.capture.total:,} bytes, more than a board",
                "output": shown, "size": puzzle.size}
    judge = ArrowsJudge(puzzle.in_notation(notation), notation)
    early = judge.feed(output)
    if early is not None or len(judge.numbers) != puzzle.size:
        why = early.message if early is not None else "the output holds no whole board"
        return {"svg": None, "why": why, "output": shown, "size": puzzle.size}
    error = first_error(puzzle, judge.arrows, judge.numbers)
    return {"svg": arrows_svg(puzzle, judge.numbers, error), "why": "", "output": shown, "size": puzzle.size}


# ------------------------------------------------------------------ King of the Hill

def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def maze_replay(match: ReplayedMatch) -> dict[str, Any]:
    """A match for the replay page: the true walls, and each step's cell and failure (bounded)."""
    maze = match.maze
    steps = match.steps[:MAX_MAZE_STEPS]
    notes = []
    if len(match.steps) > len(steps):
        notes.append(f"the first {len(steps):,} of {len(match.steps):,} steps are shown")
    return {"size": maze.size, "start": list(maze.start), "end": list(maze.end),
            "horizontal": maze.horizontal, "vertical": maze.vertical,
            "steps": [[s.at[0], s.at[1], 1 if s.failure else 0] for s in steps],
            "failures": {str(i + 1): s.failure for i, s in enumerate(steps) if s.failure}, "notes": notes}


def _koth_board(site: Site, result: TournamentResult) -> dict[str, Any]:
    match_pages: dict[tuple[str, str], list[dict[str, str]]] = {}
    listed = []
    for outcome in result.matches:
        title = (f"{outcome.solver} in {outcome.architect}'s maze, size {outcome.size}, seed {outcome.seed}: "
                 f"{outcome.result.ended}")
        page = _write_match(site, outcome.log, title) if outcome.log is not None else None
        if page is not None:
            item = {"page": page, "title": title}
            match_pages.setdefault((outcome.architect, outcome.solver), []).append(item)
            listed.append(item)
    matrix = result.matrix()
    scores = [cell["architect_score"] for row in matrix.values() for cell in row.values()
              if cell.get("architect_score") is not None]
    top = max(scores, default=0) or 1
    rows = []
    for architect in result.architects:
        cells = []
        for solver in result.solvers:
            found = matrix[architect].get(solver)
            value = None if found is None else found["architect_score"]
            level = 0 if value is None else 1 + min(4, int(4 * value / top))
            cells.append({"score": _score(value), "level": level, "matches": match_pages.get((architect, solver), [])})
        rows.append({"architect": architect, "cells": cells})
    return {"title": "Inception maze", "intro": f"sizes {', '.join(map(str, result.sizes))}; seeds "
            f"{', '.join(map(str, result.seeds))}; {len(result.matches)} matches",
            "architects": [{"name": s.name, "score": _score(s.score), "mazes": s.detail["mazes"],
                            "forfeits": s.detail["forfeits"], "games": s.games} for s in result.architect_board()],
            "solvers": [{"name": s.name, "score": _score(s.score), "games": s.games,
                         "arrived": s.detail["arrived"], "failed_steps": s.detail["failed_steps"]}
                        for s in result.solver_board()],
            "solvers_names": result.solvers, "matrix": rows, "matches": listed}


def _write_match(site: Site, log: Path, title: str) -> str | None:
    try:
        replayed = read_log(log)
    except VerifyError:
        return None
    if not isinstance(replayed, ReplayedMatch):
        return None
    result = replayed.result or {}
    score_line = (f"{result.get('ended', '?')}; {result.get('steps', '?')} steps charged; architect score "
                  f"{_number(result.get('architect_score'))}, solver score {_number(result.get('solver_score'))}")
    failed = sum(1 for s in replayed.steps if s.failure)
    relative = f"matches/{slug(log.stem)}.html"
    site.write(relative, "maze.html", title=title, back="../index.html", back_name="leaderboards",
               passed=bool(result.get("arrived")), status="arrived" if result.get("arrived") else "did not arrive",
               message=f"{len(replayed.steps)} steps, {failed} failed", detail="", replay=maze_replay(replayed),
               unit="step", score_line=score_line, events=replayed.events)
    return relative


def _number(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, (int, float)) else "?"
