"""The reference solver, the naive baseline and the generator."""
import random

import pytest
from arrows_reference import PUZZLE_1, PUZZLE_2, SOLUTION_1, SOLUTION_2
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.contests.arrows.checker import check_solution
from verify.contests.arrows.generator import board_of_path, generate, random_path
from verify.contests.arrows.model import parse_text
from verify.contests.arrows.naive import naive_solutions
from verify.contests.arrows.solver import SearchBudgetExceeded, SolveStats, count_solutions, solutions, solve


def test_solver_returns_solution_1():
    assert solve(PUZZLE_1) == SOLUTION_1


def test_solver_returns_solution_2():
    assert solve(PUZZLE_2) == SOLUTION_2


def test_spec_puzzles_are_unique():
    assert count_solutions(PUZZLE_1, 5) == 1
    assert count_solutions(PUZZLE_2, 5) == 1


def test_naive_search_finds_the_spec_solutions():
    assert naive_solutions(PUZZLE_1, 2) == [SOLUTION_1]
    assert naive_solutions(PUZZLE_2, 2) == [SOLUTION_2]


def test_naive_branch_from_0_0_to_2_0_is_a_dead_end():
    start = [PUZZLE_2.cell(0, 0), PUZZLE_2.cell(2, 0)]
    assert naive_solutions(PUZZLE_2, 1, start=start) == []


def test_naive_budget():
    puzzle = generate(6, seed=3)
    with pytest.raises(SearchBudgetExceeded):
        naive_solutions(puzzle.with_numbers([n if n in (1, 36) else 0 for n in puzzle.numbers]),
                        10**6, max_nodes=50)


def test_unsolvable_puzzle_has_no_solution():
    # 1 at (0,0) points E, but 2 is given at (1,0): nothing can link them
    puzzle = parse_text("2\n1E 0SW\n2E 4\n")
    assert solve(puzzle) is None
    assert count_solutions(puzzle) == 0
    assert naive_solutions(puzzle) == []


def test_counting_stops_at_the_bound():
    open_board = generate(5, seed=1)
    bare = open_board.with_numbers([n if n == 25 else 0 for n in open_board.numbers])
    assert count_solutions(bare, 3) == 3


def test_solver_finds_the_start_when_1_is_not_given():
    bare = SOLUTION_2.with_numbers([n if n in (17, 25) else 0 for n in SOLUTION_2.numbers])
    found = solutions(bare, 50)
    assert SOLUTION_2 in found
    assert all(check_solution(bare, s) is None for s in found)


def test_budget_is_reported():
    stats = SolveStats()
    solutions(PUZZLE_2, 2, stats)
    assert stats.nodes >= 1 and stats.solutions == 1
    bare = SOLUTION_2.with_numbers([n if n == 25 else 0 for n in SOLUTION_2.numbers])
    with pytest.raises(SearchBudgetExceeded):
        solutions(bare, 10**9, max_nodes=3)


@pytest.mark.parametrize("rows, cols", [(3, 3), (4, 4), (5, 5), (3, 6), (6, 4), (2, 7)])
def test_generated_puzzles_have_exactly_one_solution(rows, cols):
    for seed in range(8):
        puzzle = generate(rows, cols, seed)
        assert count_solutions(puzzle, 2) == 1, (rows, cols, seed)
        assert puzzle.numbers[puzzle.cell_of(1)] == 1 and puzzle.numbers[puzzle.last_cell] == rows * cols


def test_generated_uniqueness_agrees_with_the_naive_search():
    for seed in range(10):
        puzzle = generate(4, 4, seed)
        assert len(naive_solutions(puzzle, 2)) == 1
        assert naive_solutions(puzzle, 2) == solutions(puzzle, 2)


def test_generation_is_deterministic():
    assert generate(6, seed=11) == generate(6, seed=11)
    assert generate(6, seed=11) != generate(6, seed=12)
    assert generate(4, 5, seed=2, notation="dutch").notation == "dutch"


def test_a_generated_path_follows_queen_lines_through_every_cell():
    path = random_path(5, 7, random.Random(1))
    assert sorted(path) == list(range(35))
    board = board_of_path(5, 7, path)
    assert check_solution(board.with_numbers([0] * 35), board) is None


@settings(deadline=None, max_examples=60)
@given(rows=st.integers(1, 5), cols=st.integers(2, 5), seed=st.integers(0, 10**6), data=st.data())
def test_every_solution_found_passes_the_checker_and_matches_the_naive_count(rows, cols, seed, data):
    full = board_of_path(rows, cols, random_path(rows, cols, random.Random(seed)))
    keep = data.draw(st.lists(st.booleans(), min_size=full.size, max_size=full.size))
    numbers = [n if k or n in (1, full.size) else 0 for n, k in zip(full.numbers, keep, strict=True)]
    puzzle = full.with_numbers(numbers)
    found = solutions(puzzle, 20)
    assert full in found or len(found) == 20
    assert len(set(found)) == len(found)
    for solution in found:
        assert check_solution(puzzle, solution) is None
    assert len(naive_solutions(puzzle, 20)) == len(found)


@settings(deadline=None, max_examples=30)
@given(rows=st.integers(2, 4), cols=st.integers(2, 4), seed=st.integers(0, 10**6), data=st.data())
def test_without_1_given_the_solver_counts_every_start(rows, cols, seed, data):
    full = board_of_path(rows, cols, random_path(rows, cols, random.Random(seed)))
    keep = data.draw(st.lists(st.booleans(), min_size=full.size, max_size=full.size))
    numbers = [n if (k and n != 1) or n == full.size else 0 for n, k in zip(full.numbers, keep, strict=True)]
    puzzle = full.with_numbers(numbers)
    by_start = 0
    for cell in range(puzzle.size):
        if not numbers[cell]:
            with_start = list(numbers)
            with_start[cell] = 1
            by_start += len(naive_solutions(puzzle.with_numbers(with_start), 10**6))
    found = solutions(puzzle, 10**6)
    assert len(found) == by_start
    assert all(check_solution(puzzle, s) is None for s in found)
