"""Non-triviality of a demo map (the contest's rule for the map an entry is posted with).

- S and E are at least 10 moves apart (Manhattan distance: there are no walls);
- every square holding N units is surrounded by a border of width N (the ring of
  Chebyshev radius up to N around it) in which every square is ``.``: no water,
  not S, not E. Squares outside the grid are ignored.
"""
from __future__ import annotations

from dataclasses import dataclass

from verify.contests.desert.map import DesertMap, Square

MIN_DISTANCE = 10
MAX_VIOLATIONS = 1000
"""The most violations gathered: a hostile 1000x1000 map could break the rule ~360 million
times, so callers ask for at most this many and say when there are more."""


@dataclass(frozen=True)
class Violation:
    """One reason a map is trivial. ``tile`` is the water square whose border is broken
    (None for the distance rule), ``square`` the offending square, ``what`` what is there."""

    rule: str            # "distance" or "border"
    tile: Square | None
    units: int
    square: Square
    what: str

    def __str__(self) -> str:
        if self.rule == "distance" or self.tile is None:
            return self.what
        row, col = self.tile
        return (f"tile ({row},{col}) holding {self.units}: square ({self.square[0]},{self.square[1]}) "
                f"within its border of width {self.units} is {self.what}")


def violations(desert: DesertMap, limit: int | None = None) -> list[Violation]:
    """Every violation (the first ``limit`` when given), tiles in reading order, each tile's
    offending squares in reading order.

    Time: one look at each square, plus (2N+1)^2 for each tile of N units: a tile whose
    border is clear owns its square of radius N/2 alone, so clear tiles cost at most 9 looks
    per square of the map, and every other look finds a violation (at most ``limit`` of them)."""
    found: list[Violation] = []
    if desert.distance < MIN_DISTANCE:
        (start_row, start_col), (end_row, end_col) = desert.start, desert.end
        found.append(Violation("distance", None, 0, desert.end,
                               f"S ({start_row},{start_col}) and E ({end_row},{end_col}) are {desert.distance} "
                               f"moves apart (at least {MIN_DISTANCE} needed)"))
        if limit is not None and len(found) >= limit:
            return found
    for row in range(desert.height):
        for col in range(desert.width):
            units = desert.water[row][col]
            if not units:
                continue
            for other_row in range(max(0, row - units), min(desert.height, row + units + 1)):
                for other_col in range(max(0, col - units), min(desert.width, col + units + 1)):
                    if (other_row, other_col) == (row, col):
                        continue
                    what = _occupant(desert, other_row, other_col)
                    if what:
                        found.append(Violation("border", (row, col), units, (other_row, other_col), what))
                        if limit is not None and len(found) >= limit:
                            return found
    return found


def is_nontrivial(desert: DesertMap) -> bool:
    return not violations(desert, limit=1)


def _occupant(desert: DesertMap, row: int, col: int) -> str:
    if (row, col) == desert.start:
        return "S"
    if (row, col) == desert.end:
        return "E"
    units = desert.water[row][col]
    return f"water ({units})" if units else ""
