"""The maze itself (pure, no I/O): cells, walls, the text format, distances.

Format (one item per line): width; start ``row col``; end ``row col``;
horizontal walls; vertical walls. For an N x N maze each wall string has
N*(N-1) characters over ``0``/``1``:

- horizontal wall between (r, c) and (r+1, c): index ``r*N + c``
- vertical wall between (r, c) and (r, c+1): index ``r*(N-1) + c``

Outer edges are always walls and are not written.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cached_property

from verify.errors import InputError

Cell = tuple[int, int]

#: The contest's size range. The parser takes it as a parameter so that the
#: spec's small examples (3x3, 5x5) and quick tests can use smaller mazes.
CONTEST_SIZES = range(15, 51)
ANY_SIZE = range(2, 1001)
MAX_MAZE_BYTES = 4 << 20
"""The most a maze file may hold (``verify maze check``): a 1000x1000 maze takes about 2 MiB."""

LINE_NAMES = ("width", "start cell", "end cell", "horizontal walls", "vertical walls")


class MazeFormatError(InputError):
    """A maze text that breaks the format; the message names the line and the problem."""

    def __init__(self, line: int | None, problem: str):
        self.line, self.problem = line, problem
        where = f"line {line} ({LINE_NAMES[line - 1]}): " if line else ""
        super().__init__(f"maze: {where}{problem}")


@dataclass(frozen=True)
class Maze:
    size: int
    start: Cell
    end: Cell
    horizontal: str   # '1' = wall between (r,c) and (r+1,c), index r*N+c
    vertical: str     # '1' = wall between (r,c) and (r,c+1), index r*(N-1)+c

    # -- walls -----------------------------------------------------------------
    def wall_between(self, a: Cell, b: Cell) -> bool:
        """Is there a wall between two orthogonally adjacent cells?"""
        kind, index = wall_index(self.size, a, b)
        return (self.horizontal if kind == "h" else self.vertical)[index] == "1"

    def moves_from(self, cell: Cell) -> list[Cell]:
        """Neighbours reachable in one step, in reading order (up, left, right, down)."""
        return open_neighbours(self.size, self.horizontal, self.vertical, cell)

    @cached_property
    def wall_count(self) -> int:
        """#walls of the score: the 1s in both strings (outer edges do not count)."""
        return self.horizontal.count("1") + self.vertical.count("1")

    @property
    def manhattan(self) -> int:
        """dist() of the score: |r1-r2| + |c1-c2| between start and end."""
        return manhattan(self.start, self.end)

    @property
    def score_denominator(self) -> int:
        """max(dist(start, end), #walls): what the solver's step count is divided by."""
        return max(self.manhattan, self.wall_count)

    # -- paths -----------------------------------------------------------------
    def distances_from(self, origin: Cell) -> list[list[int]]:
        """BFS distance from ``origin`` to every cell (-1 where unreachable)."""
        n = self.size
        dist = [[-1] * n for _ in range(n)]
        dist[origin[0]][origin[1]] = 0
        queue = deque([origin])
        while queue:
            cell = queue.popleft()
            here = dist[cell[0]][cell[1]]
            for r, c in self.moves_from(cell):
                if dist[r][c] < 0:
                    dist[r][c] = here + 1
                    queue.append((r, c))
        return dist

    def shortest_path(self, a: Cell | None = None, b: Cell | None = None) -> list[Cell] | None:
        """A shortest path from ``a`` (default start) to ``b`` (default end), both included; None if none."""
        a = self.start if a is None else a
        b = self.end if b is None else b
        dist = self.distances_from(b)
        if dist[a[0]][a[1]] < 0:
            return None
        path = [a]
        while path[-1] != b:
            here = path[-1]
            path.append(next(n for n in self.moves_from(here)
                             if dist[n[0]][n[1]] == dist[here[0]][here[1]] - 1))
        return path

    # -- text ------------------------------------------------------------------
    def to_text(self) -> str:
        return (f"{self.size}\n{self.start[0]} {self.start[1]}\n{self.end[0]} {self.end[1]}\n"
                f"{self.horizontal}\n{self.vertical}\n")


def manhattan(a: Cell, b: Cell) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def wall_index(n: int, a: Cell, b: Cell) -> tuple[str, int]:
    """Which string ('h' or 'v') and index hold the wall between adjacent cells a and b."""
    (r1, c1), (r2, c2) = sorted((a, b))
    if c1 == c2 and r2 == r1 + 1:
        return "h", r1 * n + c1
    if r1 == r2 and c2 == c1 + 1:
        return "v", r1 * (n - 1) + c1
    raise ValueError(f"cells {a} and {b} are not adjacent")


def open_neighbours(n: int, horizontal, vertical, cell: Cell) -> list[Cell]:
    """Moves from ``cell`` through walls that are ``0`` (works on str or bytes wall strings).

    Reading order: up, left, right, down. Anything but '0' (a wall, or '?' fog)
    blocks, so the same function answers for the true maze and for a fog view.
    """
    r, c = cell
    zero = "0" if isinstance(horizontal, str) else 48
    moves = []
    if r > 0 and horizontal[(r - 1) * n + c] == zero:
        moves.append((r - 1, c))
    if c > 0 and vertical[r * (n - 1) + c - 1] == zero:
        moves.append((r, c - 1))
    if c < n - 1 and vertical[r * (n - 1) + c] == zero:
        moves.append((r, c + 1))
    if r < n - 1 and horizontal[r * n + c] == zero:
        moves.append((r + 1, c))
    return moves


def format_cell(cell: Cell) -> str:
    return f"{cell[0]} {cell[1]}"


def _parse_int(text: str, line: int, what: str) -> int:
    if not text.isascii() or not text.isdigit():
        raise MazeFormatError(line, f"{what} {text!r} is not a non-negative integer")
    return int(text)


def _parse_cell(text: str, line: int, n: int) -> Cell:
    parts = text.split()
    if len(parts) != 2:
        raise MazeFormatError(line, f"expected 'row column', got {text.strip()!r}")
    r, c = (_parse_int(p, line, name) for p, name in zip(parts, ("row", "column"), strict=True))
    if not (r < n and c < n):
        raise MazeFormatError(line, f"cell ({r},{c}) is outside the {n}x{n} maze (rows and columns 0..{n - 1})")
    return r, c


def _parse_walls(text: str, line: int, n: int) -> str:
    bits = text.strip()
    if len(bits) != n * (n - 1):
        raise MazeFormatError(line, f"expected {n * (n - 1)} characters (N*(N-1) for N={n}), got {len(bits)}")
    for index, char in enumerate(bits):
        if char not in "01":
            raise MazeFormatError(line, f"character {index} is {char!r}, expected '0' or '1'")
    return bits


def parse_maze(text: str | bytes, sizes: range = CONTEST_SIZES, expected_size: int | None = None) -> Maze:
    """Read and validate a maze; raise :class:`MazeFormatError` naming the line.

    ``sizes`` is the accepted size range (the contest's 15..50 by default; the
    spec's examples need ``ANY_SIZE``); ``expected_size`` is the size an
    architect was asked for. Blank lines after the five are allowed, nothing else.
    """
    if isinstance(text, bytes):
        # one character per byte: every check below accepts ASCII digits only, so a
        # stray byte is reported on its line like any other wrong character
        text = text.decode("latin-1")
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()

    def line(number: int) -> str:
        if number > len(lines):
            raise MazeFormatError(None, f"only {len(lines)} line(s); the {LINE_NAMES[number - 1]} line is missing")
        return lines[number - 1]

    n = _parse_int(line(1).strip(), 1, "width")
    if expected_size is not None and n != expected_size:
        raise MazeFormatError(1, f"width {n} but the maze asked for is {expected_size}x{expected_size}")
    if n not in sizes:
        raise MazeFormatError(1, f"width {n} is outside {sizes.start}..{sizes.stop - 1}")
    start = _parse_cell(line(2), 2, n)
    end = _parse_cell(line(3), 3, n)
    if start == end:
        raise MazeFormatError(3, f"end cell ({end[0]},{end[1]}) is the start cell")
    horizontal, vertical = _parse_walls(line(4), 4, n), _parse_walls(line(5), 5, n)
    if len(lines) > 5:
        raise MazeFormatError(None, f"{len(lines)} lines; expected 5 (width, start, end, horizontal, vertical)")
    maze = Maze(n, start, end, horizontal, vertical)
    if maze.distances_from(start)[end[0]][end[1]] < 0:
        raise MazeFormatError(None, f"the end ({end[0]},{end[1]}) cannot be reached "
                                    f"from the start ({start[0]},{start[1]})")
    return maze
