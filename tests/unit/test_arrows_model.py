"""The puzzle model: every fact of the spec's reference data, parsing and writing."""
import pytest
from arrows_reference import PUZZLE_1, PUZZLE_1_CONTEST_TEXT, PUZZLE_2, SOLUTION_1, SOLUTION_2
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.contests.arrows.checker import path_of
from verify.contests.arrows.generator import board_of_path, random_path
from verify.contests.arrows.model import NO_ARROW, NOTATIONS, STEPS, Puzzle, parse_lists, parse_puzzle, parse_text
from verify.errors import InputError


def cells(puzzle, *coords):
    return [puzzle.cell(r, c) for r, c in coords]


# ----- the spec's facts -----

@pytest.mark.parametrize("english, dutch, step", [
    ("N", "N", (-1, 0)), ("NE", "NO", (-1, 1)), ("E", "O", (0, 1)), ("SE", "ZO", (1, 1)),
    ("S", "Z", (1, 0)), ("SW", "ZW", (1, -1)), ("W", "W", (0, -1)), ("NW", "NW", (-1, -1)),
])
def test_the_direction_table(english, dutch, step):
    direction = NOTATIONS["english"].index(english)
    assert NOTATIONS["dutch"][direction] == dutch
    assert STEPS[direction] == step
    # a 3x3 board whose centre points that way: its ray is the one cell one step away
    last = 8 if english == "NW" else 0   # the arrowless cell, kept off the centre's ray
    arrows = ["N"] * 9
    arrows[4], arrows[last] = english, ""
    names = [f"{'9' if a == '' else '0'}{a}" for a in arrows]
    board = parse_text("3\n" + "\n".join(" ".join(names[r * 3:r * 3 + 3]) for r in range(3)) + "\n")
    assert board.ray(4) == [board.cell(1 + step[0], 1 + step[1])]


def test_ray_from_the_corner_of_puzzle_1():
    assert PUZZLE_1.ray(PUZZLE_1.cell(0, 0)) == cells(PUZZLE_1, (1, 1), (2, 2))


def test_ray_from_the_top_right_of_puzzle_1():
    assert PUZZLE_1.ray(PUZZLE_1.cell(0, 2)) == cells(PUZZLE_1, (1, 2), (2, 2))


def test_ray_from_17_of_puzzle_2():
    assert PUZZLE_2.ray(PUZZLE_2.cell(3, 0)) == cells(PUZZLE_2, (2, 0), (1, 0), (0, 0))


def test_the_last_cell_has_no_ray():
    for puzzle in (PUZZLE_1, PUZZLE_2):
        assert puzzle.arrows[puzzle.last_cell] == NO_ARROW
        assert puzzle.ray(puzzle.last_cell) == []


def test_candidates_for_2_in_puzzle_2():
    assert PUZZLE_2.candidates(cells(PUZZLE_2, (0, 0))) == cells(PUZZLE_2, (1, 0), (2, 0), (4, 0))


def test_no_candidates_after_a_dead_end_path():
    assert PUZZLE_2.candidates(cells(PUZZLE_2, (0, 0), (4, 0), (4, 1))) == []


def test_a_given_next_number_is_the_only_candidate_when_on_the_ray():
    # 16 of SOLUTION_2 is at (2,1); from there the ray SW holds (3,0), where 17 is given
    path = path_of(SOLUTION_2)[:16]
    assert PUZZLE_2.candidates(path) == cells(PUZZLE_2, (3, 0))


def test_a_given_next_number_off_the_ray_leaves_no_candidate():
    # from 1 at (0,0) pointing S, a path of 16 cells ending at (0,1) (E ray) cannot reach 17 at (3,0)
    path = path_of(SOLUTION_2)[:15] + [PUZZLE_2.cell(0, 1)]
    assert PUZZLE_2.ray(path[-1]) == cells(PUZZLE_2, (0, 2), (0, 3), (0, 4))
    assert PUZZLE_2.candidates(path) == []


def test_candidates_skip_cells_holding_later_given_numbers():
    # from (2,0) pointing N... the ray of (4,0) is E: (4,1) (4,2) (4,3) (4,4)=25 given
    path = cells(PUZZLE_2, (0, 0), (4, 0))
    assert PUZZLE_2.candidates(path) == cells(PUZZLE_2, (4, 1), (4, 2), (4, 3))


def test_path_of_solution_1():
    assert path_of(SOLUTION_1) == cells(SOLUTION_1, (0, 0), (1, 1), (0, 1), (1, 0), (2, 0),
                                        (2, 1), (1, 2), (0, 2), (2, 2))


def test_solutions_keep_the_puzzles_arrows():
    assert SOLUTION_1.arrows == PUZZLE_1.arrows
    assert SOLUTION_2.arrows == PUZZLE_2.arrows


# ----- formats -----

def test_puzzle_1_in_the_contest_format():
    assert PUZZLE_1.in_notation("english").to_text() == PUZZLE_1_CONTEST_TEXT
    assert parse_text(PUZZLE_1_CONTEST_TEXT) == PUZZLE_1.in_notation("english")


def test_dutch_is_recognised_and_written_back_in_dutch():
    assert PUZZLE_2.notation == "dutch"
    text = PUZZLE_2.to_text()
    assert text.splitlines()[1] == "1Z 0O 0ZO 0W 0W"
    assert parse_text(text) == PUZZLE_2


def test_list_form_round_trip():
    assert parse_lists(PUZZLE_2.to_list_text()) == PUZZLE_2
    assert parse_puzzle(SOLUTION_1.to_list_text()) == SOLUTION_1


def test_non_square_board_has_two_numbers_in_its_size_line():
    puzzle = parse_text("2 3\n1E 0E 0SW\n0E 0E 6\n")
    assert (puzzle.rows, puzzle.cols) == (2, 3)
    assert puzzle.to_text() == "2 3\n1E 0E 0SW\n0E 0E 6\n"
    assert puzzle.ray(puzzle.cell(0, 2)) == [puzzle.cell(1, 1)]


def test_square_board_written_with_two_numbers_is_read():
    assert parse_text("3 3\n1SE 0SW 0S\n0S 0N 0N\n0E 0NE 9\n").to_text() == PUZZLE_1_CONTEST_TEXT


@pytest.mark.parametrize("text, message", [
    ("", "empty input"),
    ("x\n", "line 1: expected the board size"),
    ("3\n1SE 0SW 0S\n0S 0N 0N\n", "expected 3 rows after the size line, got 2"),
    ("3\n1SE 0SW 0S\n0S 0N  0N\n0E 0NE 9\n", "line 3: expected 3 cells separated by single spaces"),
    ("3\n1SE 0SW 0S\n0S 0Q 0N\n0E 0NE 9\n", "line 3, column 4: unknown arrow 'Q'"),
    ("3\n1SE 0SW 0S\n0S 0N N\n0E 0NE 9\n", "line 3, column 7: cell 'N' is not a number"),
    ("3\n1SE 0SW 0S\n0S 0N 0N\n0E 0NE 0N\n", "exactly one cell must have no arrow, found 0"),
    ("3\n1SE 1SW 0S\n0S 0N 0N\n0E 0NE 9\n", "number 1 is given twice, at (0,0) and (0,1)"),
    ("3\n1SE 0SW 0S\n0S 0N 0N\n0E 0NE 10\n", "number 10 at (2,2) is out of range 1..9"),
    ("3\n1SE 0SW 9S\n0S 0N 0N\n0E 0NE 0\n", "9 at (0,2) has an arrow"),
    ("3\n1SE 0ZW 0S\n0S 0N 0N\n0E 0NE 9\n", "arrows mix English (E) and Dutch (ZW)"),
])
def test_bad_puzzles_name_the_line_and_column(text, message):
    with pytest.raises(InputError) as error:
        parse_text(text)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_bad_list_form_names_the_cell():
    with pytest.raises(InputError, match=r"row 1, cell 0: expected \[number, arrow\]"):
        parse_lists('[[[1, "E"], [0, ""]], [["x", "N"], [0, "N"]]]')


# ----- round trips on random boards -----

@settings(deadline=None, max_examples=40)
@given(rows=st.integers(1, 7), cols=st.integers(2, 7), seed=st.integers(0, 10_000),
       dutch=st.booleans(), data=st.data())
def test_write_then_read_is_identity(rows, cols, seed, dutch, data):
    import random
    full = board_of_path(rows, cols, random_path(rows, cols, random.Random(seed)),
                         "dutch" if dutch else "english")
    keep = data.draw(st.lists(st.booleans(), min_size=full.size, max_size=full.size))
    numbers = [n if k or n == full.size else 0 for n, k in zip(full.numbers, keep, strict=True)]
    puzzle = full.with_numbers(numbers)
    assert parse_text(puzzle.to_text(), puzzle.notation) == puzzle
    assert parse_lists(puzzle.to_list_text(), puzzle.notation) == puzzle
    assert parse_text(puzzle.to_text()).arrows == puzzle.arrows


def test_boards_of_one_cell_are_refused():
    with pytest.raises(InputError, match="at least 2 cells"):
        parse_text("1\n1\n")


def test_puzzle_is_a_value():
    assert isinstance(hash(PUZZLE_1), int)
    assert PUZZLE_1 == Puzzle(PUZZLE_1.rows, PUZZLE_1.cols, PUZZLE_1.arrows, PUZZLE_1.numbers, "dutch")
