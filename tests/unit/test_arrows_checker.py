"""The checker and the stream judge: the first error, named with numbers and cells."""
import pytest
from arrows_reference import PUZZLE_1, PUZZLE_2, SOLUTION_1, SOLUTION_2

from verify.contests.arrows.checker import check_solution, first_error
from verify.contests.arrows.judge import ArrowsJudge
from verify.contests.arrows.model import parse_text
from verify.verdict import Status

P1 = PUZZLE_1.in_notation("english")
S1 = SOLUTION_1.in_notation("english")
S1_TEXT = "3\n1SE 3SW 8S\n4S 2N 7N\n5E 6NE 9\n"


def numbers_with(solution, **changes):
    """The solution's numbers with cells (named r<row>c<col>) set to new values."""
    numbers = list(solution.numbers)
    for name, value in changes.items():
        row, col = int(name[1]), int(name[3])
        numbers[solution.cell(row, col)] = value
    return numbers


def test_the_spec_solutions_pass():
    assert check_solution(PUZZLE_1, SOLUTION_1) is None
    assert check_solution(PUZZLE_2, SOLUTION_2) is None


def test_swapped_numbers_break_the_chain_at_the_first_k():
    # swap 5 and 6 of SOLUTION_1: 4 at (1,0) points S; 5 is now at (2,1), off that ray
    numbers = numbers_with(S1, r2c0=6, r2c1=5)
    assert first_error(P1, S1.arrows, numbers) == "5 at (2,1) is not on the S ray of 4 at (1,0)"


def test_dutch_puzzle_names_its_rays_in_dutch():
    numbers = numbers_with(SOLUTION_2, r0c3=4, r0c4=5)   # 3 at (0,1) points O, 4 now at (0,3): fine;
    # 4 at (0,3) points W: 5 at (0,4) is not on it
    assert first_error(PUZZLE_2, SOLUTION_2.arrows, numbers) == "5 at (0,4) is not on the W ray of 4 at (0,3)"


def test_a_number_twice():
    numbers = numbers_with(S1, r1c2=8)
    assert first_error(P1, S1.arrows, numbers) == "8 appears twice, at (0,2) and (1,2)"


def test_a_number_out_of_range():
    numbers = numbers_with(S1, r1c1=0)
    assert first_error(P1, S1.arrows, numbers) == "0 at (1,1) is out of range 1..9"


def test_a_changed_given():
    numbers = numbers_with(SOLUTION_2, r3c0=16, r2c1=17)
    assert first_error(PUZZLE_2, SOLUTION_2.arrows, numbers) == "the given 17 at (3,0) was changed to 16"


def test_a_changed_arrow_comes_first():
    arrows = list(S1.arrows)
    arrows[S1.cell(1, 1)] = 0  # N -> N is the same; use E
    arrows[S1.cell(1, 1)] = 2
    numbers = numbers_with(S1, r0c0=2)
    assert first_error(P1, arrows, numbers) == "the arrow at (1,1) was N, the board has E"


def test_the_last_cell_must_end_the_path():
    # a 2x2 board: 1 at (0,0) E, (0,1) SW, (1,0) E, last cell (1,1)
    puzzle = parse_text("2\n1E 0SW\n0E 4\n")
    solution = [1, 2, 3, 4]
    assert first_error(puzzle, puzzle.arrows, solution) is None
    assert first_error(puzzle, puzzle.arrows, [1, 3, 2, 4]) == "2 at (1,0) is not on the E ray of 1 at (0,0)"
    # 1x3, the arrowless cell in the middle: 1 W-ward from the right end, then stuck on it
    line = parse_text("1 3\n0E 0 0W\n")
    assert first_error(line, line.arrows, [1, 3, 2]) is None
    assert first_error(line, line.arrows, [3, 2, 1]) == (
        "2 at (0,1) is on the cell without an arrow, which must hold 3")


def test_wrong_shape():
    other = parse_text("2\n1E 0SW\n0E 4\n")
    assert check_solution(P1, other) == "the board is 2x2, the puzzle 3x3"


# ----- the stream judge -----

def judge(output, puzzle=P1, notation="english", chunk=None):
    j = ArrowsJudge(puzzle, notation)
    data = output.encode() if isinstance(output, str) else output
    pieces = [data] if chunk is None else [data[i:i + chunk] for i in range(0, len(data), chunk)]
    for piece in pieces:
        verdict = j.feed(piece)
        if verdict is not None:
            return verdict
    return j.finish()


@pytest.mark.parametrize("output", [
    S1_TEXT,
    S1_TEXT[2:],                                  # no size line
    S1_TEXT.replace("\n", "\r\n"),                # CR LF
    S1_TEXT.rstrip("\n"),                         # no final newline
    S1_TEXT.replace(" ", "  ") + "\n\n",           # runs of spaces, blank lines at the end
    "3 3\n" + S1_TEXT[2:],                        # size as rows and columns
])
def test_accepted_forms(output):
    assert judge(output).status is Status.ACCEPTED


@pytest.mark.parametrize("chunk", [1, 2, 5])
def test_chunking_does_not_matter(chunk):
    assert judge(S1_TEXT, chunk=chunk).accepted
    broken = S1_TEXT.replace("5E 6NE", "6E 5NE")
    assert judge(broken, chunk=chunk).message == "5 at (2,1) is not on the S ray of 4 at (1,0)"


@pytest.mark.parametrize("output, message", [
    ("", "no board printed"),
    ("3\n1SE 3SW 8S\n", "the board ended after 1 of 3 rows"),
    ("4\n" + S1_TEXT[2:], "line 1: the size line says 4x4, the board is 3x3"),
    (S1_TEXT + "extra\n", "line 5: more than 3 rows"),
    ("3\n1SE 3SW\n", "line 2: expected 3 cells, got 2"),
    ("3\n1SE 3SW 8S\n4S 2N 7Q\n", "line 3, column 7: unknown arrow 'Q' (english names"),
    ("3\n1SE 3SW 8S\n4S 2N N7\n", "line 3, column 7: 'N7' is not a cell"),
    ("3\n1SE 3SW 8S\n4S 2N 7N\n5E 6NE 9\xe9\n".encode("latin-1"), "line 4: not ASCII text"),
    ("3\n1ZO 3ZW 8Z\n4Z 2N 7N\n5O 6NO 9\n", "line 2, column 1: unknown arrow 'ZO'"),
])
def test_presentation_errors(output, message):
    verdict = judge(output)
    assert verdict.status is Status.PRESENTATION
    assert message in verdict.message


def test_dutch_entry_prints_dutch():
    assert judge("3\n1ZO 3ZW 8Z\n4Z 2N 7N\n5O 6NO 9\n", notation="dutch").accepted


def test_an_endless_line_is_stopped_early_with_memory_bounded():
    j = ArrowsJudge(P1, "english")
    verdict = None
    for _ in range(100):
        verdict = j.feed(b"1" * 1000)
        if verdict is not None:
            break
    assert verdict is not None and verdict.status is Status.PRESENTATION
    assert "longer than" in verdict.message
    assert len(j.pending) < 2000


def test_endless_blank_lines_are_garbage():
    verdict = judge(S1_TEXT + "\n" * 2000)
    assert verdict.status is Status.PRESENTATION
    assert verdict.message == "line 1005: more than 1000 blank lines"


def test_a_wrong_answer_is_wrong_not_presentation():
    verdict = judge(S1_TEXT.replace("4S 2N", "2S 4N"))
    assert verdict.status is Status.WRONG
    assert verdict.message == "2 at (1,0) is not on the SE ray of 1 at (0,0)"
