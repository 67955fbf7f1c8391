"""What the site shows of the maze: the tournament's section of the index (both leaderboards,
the architect x solver matrix as a heat map), a replay page per match read from its log, and
the maze at any step as SVG (the true walls or the solver's fog view). Drawn from the match's
state (read only): nothing here decides a rule.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from verify.contests.contract import Drawing, Page, PagePlace, Presenter
from verify.contests.maze.matchlog import ReplayedMatch, read_log
from verify.contests.maze.roles import MazeRoles
from verify.contests.maze.tournament import TournamentResult
from verify.errors import VerifyError

TEMPLATES = f"{__package__}:templates"
TITLE = "Inception maze"
MAX_MAZE_STEPS = 100_000
TEXT_WIDTH = 7          # pixels a character of the 12-13 px titles takes, about: room for a title


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def _number(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, (int, float)) else "?"


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


def match_page(log: Path, title: str) -> Page | None:
    """The replay page of the match ``log`` holds (None: the log cannot be read as a match)."""
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
    return Page(f"{TEMPLATES}/maze.html", {
        "title": title, "back": "../index.html", "back_name": "leaderboards", "passed": bool(result.get("arrived")),
        "status": "arrived" if result.get("arrived") else "did not arrive",
        "message": f"{len(replayed.steps)} steps, {failed} failed", "detail": "", "replay": maze_replay(replayed),
        "unit": "step", "score_line": score_line, "events": replayed.events})


class MazePresenter(Presenter[MazeRoles, None]):
    scripts = (f"{__package__}:static/maze.js",)
    styles = (f"{__package__}:static/maze.css",)

    def tournament_board(self, result: TournamentResult, pages: PagePlace) -> Page:
        match_pages: dict[tuple[str, str], list[dict[str, str]]] = {}
        listed = []
        for outcome in result.matches:
            title = (f"{outcome.solver} in {outcome.architect}'s maze, size {outcome.size}, seed {outcome.seed}: "
                     f"{outcome.result.ended}")
            log = outcome.log
            page = match_page(log, title) if log is not None else None
            if log is not None and page is not None:
                item = {"page": pages.place("matches", log.stem, page), "title": title}
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
                cells.append({"score": _score(value), "level": level,
                              "matches": match_pages.get((architect, solver), [])})
            rows.append({"architect": architect, "cells": cells})
        return Page(f"{TEMPLATES}/board.html", {
            "title": TITLE, "intro": f"sizes {', '.join(map(str, result.sizes))}; seeds "
            f"{', '.join(map(str, result.seeds))}; {len(result.matches)} matches",
            "architects": [{"name": s.name, "score": _score(s.score), "mazes": s.detail["mazes"],
                            "forfeits": s.detail["forfeits"], "games": s.games} for s in result.architect_board()],
            "solvers": [{"name": s.name, "score": _score(s.score), "games": s.games,
                         "arrived": s.detail["arrived"], "failed_steps": s.detail["failed_steps"]}
                        for s in result.solver_board()],
            "solvers_names": result.solvers, "matrix": rows, "matches": listed})


PRESENTER = MazePresenter()


def maze_svg(match: ReplayedMatch, step: int | None = None, fog: bool = False) -> Drawing:
    """The maze after ``step`` (default: the end): walls (in the fog, only those the solver has
    seen; the others dashed and marked ``?``), the cells visited, the solver ``@``."""
    maze = match.maze
    n = maze.size
    upto = len(match.steps) if step is None else step
    positions = match.positions(upto)
    visited = set(positions)
    failed = {s.at for s in match.steps[:upto] if s.failure}
    view_h, view_v = maze.horizontal, maze.vertical
    if fog:
        view = match.fog_after(upto)
        view_h, view_v = view.horizontal, view.vertical
    cell = max(8, min(28, 720 // n))
    walls = []
    for r in range(n - 1):
        for c in range(n):
            state = view_h[r * n + c]
            if state != "0":
                y = (r + 1) * cell
                walls.append({"x1": c * cell, "y1": y, "x2": (c + 1) * cell, "y2": y, "known": state == "1"})
    for r in range(n):
        for c in range(n - 1):
            state = view_v[r * (n - 1) + c]
            if state != "0":
                x = (c + 1) * cell
                walls.append({"x1": x, "y1": r * cell, "x2": x, "y2": (r + 1) * cell, "known": state == "1"})
    marks = []
    here = positions[-1]
    for r in range(n):
        for c in range(n):
            square = (r, c)
            mark = ("@" if square == here else "E" if square == maze.end else "S" if square == maze.start
                    else "x" if square in failed else "·" if square in visited else "")
            if mark:
                marks.append({"x": c * cell + cell / 2, "y": r * cell + cell / 2, "mark": mark,
                              "kind": {"@": "traveller", "E": "end", "S": "start", "x": "failed"}.get(mark, "visited")})
    header = match.header
    title = (f"{header.get('solver', '?')} in {header.get('architect', '?')}'s maze, size {n}, "
             f"seed {header.get('seed', '?')}: step {upto} of {len(match.steps)}{' (fog)' if fog else ''}")
    return Drawing(f"{TEMPLATES}/maze.svg", {"size": n * cell, "width": max(n * cell, TEXT_WIDTH * len(title)),
                                             "cell": cell, "walls": walls, "marks": marks, "title": title})
