"""The tournament's leaderboards and matrix as a text table, Markdown or JSON.

Entry names come from entry.toml (hostile): each table's cells go through
:mod:`verify.report_escape` for its format. Each format names the isolation the matches ran
under, and which verdicts may differ where some may (:mod:`verify.reports.isolation`)."""
from __future__ import annotations

import json
from collections.abc import Callable

from tabulate import tabulate

from verify.challenges.maze.tournament import Standing, TournamentResult
from verify.report_escape import markdown, one_line
from verify.reports.isolation import isolation_fields, isolation_lines


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def _architect_rows(board: list[Standing], cell: Callable[[str], str]) -> list[list[object]]:
    return [[rank, cell(s.name), _score(s.score), s.detail["mazes"], s.detail["forfeits"], s.games]
            for rank, s in enumerate(board, 1)]


def _solver_rows(board: list[Standing], cell: Callable[[str], str]) -> list[list[object]]:
    return [[rank, cell(s.name), _score(s.score), s.games, s.detail["arrived"], s.detail["failed_steps"]]
            for rank, s in enumerate(board, 1)]


ARCHITECT_HEADERS = ["#", "architect", "score", "mazes", "forfeits", "pairs"]
SOLVER_HEADERS = ["#", "solver", "score", "mazes", "arrived", "failed steps"]


def _matrix_rows(result: TournamentResult, cell: Callable[[str], str]) -> tuple[list[str], list[list[object]]]:
    matrix = result.matrix()
    headers = [cell("architect \\ solver")] + [cell(solver) for solver in result.solvers]
    rows = []
    for arch in result.architects:
        row: list[object] = [cell(arch)]
        for solver in result.solvers:
            found = matrix[arch].get(solver)
            row.append("—" if found is None else _score(found["architect_score"]))
        rows.append(row)
    return headers, rows


def _intro(result: TournamentResult) -> str:
    return (f"sizes {', '.join(map(str, result.sizes))}; seeds {', '.join(map(str, result.seeds))}; "
            f"{len(result.matches)} {'match' if len(result.matches) == 1 else 'matches'}")


def render_table(result: TournamentResult, isolation: str = "") -> str:
    headers, rows = _matrix_rows(result, one_line)
    return "\n".join([
        f"Maze tournament: {_intro(result)}", *map(one_line, isolation_lines(isolation)), "",
        "Architects (mean steps / max(dist, #walls); forfeits count 0)",
        tabulate(_architect_rows(result.architect_board(), one_line), ARCHITECT_HEADERS, tablefmt="simple"), "",
        "Solvers (mean max(dist, #walls) / steps)",
        tabulate(_solver_rows(result.solver_board(), one_line), SOLVER_HEADERS, tablefmt="simple"), "",
        "Architect score by pairing (— : an entry does not walk its own mazes)",
        tabulate(rows, headers, tablefmt="simple"), ""])


def render_markdown(result: TournamentResult, isolation: str = "") -> str:
    headers, rows = _matrix_rows(result, markdown)
    named = [line for text in isolation_lines(isolation) for line in (markdown(text), "")]
    return "\n".join([
        "# Maze tournament", "", _intro(result), "", *named,
        "## Architects", "", "Mean of steps / max(dist, #walls) over every maze and solver; a forfeit counts 0.", "",
        tabulate(_architect_rows(result.architect_board(), markdown), ARCHITECT_HEADERS, tablefmt="github"), "",
        "## Solvers", "", "Mean of max(dist, #walls) / steps over every maze walked.", "",
        tabulate(_solver_rows(result.solver_board(), markdown), SOLVER_HEADERS, tablefmt="github"), "",
        "## Architect score by pairing", "",
        tabulate(rows, headers, tablefmt="github"), ""])


def render_json(result: TournamentResult, isolation: str = "") -> str:
    return json.dumps({**isolation_fields(isolation), **result.to_json()}, indent=2) + "\n"


RENDERERS = {"table": render_table, "markdown": render_markdown, "json": render_json}
