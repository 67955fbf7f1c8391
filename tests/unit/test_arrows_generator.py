"""The arrow-path generator: givens added until propagation alone solves the board, then
taken away while it still does (``hard``: while the full solver still proves it unique).
Every puzzle is unique, and its difficulty (search nodes) is reported."""
from __future__ import annotations

import random
import shutil

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.cli import main
from verify.contests.arrows import kernel
from verify.contests.arrows.generator import (
    Difficulty,
    Generated,
    board_of_path,
    generate,
    generate_puzzle,
    random_path,
)
from verify.contests.arrows.model import parse_text
from verify.contests.arrows.naive import naive_solutions
from verify.contests.arrows.solver import (
    Deduction,
    SearchBudgetExceeded,
    SolveStats,
    _transpose,
    count_solutions,
    deduces,
    geometry,
    solutions,
)
from verify.errors import InputError

SHAPES = [(1, 2), (2, 1), (3, 3), (4, 4), (2, 7), (5, 5), (6, 4), (7, 7)]


@pytest.mark.parametrize("rows, cols", SHAPES)
def test_every_puzzle_is_unique_and_solved_by_propagation_alone(rows, cols):
    for seed in range(6):
        generated = generate_puzzle(rows, cols, seed)
        puzzle = generated.puzzle
        found = solutions(puzzle, 2)
        assert [board.numbers for board in found] == [generated.solution.numbers], (rows, cols, seed)
        assert deduces(puzzle) and generated.nodes == 1 and generated.branches == 0
        size = rows * cols
        assert puzzle.numbers[puzzle.cell_of(1)] == 1 and puzzle.numbers[puzzle.last_cell] == size


@pytest.mark.parametrize("rows, cols, start_givens", [(4, 4, 0.0), (5, 5, 0.0), (3, 6, 0.0), (5, 5, 0.4), (6, 6, 0.3)])
def test_no_given_can_be_taken_away_and_still_leave_propagation_enough(rows, cols, start_givens):
    for seed in range(4):
        puzzle = generate(rows, cols, seed, difficulty=Difficulty(start_givens=start_givens))
        assert deduces(puzzle) and count_solutions(puzzle, 2) == 1
        size = puzzle.size
        for cell, number in enumerate(puzzle.numbers):
            if number and number not in (1, size):
                fewer = list(puzzle.numbers)
                fewer[cell] = 0
                assert not deduces(puzzle.with_numbers(fewer)), (seed, cell)


def test_uniqueness_agrees_with_the_naive_search():
    for seed in range(8):
        for hard in (False, True):
            puzzle = generate(4, 4, seed, difficulty=Difficulty(hard=hard))
            assert len(naive_solutions(puzzle, 2)) == 1
            assert naive_solutions(puzzle, 2) == solutions(puzzle, 2)


def test_hard_puzzles_have_no_more_givens_stay_unique_and_report_their_search():
    harder = 0
    for seed in range(6):
        easy = generate_puzzle(7, 7, seed)
        hard = generate_puzzle(7, 7, seed, difficulty=Difficulty(hard=True, max_nodes=30))
        assert hard.puzzle.givens <= easy.puzzle.givens
        assert hard.solution == easy.solution
        stats = SolveStats()
        assert len(solutions(hard.puzzle, 2, stats)) == 1
        assert (stats.nodes, stats.branches) == (hard.nodes, hard.branches)
        assert 1 <= hard.nodes <= 30
        harder += hard.nodes > 1
    assert harder >= 1            # taking givens beyond propagation leaves some search


def test_generation_is_deterministic_for_its_arguments():
    assert generate_puzzle(6, seed=11) == generate_puzzle(6, seed=11)
    assert generate(6, seed=11) != generate(6, seed=12)
    hard = Difficulty(hard=True)
    assert generate(5, seed=3, difficulty=hard) == generate(5, seed=3, difficulty=hard)
    assert generate(4, 5, seed=2, notation="dutch").notation == "dutch"
    assert isinstance(generate_puzzle(3, 3), Generated)


def test_the_fuzzers_arguments_still_work():
    dense = generate(5, 6, seed=9, difficulty=Difficulty(start_givens=0.5, minimize=False))
    assert count_solutions(dense, 2) == 1
    assert dense.givens >= generate(5, 6, seed=9).givens


@pytest.mark.parametrize("rows, cols, options", [(0, 3, {}), (1, 1, {}), (60, 60, {}), (3, 3, {"max_nodes": 0})])
def test_impossible_requests_are_input_errors(rows, cols, options):
    with pytest.raises(InputError):
        generate(rows, cols, difficulty=Difficulty(**options))


@settings(deadline=None, max_examples=80)
@given(rows=st.integers(1, 5), cols=st.integers(2, 5), seed=st.integers(0, 10**6), data=st.data())
def test_whatever_propagation_completes_has_exactly_one_solution(rows, cols, seed, data):
    """The generator's proof: when Deduction completes a board, the puzzle is unique."""
    full = board_of_path(rows, cols, random_path(rows, cols, random.Random(seed)))
    keep = data.draw(st.lists(st.booleans(), min_size=full.size, max_size=full.size))
    puzzle = full.with_numbers([n if k or n in (1, full.size) else 0 for n, k in zip(full.numbers, keep, strict=True)])
    if deduces(puzzle):
        assert solutions(puzzle, 2) == [full]


def test_deduction_goes_on_from_where_it_stood():
    full = board_of_path(5, 5, random_path(5, 5, random.Random(4)))
    bare = full.with_numbers([n if n in (1, 25) else 0 for n in full.numbers])
    deduction = Deduction(bare)
    given = 0
    while (stalled := deduction.stalled()) is not None:
        cell = next(cell for cell in stalled if not deduction.number(cell))
        deduction.give(cell, full.numbers[cell])
        given += 1
    assert given >= 1
    assert [deduction.number(cell) for cell in range(25)] == list(full.numbers)


@pytest.mark.parametrize("compiled", [True, False])
def test_givens_given_together_are_the_givens_given_in_turn(compiled):
    """``give_all`` stops at the first given that contradicts, as ``give`` in turn does."""
    full = board_of_path(6, 6, random_path(6, 6, random.Random(2)))
    bare = full.with_numbers([n if n in (1, 36) else 0 for n in full.numbers])
    cells = random.Random(3).sample([cell for cell in range(36) if full.numbers[cell] not in (1, 36)], 8)
    right = [(cell, full.numbers[cell]) for cell in cells]
    wrong = (cells[-1], full.numbers[cells[0]])     # a number another cell holds already
    for givens in (right, [*right[:-1], wrong], [right[0], wrong, *right[1:-1]]):
        together, in_turn = Deduction(bare, kernel=compiled), Deduction(bare, kernel=compiled)
        together.give_all(givens)
        for cell, number in givens:
            in_turn.give(cell, number)
        assert together.contradiction == in_turn.contradiction == (givens != right)
        if givens == right:
            assert together.stalled() == in_turn.stalled()
            assert [together.number(cell) for cell in range(36)] == [in_turn.number(cell) for cell in range(36)]


def test_contradicting_givens_are_reported():
    puzzle = parse_text("2\n1E 0SW\n2E 4\n")
    assert not deduces(puzzle)
    with pytest.raises(ValueError):
        Deduction(puzzle).stalled()


@settings(deadline=None, max_examples=60)
@given(rows=st.lists(st.integers(0, 2**70), min_size=1, max_size=70), columns=st.integers(1, 71))
def test_the_bit_matrix_transpose(rows, columns):
    rows = [row & ((1 << columns) - 1) for row in rows]
    transposed = _transpose(rows, columns)
    assert len(transposed) == columns
    assert all((transposed[c] >> r) & 1 == (rows[r] >> c) & 1 for r in range(len(rows)) for c in range(columns))


def test_the_command_reports_the_difficulty():
    runner = CliRunner()
    plain = runner.invoke(main, ["gen", "arrows", "--size", "6", "--seed", "5", "--stats"])
    assert plain.exit_code == 0, plain.output
    assert "difficulty 1 search node (0 branching points)" in plain.stderr
    puzzle = parse_text(plain.stdout)
    assert count_solutions(puzzle, 2) == 1 and puzzle == generate(6, seed=5)
    hard = runner.invoke(main, ["gen", "arrows", "--size", "6", "--seed", "5", "--hard", "--max-nodes", "25"])
    assert hard.exit_code == 0 and parse_text(hard.stdout) == generate(6, seed=5, difficulty=Difficulty(hard=True, max_nodes=25))


# search figures of the reference solver (counting to 2) on the contest's cases, as the solver
# gave them before its sweeps were made faster: the speed-ups change no step of the search
SEARCH_FIGURES = {
    "g03-3x3": (1, 0), "g04-4x4": (1, 0), "g05-5x5": (9, 4), "g06-6x6-a": (7, 3), "g06-6x6-b": (1, 0),
    "g07-3x10": (1, 0), "g07-4x6": (7, 3), "g07-7x7-a": (7, 3), "g07-7x7-b": (19, 9), "g08-8x8-a": (17, 8),
    "g08-8x8-b": (9, 4), "g09-6x9": (11, 5), "g09-9x9": (19, 9), "g10-10x10-a": (17, 8), "g10-10x10-b": (17, 8),
    "g11-11x11": (7, 3), "g12-12x12-a": (19, 9), "g12-12x12-b": (19, 9), "g12-12x8": (19, 9),
    "spec-puzzle-1": (1, 0), "spec-puzzle-2": (1, 0),
}


@pytest.mark.parametrize("compiled", [True, False])
def test_the_solver_searches_the_contest_cases_as_it_always_did(compiled):
    from pathlib import Path
    folder = Path(__file__).resolve().parents[2] / "testcases" / "arrows"
    for name, figures in SEARCH_FIGURES.items():
        stats = SolveStats()
        assert len(solutions(parse_text((folder / f"{name}.txt").read_text()), 2, stats, kernel=compiled)) == 1
        assert (stats.nodes, stats.branches) == figures, name


HAS_COMPILER = any(shutil.which(name) for name in ("cc", "gcc", "clang"))


@pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: the pure-Python propagation alone")
def test_the_compiled_propagation_loads_where_there_is_a_compiler():
    board = board_of_path(4, 4, random_path(4, 4, random.Random(1)))
    assert kernel.library() is not None
    assert isinstance(geometry(board), kernel.KernelGeometry)
    assert not isinstance(geometry(board, kernel=False), kernel.KernelGeometry)


@pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: nothing to compare")
@pytest.mark.parametrize("rows, cols, seeds, hard", [
    (1, 2, 2, False), (2, 7, 4, False), (5, 5, 4, False), (5, 5, 4, True), (8, 8, 3, False),
    (7, 9, 2, True), (10, 10, 2, False), (12, 12, 1, False),
])
def test_the_compiled_and_the_python_propagation_give_the_same_puzzles(rows, cols, seeds, hard):
    """Bitsets of one, two and three words; the search of ``hard``."""
    for seed in range(seeds):
        compiled = generate_puzzle(rows, cols, seed, difficulty=Difficulty(hard=hard, max_nodes=30))
        python = generate_puzzle(rows, cols, seed, difficulty=Difficulty(hard=hard, max_nodes=30), kernel=False)
        assert compiled == python, (rows, cols, seed)


@pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: nothing to compare")
@settings(deadline=None, max_examples=80)
@given(rows=st.integers(1, 30), cols=st.integers(2, 30), seed=st.integers(0, 10**6), data=st.data())
def test_the_compiled_rays_joined_and_slid_are_the_rays_cell_by_cell(rows, cols, seed, data):
    """Propagation takes the rays of a set one of two ways by its size; each gives, for any set,
    the union of its cells' rays (forward) or of the cells whose rays hold one (backward)."""
    board = board_of_path(rows, cols, random_path(rows, cols, random.Random(seed)))
    compiled = geometry(board)
    assert isinstance(compiled, kernel.KernelGeometry)
    rays = geometry(board, kernel=False)
    cells = data.draw(st.integers(0, 2**board.size - 1))
    listed = [cell for cell in range(board.size) if cells >> cell & 1]
    onto = sum_of_sets(rays.succ[cell] for cell in listed)
    from_ = sum_of_sets(rays.pred[cell] for cell in listed)
    for join in (True, False):
        assert compiled.rays(cells, True, join) == onto, ("forward", join)
        assert compiled.rays(cells, False, join) == from_, ("backward", join)


def sum_of_sets(sets) -> int:
    union = 0
    for cells in sets:
        union |= cells
    return union


@pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: nothing to compare")
@settings(deadline=None, max_examples=60)
@given(rows=st.integers(1, 9), cols=st.integers(2, 9), seed=st.integers(0, 10**6), data=st.data())
def test_the_compiled_and_the_python_search_agree_step_by_step(rows, cols, seed, data):
    """Any givens (1 given or not, too few for uniqueness, contradicting): the same solutions, nodes and branches."""
    full = board_of_path(rows, cols, random_path(rows, cols, random.Random(seed)))
    keep = data.draw(st.lists(st.integers(0, 3), min_size=full.size, max_size=full.size))
    numbers = [n if k == 0 else 0 if k < 3 else (n % full.size) + 1 for n, k in zip(full.numbers, keep, strict=True)]
    numbers = [n if numbers.count(n) == 1 or n == 0 else 0 for n in numbers]
    numbers[full.last_cell] = full.size
    puzzle = full.with_numbers(numbers)
    figures = []
    for compiled in (True, False):
        stats = SolveStats()
        try:
            found = solutions(puzzle, 3, stats, max_nodes=400, kernel=compiled)
        except SearchBudgetExceeded:
            found = None
        figures.append((found, stats.nodes, stats.branches))
    assert figures[0] == figures[1]
