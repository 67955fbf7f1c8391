"""The arrow-path (Signpost) puzzle: a pure model, no I/O.

A board is ``rows`` x ``cols`` cells in reading order (cell index
``row * cols + col``). Every cell but one carries an arrow (one of eight
compass directions); the arrowless cell is the last one, holding ``rows*cols``.
A cell may carry a given number (0 means none). A solution numbers every cell
1..N so that each k+1 lies on the ray from k's cell in k's arrow direction.

Two textual forms are read and written back identically:

* the contest's text format: first line the size (``N`` for a square board,
  ``R C`` for rows then columns), then one line per row, cells separated by
  single spaces, each cell its number (0 when not given) directly followed by
  its arrow (nothing for the last cell): ``1SE 0SW 0S``;
* the spec's list-of-rows form: ``[[[1, "ZO"], [0, "ZW"], ...], ...]``.

Arrows are read in English (N NE E SE S SW W NW) or Dutch (N NO O ZO Z ZW W
NW) names; a board remembers which and is written back in the same names.
Coordinates in messages are ``(row,col)``, counted from 0, as in the spec.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from verify.contests.arrows.text import NO_ARROW, NOTATIONS, board_text
from verify.errors import InputError

# (row step, column step) by direction index, clockwise from north.
STEPS: tuple[tuple[int, int], ...] = (
    (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1),
)

_DIRECTION_BY_NAME = {
    notation: {name: index for index, name in enumerate(names)}
    for notation, names in NOTATIONS.items()
}
CELL_PATTERN = re.compile(r"(\d+)([A-Za-z]*)")  # a cell token: its number, then its arrow
MAX_CELLS = 10_000  # far above any contest board; bounds memory of a hostile input
MAX_PUZZLE_BYTES = 1 << 20  # a puzzle file: 10,000 cells take about 100 KiB


class Contradiction(Exception):
    """Numbers or links that cannot all hold: no solution extends them (the solvers' signal)."""


def direction_name(direction: int, notation: str = "english") -> str:
    return "" if direction == NO_ARROW else NOTATIONS[notation][direction]


def _notation_of(names: Iterable[str], where: str) -> str:
    """The notation a set of arrow names is written in; names common to both read as English."""
    english, dutch = _DIRECTION_BY_NAME["english"], _DIRECTION_BY_NAME["dutch"]
    only_english = {n for n in names if n in english and n not in dutch}
    only_dutch = {n for n in names if n in dutch and n not in english}
    if only_english and only_dutch:
        raise InputError(f"{where}: arrows mix English ({sorted(only_english)[0]}) "
                         f"and Dutch ({sorted(only_dutch)[0]}) names")
    return "dutch" if only_dutch else "english"


@dataclass(frozen=True)
class Puzzle:
    """A board: arrows and numbers (given numbers, or a full numbering for a solution)."""

    rows: int
    cols: int
    arrows: tuple[int, ...]     # direction index per cell, NO_ARROW for the last cell
    numbers: tuple[int, ...]    # 0 where not given
    notation: str = "english"

    # ----- geometry -----
    @property
    def size(self) -> int:
        return self.rows * self.cols

    @property
    def last_cell(self) -> int:
        return self.arrows.index(NO_ARROW)

    def cell(self, row: int, col: int) -> int:
        return row * self.cols + col

    def where(self, cell: int) -> str:
        row, col = divmod(cell, self.cols)
        return f"({row},{col})"

    def arrow_name(self, cell: int) -> str:
        return direction_name(self.arrows[cell], self.notation)

    def ray(self, cell: int) -> list[int]:
        """The cells along the arrow from ``cell``, nearest first (none for the last cell)."""
        direction = self.arrows[cell]
        if direction == NO_ARROW:
            return []
        d_row, d_col = STEPS[direction]
        row, col = divmod(cell, self.cols)
        out = []
        row, col = row + d_row, col + d_col
        while 0 <= row < self.rows and 0 <= col < self.cols:
            out.append(row * self.cols + col)
            row, col = row + d_row, col + d_col
        return out

    def cell_of(self, number: int) -> int | None:
        try:
            return self.numbers.index(number)
        except ValueError:
            return None

    def candidates(self, path: Sequence[int]) -> list[int]:
        """Cells that may hold the next number after ``path`` (cells of 1, 2, ... k in order).

        When k+1 is given, its cell is the only candidate if it lies on the ray
        from k's cell (else there is none); otherwise the candidates are the
        cells on the ray that hold no given number and are not on the path.
        """
        number = len(path) + 1
        ray = self.ray(path[-1])
        given = self.cell_of(number)
        if given is not None:
            return [given] if given in ray else []
        used = set(path)
        return [c for c in ray if self.numbers[c] == 0 and c not in used]

    # ----- derived boards -----
    def with_numbers(self, numbers: Sequence[int]) -> Puzzle:
        return Puzzle(self.rows, self.cols, self.arrows, tuple(numbers), self.notation)

    def in_notation(self, notation: str) -> Puzzle:
        if notation not in NOTATIONS:
            raise InputError(f"unknown arrow notation {notation!r} (known: english, dutch)")
        return Puzzle(self.rows, self.cols, self.arrows, self.numbers, notation)

    @property
    def givens(self) -> int:
        return sum(1 for n in self.numbers if n)

    # ----- writing -----
    def to_text(self) -> str:
        """The contest's text format, ending with a newline."""
        return board_text(self.rows, self.cols, self.arrows, self.numbers, self.notation)

    def to_lists(self) -> list[list[list]]:
        return [[[self.numbers[c], self.arrow_name(c)]
                 for c in range(r * self.cols, (r + 1) * self.cols)] for r in range(self.rows)]

    def to_list_text(self) -> str:
        """The spec's list-of-rows form, one row per line."""
        rows = [json.dumps(row, ensure_ascii=False) for row in self.to_lists()]
        return "[" + ",\n ".join(rows) + "]\n"


# ----- reading -----

def _validate(rows: int, cols: int, arrows: list[int], numbers: list[int], where: str) -> None:
    size = rows * cols
    if size < 2:
        raise InputError(f"{where}: a board needs at least 2 cells")
    last = [i for i, a in enumerate(arrows) if a == NO_ARROW]
    if len(last) != 1:
        raise InputError(f"{where}: exactly one cell must have no arrow, found {len(last)}")
    seen: dict[int, int] = {}
    for cell, number in enumerate(numbers):
        if not number:
            continue
        row, col = divmod(cell, cols)
        if number > size:
            raise InputError(f"{where}: number {number} at ({row},{col}) is out of range 1..{size}")
        if number in seen:
            r0, c0 = divmod(seen[number], cols)
            raise InputError(f"{where}: number {number} is given twice, at ({r0},{c0}) and ({row},{col})")
        seen[number] = cell
    if size in seen and seen[size] != last[0]:
        row, col = divmod(seen[size], cols)
        raise InputError(f"{where}: {size} at ({row},{col}) has an arrow; "
                         "the last number belongs on the cell without one")
    if last[0] in seen and seen.get(size) != last[0]:
        row, col = divmod(last[0], cols)
        raise InputError(f"{where}: the cell without an arrow at ({row},{col}) "
                         f"must hold {size}, not {numbers[last[0]]}")


def parse_size(line: str, where: str = "line 1") -> tuple[int, int]:
    """The size line: ``N`` (square) or ``R C``."""
    parts = line.split()
    if not 1 <= len(parts) <= 2 or not all(p.isdigit() for p in parts):
        raise InputError(f"{where}: expected the board size, 'N' or 'ROWS COLS', got {line.strip()!r}")
    rows, cols = int(parts[0]), int(parts[-1])
    if rows < 1 or cols < 1 or rows * cols > MAX_CELLS:
        raise InputError(f"{where}: board size {rows}x{cols} is out of range (1..{MAX_CELLS} cells)")
    return rows, cols


def parse_cell(token: str, where: str) -> tuple[int, str]:
    """One cell token: its number and its arrow name (upper case, '' for none)."""
    match = CELL_PATTERN.fullmatch(token)
    if not match:
        raise InputError(f"{where}: cell {token!r} is not a number followed by an arrow, e.g. '0SE'")
    return int(match.group(1)), match.group(2).upper()


def _direction(name: str, notation: str, where: str) -> int:
    if name == "":
        return NO_ARROW
    try:
        return _DIRECTION_BY_NAME[notation][name]
    except KeyError:
        raise InputError(f"{where}: unknown arrow {name!r} "
                         f"({notation} names: {' '.join(NOTATIONS[notation])})") from None


def parse_row(line: str, cols: int, line_no: int) -> list[tuple[int, str, int]]:
    """One row of the text format: (number, arrow name, column) per cell, columns from 1."""
    tokens = line.split(" ")
    if len(tokens) != cols:
        raise InputError(f"line {line_no}: expected {cols} cells separated by single spaces, "
                         f"got {len([t for t in tokens if t])}" + (" (extra spaces)" if "" in tokens else ""))
    column = 1
    cells = []
    for token in tokens:
        number, name = parse_cell(token, f"line {line_no}, column {column}")
        cells.append((number, name, column))
        column += len(token) + 1
    return cells


def _build(rows: int, cols: int, cells: list[tuple[int, str, str]], notation: str | None,
           where: str) -> Puzzle:
    """cells: (number, arrow name, position text) in reading order."""
    if notation is None:
        notation = _notation_of({name for _, name, _ in cells if name}, where)
    arrows = [_direction(name, notation, pos) for _, name, pos in cells]
    numbers = [number for number, _, _ in cells]
    _validate(rows, cols, arrows, numbers, where)
    return Puzzle(rows, cols, tuple(arrows), tuple(numbers), notation)


def parse_text(text: str, notation: str | None = None, where: str = "puzzle") -> Puzzle:
    """Read the contest's text format (a trailing newline and trailing blank lines are allowed)."""
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and lines[-1].strip() == "":
        lines.pop()
    if not lines:
        raise InputError(f"{where}: empty input, expected the board size on line 1")
    rows, cols = parse_size(lines[0], f"{where}: line 1")
    if len(lines) - 1 != rows:
        raise InputError(f"{where}: expected {rows} rows after the size line, got {len(lines) - 1}")
    cells: list[tuple[int, str, str]] = []
    for line_no in range(2, rows + 2):
        try:
            parsed = parse_row(lines[line_no - 1], cols, line_no)
        except InputError as error:
            raise InputError(f"{where}: {error}") from None
        cells.extend((number, name, f"{where}: line {line_no}, column {column}")
                     for number, name, column in parsed)
    return _build(rows, cols, cells, notation, where)


def parse_lists(text_or_rows: str | list, notation: str | None = None, where: str = "puzzle") -> Puzzle:
    """Read the spec's list-of-rows form (a JSON-like list; the outer brackets may be omitted)."""
    if isinstance(text_or_rows, str):
        text = text_or_rows.strip()
        if not text.startswith("[[["):
            text = "[" + text + "]"
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(f"{where}: not a list of rows: line {error.lineno}, "
                             f"column {error.colno}: {error.msg}") from None
    else:
        data = text_or_rows
    if not isinstance(data, list) or not data or not all(isinstance(row, list) for row in data):
        raise InputError(f"{where}: expected a list of rows, each a list of [number, arrow] pairs")
    rows, cols = len(data), len(data[0])
    cells = []
    for r, row in enumerate(data):
        if len(row) != cols:
            raise InputError(f"{where}: row {r} has {len(row)} cells, row 0 has {cols}")
        for c, pair in enumerate(row):
            pos = f"{where}: row {r}, cell {c}"
            if (not isinstance(pair, list) or len(pair) != 2 or type(pair[0]) is not int
                    or pair[0] < 0 or not isinstance(pair[1], str)):
                raise InputError(f"{pos}: expected [number, arrow], got {json.dumps(pair)}")
            cells.append((pair[0], pair[1].upper(), pos))
    if rows * cols > MAX_CELLS:
        raise InputError(f"{where}: board of {rows}x{cols} is too large")
    return _build(rows, cols, cells, notation, where)


def parse_puzzle(text: str, notation: str | None = None, where: str = "puzzle") -> Puzzle:
    """Either form, told apart by the first non-blank character."""
    if text.lstrip().startswith("["):
        return parse_lists(text, notation, where)
    return parse_text(text, notation, where)
