"""Fog of war: what a solver is shown at each step (pure, no I/O).

Rule (spec, "Interpretations"): exactly the walls bordering cells the solver
has visited, the current cell included, are revealed; revealed walls stay
revealed; every other wall is ``?``. The view is the maze format with those
strings, then the current location and the comma-separated valid moves
(computed from the true walls, in reading order: up, left, right, down).

Cost: the first five lines live in one mutable ``bytearray``; visiting a new
cell writes at most its 4 wall characters in place. The bytes handed to the
solver are a snapshot of that buffer taken only when it changed (a revisit
costs nothing), plus the two short lines that always change.
"""
from __future__ import annotations

from verify.contests.maze.model import Cell, Maze, format_cell


class FogOfWar:
    def __init__(self, maze: Maze):
        self.maze = maze
        n = maze.size
        length = n * (n - 1)
        header = f"{n}\n{format_cell(maze.start)}\n{format_cell(maze.end)}\n".encode()
        self._h = len(header)                 # offset of the horizontal string in the buffer
        self._v = self._h + length + 1        # offset of the vertical string
        self._buffer = bytearray(header + b"?" * length + b"\n" + b"?" * length + b"\n")
        self._true_h = maze.horizontal.encode()
        self._true_v = maze.vertical.encode()
        self._visited = bytearray(n * n)
        self._snapshot: bytes | None = None
        # per cell: (valid moves, the two last lines, {"r c": move}); the maze never changes
        self._here: dict[Cell, tuple[list[Cell], bytes, dict[str, Cell]]] = {}
        self.position: Cell = maze.start
        self.visited_count = 0
        self._reveal(maze.start)

    # -- state -------------------------------------------------------------------
    def move_to(self, cell: Cell) -> None:
        """The solver is now at ``cell`` (one of :meth:`valid_moves`, checked by the caller)."""
        self.position = cell
        self._reveal(cell)

    def visited(self, cell: Cell) -> bool:
        return bool(self._visited[cell[0] * self.maze.size + cell[1]])

    def valid_moves(self) -> list[Cell]:
        return self.here()[0]

    def here(self) -> tuple[list[Cell], bytes, dict[str, Cell]]:
        """The valid moves from the current cell, the location and moves lines, and
        each move keyed by its exact text (cached per cell: computed once)."""
        entry = self._here.get(self.position)
        if entry is None:
            moves = self.maze.moves_from(self.position)
            texts = [format_cell(m) for m in moves]
            tail = f"{format_cell(self.position)}\n{','.join(texts)}\n".encode()
            entry = self._here[self.position] = (moves, tail, dict(zip(texts, moves, strict=True)))
        return entry

    def _reveal(self, cell: Cell) -> None:
        n = self.maze.size
        r, c = cell
        if self._visited[r * n + c]:
            return
        self._visited[r * n + c] = 1
        self.visited_count += 1
        buffer, true_h, true_v = self._buffer, self._true_h, self._true_v
        if r > 0:
            i = (r - 1) * n + c
            buffer[self._h + i] = true_h[i]
        if r < n - 1:
            i = r * n + c
            buffer[self._h + i] = true_h[i]
        if c > 0:
            i = r * (n - 1) + c - 1
            buffer[self._v + i] = true_v[i]
        if c < n - 1:
            i = r * (n - 1) + c
            buffer[self._v + i] = true_v[i]
        self._snapshot = None

    # -- what the solver reads ------------------------------------------------------
    @property
    def horizontal(self) -> str:
        n = self.maze.size
        return self._buffer[self._h:self._h + n * (n - 1)].decode()

    @property
    def vertical(self) -> str:
        n = self.maze.size
        return self._buffer[self._v:self._v + n * (n - 1)].decode()

    def view(self) -> bytes:
        """The 7-line state for the current step."""
        if self._snapshot is None:
            self._snapshot = bytes(self._buffer)
        return self._snapshot + self.here()[1]
