"""The maze format, validation and drawings, read like the spec's examples."""
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.contests.maze.model import ANY_SIZE, Maze, MazeFormatError, manhattan, parse_maze, wall_index
from verify.contests.maze.render import draw
from verify.errors import InputError

SPEC_5X5 = "5\n4 2\n0 2\n00001011101110001100\n10100110000100010010\n"
SPEC_5X5_PICTURE = """\
   0 1 2 3 4
   _________
0 | |  E|  _|
1 |  _|_|_  |
2 |_ _ _  | |
3 |  _ _  | |
4 |____S|___|
start:(4,2)
end:(0,2)
"""
# The spec's 3x3 example gives only the walls; start and end are ours.
SPEC_3X3 = "3\n1 1\n0 2\n010010\n011001\n"   # E to C: E-F-C


def test_spec_5x5_parses_and_prints_back_identically():
    maze = parse_maze(SPEC_5X5, ANY_SIZE)
    assert (maze.size, maze.start, maze.end) == (5, (4, 2), (0, 2))
    assert maze.to_text() == SPEC_5X5


def test_spec_5x5_draws_as_the_spec_picture():
    assert draw(parse_maze(SPEC_5X5, ANY_SIZE)) == SPEC_5X5_PICTURE


def test_spec_3x3_walls_are_where_the_picture_puts_them():
    # A   B | C        vertical AB BC DE EF GH HI = 011001
    #    ---
    # D | E   F        horizontal AD BE CF DG EH FI = 010010
    #    ---
    # G   H | I
    maze = parse_maze(SPEC_3X3, ANY_SIZE)
    assert maze.to_text() == SPEC_3X3
    cell = {name: divmod(index, 3) for index, name in enumerate("ABCDEFGHI")}
    walls = {"BC", "DE", "HI", "BE", "EH"}
    for pair in ["AB", "BC", "DE", "EF", "GH", "HI", "AD", "BE", "CF", "DG", "EH", "FI"]:
        assert maze.wall_between(cell[pair[0]], cell[pair[1]]) == (pair in walls), pair
    assert maze.wall_count == 5


def test_wall_indices_follow_the_spec():
    assert wall_index(5, (3, 1), (4, 1)) == ("h", 16)
    assert wall_index(5, (4, 2), (4, 1)) == ("v", 17)
    with pytest.raises(ValueError):
        wall_index(5, (0, 0), (1, 1))


def test_moves_are_in_reading_order():
    maze = parse_maze(SPEC_5X5, ANY_SIZE)
    assert maze.moves_from((4, 1)) == [(4, 0), (4, 2)]
    assert maze.moves_from((2, 1)) == [(2, 0), (2, 2)]


def test_distances_walls_and_shortest_path():
    maze = parse_maze(SPEC_5X5, ANY_SIZE)
    assert maze.manhattan == manhattan((4, 2), (0, 2)) == 4
    assert maze.wall_count == 16
    assert maze.score_denominator == 16
    path = maze.shortest_path()
    assert path[0] == (4, 2) and path[-1] == (0, 2) and len(path) - 1 == 14
    for a, b in pairwise(path):
        assert manhattan(a, b) == 1 and not maze.wall_between(a, b)


@pytest.mark.parametrize("text, message", [
    ("", "the width line is missing"),
    ("5\n4 2\n0 2\n", "the horizontal walls line is missing"),
    ("x\n4 2\n0 2\n00001011101110001100\n10100110000100010010\n", "line 1 (width): width 'x'"),
    ("5\n4\n0 2\n00001011101110001100\n10100110000100010010\n", "line 2 (start cell): expected 'row column'"),
    ("5\n4 2\n0 5\n00001011101110001100\n10100110000100010010\n", "line 3 (end cell): cell (0,5) is outside"),
    ("5\n4 2\n4 2\n00001011101110001100\n10100110000100010010\n", "line 3 (end cell): end cell (4,2) is the start"),
    ("5\n4 2\n0 2\n0000101110111000110\n10100110000100010010\n", "line 4 (horizontal walls): expected 20 characters"),
    ("5\n4 2\n0 2\n00001011101110001100\n1010011000010001001x\n", "line 5 (vertical walls): character 19 is 'x'"),
    ("5\n4 2\n0 2\n11111111111111111111\n10100110000100010010\n", "cannot be reached from the start (4,2)"),
    (SPEC_5X5 + "extra\n", "6 lines"),
    ("5\n-1 2\n0 2\n00001011101110001100\n10100110000100010010\n", "line 2 (start cell): row '-1'"),
])
def test_bad_mazes_name_the_line_and_the_problem(text, message):
    with pytest.raises(MazeFormatError) as caught:
        parse_maze(text, ANY_SIZE)
    assert message in str(caught.value)
    assert isinstance(caught.value, InputError)


def test_contest_range_and_requested_size():
    with pytest.raises(MazeFormatError, match=r"line 1 \(width\): width 5 is outside 15..50"):
        parse_maze(SPEC_5X5)
    with pytest.raises(MazeFormatError, match="width 5 but the maze asked for is 6x6"):
        parse_maze(SPEC_5X5, ANY_SIZE, expected_size=6)
    assert parse_maze(SPEC_5X5, range(5, 6)).size == 5


def test_crlf_trailing_blank_lines_and_bytes_are_accepted():
    assert parse_maze(SPEC_5X5.replace("\n", "\r\n") + "\n\n", ANY_SIZE).to_text() == SPEC_5X5
    assert parse_maze(SPEC_5X5.encode(), ANY_SIZE).to_text() == SPEC_5X5
    with pytest.raises(MazeFormatError, match=r"line 5 \(vertical walls\): character 3 is 'é'"):
        parse_maze(SPEC_5X5.replace("10100", "101\xe90").encode("latin-1"), ANY_SIZE)


def test_drawing_marks_solver_path_and_fog():
    maze = parse_maze(SPEC_5X5, ANY_SIZE)
    picture = draw(maze, position=(4, 0), visited=[(4, 2), (4, 1), (4, 0)],
                   horizontal="?" * 15 + "?11??", vertical="?" * 16 + "001?")
    rows = picture.splitlines()
    assert rows[2] == "0 |????E????|"
    assert rows[5] == "3 |??_?_????|"      # the two known walls above row 4
    assert rows[6] == "4 |@_._S|_?_|"


def test_big_mazes_get_two_header_lines():
    n = 12
    maze = Maze(n, (0, 0), (n - 1, n - 1), "0" * n * (n - 1), "0" * n * (n - 1))
    rows = draw(maze).splitlines()
    assert rows[0].strip().startswith("1 1")
    assert rows[1].strip().startswith("0 1 2")
    assert rows[3].startswith(" 0 |S")


@st.composite
def random_mazes(draw_from):
    n = draw_from(st.integers(2, 8))
    bits = st.text(alphabet="01", min_size=n * (n - 1), max_size=n * (n - 1))
    start = draw_from(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)))
    end = draw_from(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda e: e != start))
    return Maze(n, start, end, draw_from(bits), draw_from(bits))


@settings(deadline=None, max_examples=150)
@given(random_mazes())
def test_text_round_trip_or_unreachable(maze):
    path = maze.shortest_path()
    if path is None:
        with pytest.raises(MazeFormatError, match="cannot be reached"):
            parse_maze(maze.to_text(), ANY_SIZE)
    else:
        assert parse_maze(maze.to_text(), ANY_SIZE) == maze
        assert len(path) - 1 >= maze.manhattan


def test_the_bundled_spec_examples_are_the_spec_texts():
    from pathlib import Path
    folder = Path(__file__).resolve().parents[2] / "testcases" / "maze"
    assert (folder / "spec-5x5.txt").read_text() == SPEC_5X5
    assert (folder / "spec-3x3.txt").read_text() == SPEC_3X3
