"""Reference mazes (pure), from a seed.

:func:`generate_maze` is the one ``verify gen maze`` and ``verify check`` use: a
recursive-backtracker perfect maze whose start and end are the two ends of its
longest path (two breadth-first searches).

:func:`family_walls` builds the walls of the families a solver is fuzzed on
(``verify fuzz``): ``backtracker`` (long winding corridors), ``kruskal`` and
``prim`` (perfect mazes with many short dead ends), ``braided`` (a backtracker
maze with most dead ends knocked through: loops, which trap a solver that
remembers nothing), and ``rooms`` (recursive division that stops early: open
rooms joined by single doors). Every family connects every cell.
"""
from __future__ import annotations

import random

from verify.contests.maze.model import Cell, Maze

FAMILIES = ("backtracker", "kruskal", "prim", "braided", "rooms")

Walls = tuple[list[str], list[str]]


def generate_maze(size: int, seed: int) -> Maze:
    rng = random.Random(f"verify-maze-{size}-{seed}")
    horizontal, vertical = _backtracker(size, rng)
    walls = Maze(size, (0, 0), (0, 1), "".join(horizontal), "".join(vertical))
    start = _farthest(walls, (0, 0))
    end = _farthest(walls, start)
    return Maze(size, start, end, walls.horizontal, walls.vertical)


def _closed(size: int) -> Walls:
    return ["1"] * (size * (size - 1)), ["1"] * (size * (size - 1))


def _open(walls: Walls, size: int, a: Cell, b: Cell, wall: str = "0") -> None:
    """Set the wall between the adjacent cells ``a`` and ``b`` (open it by default)."""
    horizontal, vertical = walls
    (r, c), (nr, nc) = a, b
    if nc == c:
        horizontal[min(r, nr) * size + c] = wall
    else:
        vertical[r * (size - 1) + min(c, nc)] = wall


def _neighbours(size: int, cell: Cell) -> list[Cell]:
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0))
            if 0 <= r + dr < size and 0 <= c + dc < size]


def _backtracker(size: int, rng: random.Random) -> Walls:
    walls = _closed(size)
    seen = {(0, 0)}
    stack: list[Cell] = [(0, 0)]
    while stack:
        here = stack[-1]
        fresh = [cell for cell in _neighbours(size, here) if cell not in seen]
        if not fresh:
            stack.pop()
            continue
        chosen = rng.choice(fresh)
        _open(walls, size, here, chosen)
        seen.add(chosen)
        stack.append(chosen)
    return walls


def _kruskal(size: int, rng: random.Random) -> Walls:
    walls = _closed(size)
    parent = list(range(size * size))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    edges = [((r, c), (r + dr, c + dc)) for r in range(size) for c in range(size)
             for dr, dc in ((1, 0), (0, 1)) if r + dr < size and c + dc < size]
    rng.shuffle(edges)
    for a, b in edges:
        ra, rb = root(a[0] * size + a[1]), root(b[0] * size + b[1])
        if ra != rb:
            parent[ra] = rb
            _open(walls, size, a, b)
    return walls


def _prim(size: int, rng: random.Random) -> Walls:
    walls = _closed(size)
    first = (rng.randrange(size), rng.randrange(size))
    inside = {first}
    frontier = [(first, cell) for cell in _neighbours(size, first)]
    while frontier:
        here, there = frontier.pop(rng.randrange(len(frontier)))
        if there in inside:
            continue
        inside.add(there)
        _open(walls, size, here, there)
        frontier += [(there, cell) for cell in _neighbours(size, there) if cell not in inside]
    return walls


def _braided(size: int, rng: random.Random) -> Walls:
    walls = _backtracker(size, rng)
    horizontal, vertical = walls
    probe = Maze(size, (0, 0), (0, 1), "".join(horizontal), "".join(vertical)) if size > 1 else None
    if probe is None:
        return walls
    for r in range(size):
        for c in range(size):
            if len(probe.moves_from((r, c))) == 1 and rng.random() < 0.8:
                closed = [cell for cell in _neighbours(size, (r, c)) if probe.wall_between((r, c), cell)]
                if closed:
                    _open(walls, size, (r, c), rng.choice(closed))
    return walls


def _rooms(size: int, rng: random.Random) -> Walls:
    """Recursive division from an open square: a wall line with one door splits a region
    until regions are smaller than a room (2 to 5 cells a side)."""
    walls: Walls = (["0"] * (size * (size - 1)), ["0"] * (size * (size - 1)))
    room = rng.randint(2, 5)
    regions = [(0, 0, size, size)]          # top, left, height, width
    while regions:
        top, left, height, width = regions.pop()
        if height <= room and width <= room or min(height, width) < 2:
            continue
        if height > width or (height == width and rng.random() < 0.5):
            cut = rng.randrange(1, height)   # a wall line between rows top+cut-1 and top+cut
            door = left + rng.randrange(width)
            for c in range(left, left + width):
                if c != door:
                    _open(walls, size, (top + cut - 1, c), (top + cut, c), "1")
            regions += [(top, left, cut, width), (top + cut, left, height - cut, width)]
        else:
            cut = rng.randrange(1, width)
            door = top + rng.randrange(height)
            for r in range(top, top + height):
                if r != door:
                    _open(walls, size, (r, left + cut - 1), (r, left + cut), "1")
            regions += [(top, left, height, cut), (top, left + cut, height, width - cut)]
    return walls


BUILDERS = {"backtracker": _backtracker, "kruskal": _kruskal, "prim": _prim, "braided": _braided,
            "rooms": _rooms}


def family_walls(family: str, size: int, seed: int) -> tuple[str, str]:
    """The (horizontal, vertical) walls of a ``family`` maze (see the module), for a size and a seed."""
    rng = random.Random(f"verify-maze-{family}-{size}-{seed}")
    horizontal, vertical = BUILDERS[family](size, rng)
    return "".join(horizontal), "".join(vertical)


def _farthest(maze: Maze, origin: Cell) -> Cell:
    dist = maze.distances_from(origin)
    cells = ((r, c) for r in range(maze.size) for c in range(maze.size))
    return max(cells, key=lambda cell: (dist[cell[0]][cell[1]], cell))


def longest_path_ends(maze: Maze) -> tuple[Cell, Cell]:
    """Two cells as far apart as any in the maze (approximately, for a maze with loops)."""
    start = _farthest(maze, (0, 0))
    return start, _farthest(maze, start)
