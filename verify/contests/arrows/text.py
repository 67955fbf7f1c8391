"""The contest's text format of a board, written: what :meth:`.model.Puzzle.to_text` returns and
what the quick ``verify gen arrows`` prints (this module imports nothing, so that one starts fast).

The first line is the size (``N`` for a square board, ``R C`` for rows then columns), then one
line per row, cells separated by single spaces, each cell its number (0 when not given) directly
followed by its arrow's name (nothing for the last cell).
"""
from __future__ import annotations

TYPE_CHECKING = False     # (typing.TYPE_CHECKING without importing typing: the quick command imports this)
if TYPE_CHECKING:
    from collections.abc import Sequence

# the arrows' names by direction index, clockwise from north
NOTATIONS: dict[str, tuple[str, ...]] = {
    "english": ("N", "NE", "E", "SE", "S", "SW", "W", "NW"),
    "dutch": ("N", "NO", "O", "ZO", "Z", "ZW", "W", "NW"),
}
NO_ARROW = -1  # the direction of the last cell


def board_text(rows: int, cols: int, arrows: Sequence[int], numbers: Sequence[int], notation: str) -> str:
    """The board in the text format, ending with a newline."""
    names = (*NOTATIONS[notation], "")       # index -1 (NO_ARROW): no name
    lines = [str(rows) if rows == cols else f"{rows} {cols}"]
    for row in range(rows):
        cells = range(row * cols, (row + 1) * cols)
        lines.append(" ".join(f"{numbers[cell]}{names[arrows[cell]]}" for cell in cells))
    return "\n".join(lines) + "\n"
