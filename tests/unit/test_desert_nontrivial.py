"""The demo-map rule: S-E distance and the clear border around every water tile."""
import pytest

from verify.contests.desert.map import DesertMap
from verify.contests.desert.nontrivial import is_nontrivial, violations

SPEC_NONTRIVIAL = ("........2.\n..........\n..........\nS.1..2....\n..........\n"
                   "..........\n........1.\n..3.......\n.........E\n")


def test_the_spec_nontrivial_example_passes():
    assert violations(DesertMap.parse(SPEC_NONTRIVIAL)) == []


def _water_tiles(text):
    return [(r, c) for r, line in enumerate(text.splitlines()) for c, ch in enumerate(line) if ch.isdigit()]


@pytest.mark.parametrize("tile", _water_tiles(SPEC_NONTRIVIAL))
def test_raising_any_tile_by_one_makes_it_trivial_naming_that_tile(tile):
    lines = SPEC_NONTRIVIAL.splitlines()
    row, col = tile
    lines[row] = lines[row][:col] + str(int(lines[row][col]) + 1) + lines[row][col + 1:]
    found = violations(DesertMap.parse("\n".join(lines) + "\n"))
    assert found and all(v.tile == tile for v in found)
    assert str(found[0]).startswith(f"tile ({row},{col}) holding {int(SPEC_NONTRIVIAL.splitlines()[row][col]) + 1}: square")


def test_every_violation_is_listed_with_what_is_there():
    desert = DesertMap.parse("S1.......\n.........\n.......2.\n........E\n")
    assert [str(v) for v in violations(desert)] == [
        "tile (0,1) holding 1: square (0,0) within its border of width 1 is S",
        "tile (2,7) holding 2: square (3,8) within its border of width 2 is E",
    ]


def test_distance_is_manhattan_and_at_least_ten():
    assert is_nontrivial(DesertMap.parse("S........\n.........\n.........\n........E\n"))  # 11 moves
    found = violations(DesertMap.parse("S.......E\n"))
    assert [str(v) for v in found] == ["S (0,0) and E (0,8) are 8 moves apart (at least 10 needed)"]


def test_squares_outside_the_grid_are_ignored_and_water_counts_as_not_dot():
    assert is_nontrivial(DesertMap.parse("9.........\nS........E\n")) is False  # S is within 9
    # a 1 in the corner: its border is cut by the grid's edges, what remains is clear
    assert is_nontrivial(DesertMap.parse("1..........\n...........\nS.........E\n")) is True
    found = violations(DesertMap.parse("11.........\n...........\nS.........E\n"))
    assert [str(v) for v in found] == [
        "tile (0,0) holding 1: square (0,1) within its border of width 1 is water (1)",
        "tile (0,1) holding 1: square (0,0) within its border of width 1 is water (1)",
    ]
