"""SVG pictures of the three contests, drawn from the rules engines' state (read only).

Each drawing is a Jinja2 template (``templates/*.svg``, autoescaped) fed plain numbers
and the text of the cells: the engines never draw, and nothing here decides a rule.
Marks as well as colours: every square carries its letter or number, so a picture
reads in black and white.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from markupsafe import Markup

from verify.challenges.arrows.model import NO_ARROW, Puzzle, direction_name
from verify.challenges.desert.engine import Crossing
from verify.challenges.desert.map import DesertMap
from verify.challenges.maze.matchlog import ReplayedMatch
from verify.site.render import render

CELL = 36
ARROW_GLYPHS = ("↑", "↗", "→", "↘", "↓", "↙", "←", "↖")
_SQUARE = re.compile(r"\((\d+),(\d+)\)")


def _centre(row: int, col: int, cell: int = CELL, margin: int = 0) -> tuple[float, float]:
    return (margin + col * cell + cell / 2, margin + row * cell + cell / 2)


def arrows_svg(puzzle: Puzzle, numbers: Sequence[int] | None = None, error: str | None = None) -> Markup:
    """The board: each cell's arrow, its number (given ones bold, underlined, starred), the path
    1 -> N as line segments between consecutive numbers (on the board printed, when given),
    and the squares named by ``error`` (the first rule broken) marked ``!``."""
    numbers = list(numbers) if numbers is not None else list(puzzle.numbers)
    size = puzzle.size
    flagged = {(int(r), int(c)) for r, c in _SQUARE.findall(error or "")}
    cells = []
    for index in range(size):
        row, col = divmod(index, puzzle.cols)
        x, y = col * CELL, row * CELL
        number = numbers[index] if index < len(numbers) else 0
        direction = puzzle.arrows[index]
        cells.append({"x": x, "y": y, "row": row, "col": col, "number": number or "",
                      "given": bool(puzzle.numbers[index]),
                      "glyph": "" if direction == NO_ARROW else ARROW_GLYPHS[direction],
                      "arrow": direction_name(direction, puzzle.notation) or "end",
                      "flagged": (row, col) in flagged})
    cell_of: dict[int, int] = {}
    for index, number in enumerate(numbers[:size]):
        if 1 <= number <= size and number not in cell_of:
            cell_of[number] = index
    segments = []
    for number in range(1, size):
        if number in cell_of and number + 1 in cell_of:
            a, b = divmod(cell_of[number], puzzle.cols), divmod(cell_of[number + 1], puzzle.cols)
            (x1, y1), (x2, y2) = _centre(*a), _centre(*b)
            segments.append({"x1": x1, "y1": y1, "x2": x2, "y2": y2, "from": number})
    return Markup(render("arrows.svg", width=puzzle.cols * CELL, height=puzzle.rows * CELL, cell=CELL,
                         cells=cells, segments=segments, size=size))


def desert_svg(desert: DesertMap, attempts: Sequence[tuple[int, str, Sequence[tuple[int, int]] | None, Crossing]],
               ) -> Markup:
    """The final state of each attempt, one map under the other: the water left, ``#`` on the
    squares visited dry, the route as a line (when kept), ``@`` where the traveller ended."""
    cell = 24
    title_height = 22
    panels = []
    top = 0
    for number, outcome, route, game in attempts:
        squares = []
        for row in range(desert.height):
            for col in range(desert.width):
                mark = game.char(row, col)
                if (row, col) == game.position:
                    mark = "@"
                kind = {"S": "start", "E": "end", "#": "visited", ".": "dry", "@": "traveller"}.get(mark, "water")
                squares.append({"x": col * cell, "y": row * cell, "mark": mark, "kind": kind})
        points = " ".join(f"{col * cell + cell / 2},{row * cell + cell / 2}" for row, col in route or ())
        panels.append({"top": top, "title": f"attempt {number}: {outcome}, {game.turns} turns, "
                       f"{game.carried} units carried at the end", "squares": squares, "route": points})
        top += title_height + desert.height * cell + 12
    return Markup(render("desert.svg", width=max(desert.width * cell, 320), height=max(top, 1), cell=cell,
                         title_height=title_height, panels=panels))


def maze_svg(match: ReplayedMatch, step: int | None = None, fog: bool = False) -> Markup:
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
    return Markup(render("maze.svg", size=n * cell, cell=cell, walls=walls, marks=marks, title=title))
