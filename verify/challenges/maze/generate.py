"""A reference maze (pure): a recursive-backtracker perfect maze from a seed.

Used by ``verify gen maze`` and by ``verify check`` to give a solver a maze to
walk without needing any architect. Start and end are the two ends of the
maze's longest path (two breadth-first searches).
"""
from __future__ import annotations

import random

from verify.challenges.maze.model import Cell, Maze


def generate_maze(size: int, seed: int) -> Maze:
    rng = random.Random(f"verify-maze-{size}-{seed}")
    horizontal = ["1"] * (size * (size - 1))
    vertical = ["1"] * (size * (size - 1))
    seen = {(0, 0)}
    stack: list[Cell] = [(0, 0)]
    while stack:
        r, c = stack[-1]
        fresh = [(r + dr, c + dc) for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0))
                 if 0 <= r + dr < size and 0 <= c + dc < size and (r + dr, c + dc) not in seen]
        if not fresh:
            stack.pop()
            continue
        nr, nc = rng.choice(fresh)
        if nc == c:
            horizontal[min(r, nr) * size + c] = "0"
        else:
            vertical[r * (size - 1) + min(c, nc)] = "0"
        seen.add((nr, nc))
        stack.append((nr, nc))
    walls = Maze(size, (0, 0), (0, 1), "".join(horizontal), "".join(vertical))
    start = _farthest(walls, (0, 0))
    end = _farthest(walls, start)
    return Maze(size, start, end, walls.horizontal, walls.vertical)


def _farthest(maze: Maze, origin: Cell) -> Cell:
    dist = maze.distances_from(origin)
    cells = ((r, c) for r in range(maze.size) for c in range(maze.size))
    return max(cells, key=lambda cell: (dist[cell[0]][cell[1]], cell))
