"""A tournament's standings (any contest's) as a text table, Markdown or JSON.

Entry names come from entry.toml (hostile): each table's cells go through
:mod:`verify.report_escape` for its format. Each format names the isolation the matches ran
under, and which verdicts may differ where some may (:mod:`verify.reports.isolation`)."""
from __future__ import annotations

import json
from collections.abc import Callable

from tabulate import tabulate

from verify.contests.contract import Board, Matrix, Standings
from verify.report_escape import markdown, one_line
from verify.reports.isolation import isolation_fields, isolation_lines

Cell = Callable[[str], str]


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def _board(board: Board, cell: Cell, tablefmt: str) -> str:
    headers = ["#", board.name_header, "score", *(header for _, header in board.columns)]
    rows = [[rank, cell(s.name), _score(s.score),
             *(s.games if key == "games" else s.detail[key] for key, _ in board.columns)]
            for rank, s in enumerate(board.standings, 1)]
    return tabulate(rows, headers, tablefmt=tablefmt)


def _matrix(matrix: Matrix, cell: Cell, tablefmt: str) -> str:
    headers = [cell(matrix.corner)] + [cell(column) for column in matrix.columns]
    rows = []
    for name in matrix.rows:
        found = matrix.scores.get(name, {})
        rows.append([cell(name), *(_score(found[column]) if column in found else "—" for column in matrix.columns)])
    return tabulate(rows, headers, tablefmt=tablefmt)


def _titled(title: str, caption: str) -> str:
    return f"{title} ({caption})" if caption else title


def render_table(standings: Standings, isolation: str = "") -> str:
    lines = [f"{standings.title}: {standings.intro}", *map(one_line, isolation_lines(isolation)), ""]
    for board in standings.boards:
        lines += [_titled(board.title, board.caption), _board(board, one_line, "simple"), ""]
    for matrix in standings.matrices:
        lines += [_titled(matrix.title, matrix.caption), _matrix(matrix, one_line, "simple"), ""]
    return "\n".join(lines)


def _section(title: str, about: str) -> list[str]:
    return [f"## {title}", "", *([about, ""] if about else [])]


def render_markdown(standings: Standings, isolation: str = "") -> str:
    named = [line for text in isolation_lines(isolation) for line in (markdown(text), "")]
    lines = [f"# {standings.title}", "", standings.intro, "", *named]
    for board in standings.boards:
        lines += [*_section(board.title, board.about), _board(board, markdown, "github"), ""]
    for matrix in standings.matrices:
        lines += [*_section(matrix.title, matrix.about), _matrix(matrix, markdown, "github"), ""]
    return "\n".join(lines)


def render_json(standings: Standings, isolation: str = "") -> str:
    return json.dumps({**isolation_fields(isolation), **standings.record}, indent=2) + "\n"


RENDERERS = {"table": render_table, "markdown": render_markdown, "json": render_json}
