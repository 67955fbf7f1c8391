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


def test_the_seed_s_key_starts_the_mersenne_twister_where_random_random_does():
    """generation.seed_key and generate.c's arrows_seed against CPython's random.Random, for the
    generator's seed texts and others (short, long, not ASCII)."""
    import ctypes
    import random

    from verify.contests.arrows.generation import seed_key, seed_text
    lib = kernel.library()
    assert lib is not None
    texts = [seed_text(rows, cols, seed) for rows, cols, seed in [(10, 10, 1000), (1, 2, 0), (50, 50, -7), (3, 9, 10**30)]]
    for text in [*texts, "", "x", "\u00e9\u4e2d" * 40, "a" * 300]:
        key = seed_key(text)
        words = [int(key[at:at + 8], 16) for at in range(0, len(key), 8)]
        state = (ctypes.c_uint32 * 625)()
        lib.arrows_seed((ctypes.c_uint32 * len(words))(*words), len(words), state)
        assert tuple(state) == random.Random(text).getstate()[1], text

