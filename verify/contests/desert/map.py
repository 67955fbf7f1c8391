"""The desert map: a strict parser and an immutable model.

Squares are named ``(row, col)``, both 0-based, row 0 at the top.
"""
from __future__ import annotations

from dataclasses import dataclass

from verify.errors import InputError

MAP_CHARACTERS = frozenset(b"SE123456789.")
"""What an input map may hold on a line (besides the newline ending it)."""

MAX_MAP_BYTES = 1 << 20
"""The most bytes a map file may hold (a demo map, a test case, ``verify judge desert MAP``):
a 1000x1000 map fits."""

_SQUARE_BYTES = bytes(range(256)).translate(bytes.maketrans(bytes(range(10)), b".123456789"))

Square = tuple[int, int]


class MapError(InputError):
    """A malformed map: names the line and column (both 1-based, as editors count) and what was expected."""

    def __init__(self, line: int, column: int | None, problem: str, source: str = "map"):
        self.line, self.column, self.problem = line, column, problem
        where = f"line {line}" + (f", column {column}" if column is not None else "")
        super().__init__(f"{source}: {where}: {problem}")


@dataclass(frozen=True)
class DesertMap:
    """A valid map. ``water`` holds the units on each square, S and E hold 0 (S is infinite, see engine)."""

    width: int
    height: int
    start: Square
    end: Square
    water: tuple[tuple[int, ...], ...]

    @classmethod
    def parse(cls, text: str | bytes, source: str = "map", quote: bool = True) -> DesertMap:
        """Parse a map strictly: rectangular, one S, one E, only ``[SE1-9.]``, every line ending in ``\\n``.

        ``quote=False``: messages name the line and column of a wrong character but not the
        character itself (for files whose contents are not to be echoed)."""
        data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else bytes(text)
        if not data:
            raise MapError(1, None, "the map is empty (expected lines of S, E, 1-9 and .)", source)
        lines = data.split(b"\n")
        if lines[-1] != b"":
            raise MapError(len(lines), len(lines[-1]) + 1, "the last line does not end with a newline", source)
        lines.pop()
        width = len(lines[0])
        start = end = None
        rows = []
        for row, line in enumerate(lines):
            _check_row(line, row, width, source, quote)
            for col, byte in enumerate(line):
                if byte == ord("S"):
                    if start is not None:
                        raise MapError(row + 1, col + 1, f"a second S (the first is at line {start[0] + 1}, "
                                       f"column {start[1] + 1}; expected exactly one)", source)
                    start = (row, col)
                elif byte == ord("E"):
                    if end is not None:
                        raise MapError(row + 1, col + 1, f"a second E (the first is at line {end[0] + 1}, "
                                       f"column {end[1] + 1}; expected exactly one)", source)
                    end = (row, col)
            rows.append(tuple(byte - 48 if 49 <= byte <= 57 else 0 for byte in line))
        if start is None or end is None:
            missing = " and ".join(name for name, where in (("S", start), ("E", end)) if where is None)
            raise MapError(len(lines), None, f"no {missing} in the map (expected exactly one S and one E)", source)
        return cls(width, len(lines), start, end, tuple(rows))

    def __str__(self) -> str:
        return self.text()

    def text(self) -> str:
        """The map as the input gives it (every line ending in a newline)."""
        return "".join(row.decode("ascii") + "\n" for row in self.row_bytes())

    def row_bytes(self) -> list[bytes]:
        """Each row as the input gives it, without its newline: one pass over the squares."""
        rows = [bytes(units).translate(_SQUARE_BYTES) for units in self.water]
        for (row, col), mark in ((self.start, b"S"), (self.end, b"E")):
            rows[row] = rows[row][:col] + mark + rows[row][col + 1:]
        return rows

    def char(self, row: int, col: int) -> str:
        if (row, col) == self.start:
            return "S"
        if (row, col) == self.end:
            return "E"
        units = self.water[row][col]
        return str(units) if units else "."

    def contains(self, row: int, col: int) -> bool:
        return 0 <= row < self.height and 0 <= col < self.width

    @property
    def distance(self) -> int:
        """Manhattan distance from S to E (there are no walls)."""
        return abs(self.start[0] - self.end[0]) + abs(self.start[1] - self.end[1])

    def flat_water(self) -> bytearray:
        """The water of every square, row by row (index ``row * width + col``)."""
        return bytearray(units for row in self.water for units in row)


def _show(byte: int) -> str:
    if 32 <= byte < 127:
        return repr(chr(byte))
    return f"byte 0x{byte:02x}"


def _check_row(line: bytes, row: int, width: int, source: str, quote: bool) -> None:
    """MapError unless `line` (0-based `row`) is a row of `width` map characters."""
    if not line:
        raise MapError(row + 1, 1, "empty line (expected a map row of "
                       f"{width} characters over S, E, 1-9 and .)" if width else
                       "empty line (expected a map row over S, E, 1-9 and .)", source)
    for col, byte in enumerate(line):
        if byte not in MAP_CHARACTERS:
            shown = _show(byte) if quote else "this character"
            raise MapError(row + 1, col + 1, f"{shown} is not a map character "
                           "(expected S, E, 1-9 or .)", source)
    if len(line) != width:
        raise MapError(row + 1, min(len(line), width) + 1,
                       f"this row has {len(line)} characters, the first row has {width} "
                       "(the map must be rectangular)", source)
