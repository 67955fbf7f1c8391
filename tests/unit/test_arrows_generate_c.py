"""The generator in C (generate.c) against the generator in Python: the same puzzle, solution,
difficulty and search figures for every shape, seed and difficulty, since the C code takes the
same steps on the same random numbers (CPython's Mersenne Twister from the seed's state)."""
from __future__ import annotations

import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.contests.arrows import kernel
from verify.contests.arrows.generator import Difficulty, generate_puzzle

HAS_COMPILER = any(shutil.which(name) for name in ("cc", "gcc", "clang"))
pytestmark = pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: the Python generator alone")


def both(rows: int, cols: int, seed: int, difficulty: Difficulty):
    assert kernel.library() is not None
    return (generate_puzzle(rows, cols, seed, difficulty=difficulty),
            generate_puzzle(rows, cols, seed, difficulty=difficulty, kernel=False))


@pytest.mark.parametrize("difficulty", [
    Difficulty(),
    Difficulty(minimize=False),
    Difficulty(start_givens=0.1),               # random.sample's pool way (a few cells of many)
    Difficulty(start_givens=0.6),               # and its set-of-selected way
    Difficulty(start_givens=0.5, minimize=False),
    Difficulty(hard=True, max_nodes=40),
    Difficulty(start_givens=0.3, hard=True, max_nodes=3),
], ids=repr)
@pytest.mark.parametrize("rows, cols", [(1, 2), (2, 1), (1, 9), (3, 3), (2, 7), (5, 5), (6, 4), (8, 8), (3, 11)])
def test_the_c_and_the_python_generator_give_the_same_puzzles(rows, cols, difficulty):
    for seed in range(3):
        compiled, python = both(rows, cols, seed, difficulty)
        assert compiled == python, (rows, cols, seed)


@settings(deadline=None, max_examples=40)
@given(rows=st.integers(1, 9), cols=st.integers(2, 9), seed=st.integers(-10**9, 10**9),
       start=st.sampled_from([0.0, 0.2, 0.7]), hard=st.booleans(), max_nodes=st.integers(1, 30))
def test_any_seed_gives_the_same_puzzle_both_ways(rows, cols, seed, start, hard, max_nodes):
    compiled, python = both(rows, cols, seed, Difficulty(start_givens=start, hard=hard, max_nodes=max_nodes))
    assert compiled == python


def test_a_board_of_several_words_gives_the_same_puzzle_both_ways():
    """Bitsets of two and three words (65..192 cells, up to 2 + 64k bits), square and not."""
    for rows, cols, seed in [(10, 10, 1000), (9, 15, 7), (13, 13, 2)]:
        compiled, python = both(rows, cols, seed, Difficulty())
        assert compiled == python, (rows, cols, seed)
