"""SVG pictures of the three contests, drawn from the rules engines' state (read only).

Each drawing is a Jinja2 template (``templates/*.svg``, autoescaped) fed plain numbers
and the text of the cells: the engines never draw, and nothing here decides a rule.
Marks as well as colours: every square carries its letter or number, so a picture
reads in black and white.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from verify.challenges.arrows.model import NO_ARROW, Puzzle, direction_name
from verify.challenges.desert.engine import Crossing
from verify.challenges.desert.map import DesertMap
from verify.challenges.maze.matchlog import ReplayedMatch
from verify.site.render import render

CELL = 36
TEXT_WIDTH = 7          # pixels a character of the 12-13 px titles takes, about: room for a title
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


MAX_SVG_ATTEMPTS = 60


def desert_final(desert: DesertMap, attempt: dict[str, Any]) -> tuple[Crossing, list[list[tuple[int, int]]]]:
    """The last state of an attempt of a replay (:func:`verify.site.desert.desert_replay`) and its
    route, one list of squares per kept run of turns."""
    width = desert.width
    section = attempt["sections"][-1]
    state = section["state"]
    water = bytearray(int(c) for c in state["water"]) if state["water"] else desert.flat_water()
    visited = {divmod(i, width) for i, flag in enumerate(state["visited"]) if flag == "1"}
    at, carried = tuple(state["at"]), state["carried"]
    for turn in section["turns"]:
        at, carried = (turn[0], turn[1]), turn[2]
        visited.add(at)
        if len(turn) > 3:
            water[turn[3]] = turn[5]
    for earlier in attempt["sections"][:-1]:
        visited.update((turn[0], turn[1]) for turn in earlier["turns"])
    game = Crossing.from_state(desert, position=(at[0], at[1]), carried=carried, water=water, visited=visited,
                               turns=attempt["turns"], attempt=attempt["number"])
    routes = [[tuple(s["state"]["at"])] + [(t[0], t[1]) for t in s["turns"]] for s in attempt["sections"]]
    return game, routes


def desert_svg(desert: DesertMap, replay: dict[str, Any]) -> Markup:
    """The final state of each attempt of ``replay``, one map under the other: the water left, ``#``
    on the squares visited dry, the route as a line (a run of it per part kept), ``@`` where the
    traveller ended, ``!`` the square of a broken rule."""
    cell = 24
    title_height = 22
    attempts = replay["attempts"]
    if len(attempts) > MAX_SVG_ATTEMPTS:
        half = MAX_SVG_ATTEMPTS // 2
        attempts = attempts[:half] + attempts[-half:]
    panels: list[dict[str, Any]] = []
    top = 0
    for attempt in attempts:
        game, routes = desert_final(desert, attempt)
        failure = attempt.get("failure") or {}
        bad = tuple(failure["square"]) if failure.get("square") else None
        squares = []
        for row in range(desert.height):
            for col in range(desert.width):
                mark = game.char(row, col)
                if (row, col) == game.position:
                    mark = "@"
                kind = {"S": "start", "E": "end", "#": "visited", ".": "dry", "@": "traveller"}.get(mark, "water")
                if (row, col) == bad:
                    mark, kind = "!", "illegal"
                squares.append({"x": col * cell, "y": row * cell, "mark": mark, "kind": kind})
        lines = [" ".join(f"{col * cell + cell / 2},{row * cell + cell / 2}" for row, col in route)
                 for route in routes]
        title = (f"attempt {attempt['number']}: {attempt['outcome']}, {attempt['turns']:,} "
                 f"turn{'s' if attempt['turns'] != 1 else ''}")
        if failure:
            title += f" — {failure['message']}"
        panels.append({"top": top, "title": title, "squares": squares, "routes": lines})
        top += title_height + desert.height * cell + 12
    notes = list(replay["notes"])
    if len(attempts) < len(replay["attempts"]):
        notes.append(f"the first and last {MAX_SVG_ATTEMPTS // 2} of {len(replay['attempts'])} attempts are drawn")
    note_top = top
    top += 18 * len(notes)
    longest = max([len(str(p["title"])) for p in panels] + [len(note) for note in notes] + [0])
    return Markup(render("desert.svg", width=max(desert.width * cell, TEXT_WIDTH * longest, 320), height=max(top, 1),
                         cell=cell,
                         title_height=title_height, panels=panels, notes=notes, note_top=note_top))


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
    return Markup(render("maze.svg", size=n * cell, width=max(n * cell, TEXT_WIDTH * len(title)), cell=cell,
                         walls=walls, marks=marks, title=title))
