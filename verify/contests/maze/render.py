"""ASCII drawings in the style of the spec's picture (pure, no I/O).

Each cell is two characters: the cell itself (``_`` when a wall is below it,
``?`` when the wall below is unknown) and what is on its right (``|`` wall,
``?`` unknown, else blank; on the bottom row a blank is drawn ``_``, as in the
spec). Marks replace the cell character (and so hide a wall below it):
``@`` the solver, ``S`` start, ``E`` end, ``.`` a cell the solver visited.
"""
from __future__ import annotations

from collections.abc import Collection

from verify.contests.maze.model import Cell, Maze


def draw(maze: Maze, *, horizontal: str | None = None, vertical: str | None = None,
         position: Cell | None = None, visited: Collection[Cell] = ()) -> str:
    """Draw ``maze``; ``horizontal``/``vertical`` override its walls (a fog view with ``?``)."""
    n = maze.size
    h = maze.horizontal if horizontal is None else horizontal
    v = maze.vertical if vertical is None else vertical
    visited = set(visited)
    width = len(str(n - 1))
    indent = " " * (width + 2)
    lines = []
    if n > 10:
        lines.append(indent + " ".join(str(c // 10) if c >= 10 else " " for c in range(n)).rstrip())
    lines.append(indent + " ".join(str(c % 10) for c in range(n)))
    lines.append(indent + "_" * (2 * n - 1))
    for r in range(n):
        bottom = r == n - 1
        row = [f"{r:>{width}} |"]
        for c in range(n):
            cell = (r, c)
            if cell == position:
                mark = "@"
            elif cell == maze.end:
                mark = "E"
            elif cell == maze.start:
                mark = "S"
            elif cell in visited:
                mark = "."
            elif bottom:
                mark = "_"
            else:
                mark = {"1": "_", "0": " "}.get(h[r * n + c], "?")
            row.append(mark)
            if c == n - 1:
                row.append("|")
            else:
                wall = v[r * (n - 1) + c]
                row.append({"1": "|", "0": "_" if bottom else " "}.get(wall, "?"))
        lines.append("".join(row))
    lines.append(f"start:({maze.start[0]},{maze.start[1]})")
    lines.append(f"end:({maze.end[0]},{maze.end[1]})")
    return "\n".join(lines) + "\n"
