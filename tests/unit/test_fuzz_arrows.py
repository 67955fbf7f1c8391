"""Fuzzing arrows entries: the puzzles generated, the shrink steps, a flawed entry found and shrunk."""
from __future__ import annotations

import random
from collections import Counter

from verify.contests.arrows import fuzzing
from verify.contests.arrows.model import parse_text
from verify.contests.arrows.solver import solutions
from verify.verdict import Status, Verdict


def puzzles(count: int):
    return [fuzzing.random_input(random.Random(f"t{i}")) for i in range(count)]


def test_generated_puzzles_are_unique_and_varied():
    found = puzzles(150)
    for puzzle in found:
        assert len(solutions(puzzle, 2)) == 1
        assert parse_text(puzzle.to_text(), puzzle.notation) == puzzle
        assert puzzle.rows <= 8 and puzzle.cols <= 8
    shapes = Counter("square" if p.rows == p.cols else "2xN" if p.rows == 2 else "Nx2" if p.cols == 2
                     else "line" if 1 in (p.rows, p.cols) else "other" for p in found)
    assert set(shapes) == {"square", "2xN", "Nx2", "line", "other"}
    assert {p.notation for p in found} == {"english", "dutch"}
    assert len({p.numbers.index(1) for p in found}) > 5          # 1 anywhere
    density = [p.givens / p.size for p in found]
    assert min(density) < 0.2 and max(density) > 0.6


def test_generation_is_deterministic_for_the_seed():
    assert puzzles(20) == puzzles(20)


def test_shrink_steps_are_smaller_unique_puzzles_keeping_1_and_n():
    puzzle = fuzzing.random_input(random.Random("dense"), fuzzing.ArrowsBudget(4))
    steps = list(fuzzing.shrink_steps(puzzle))
    assert steps
    for variant in steps:
        assert len(solutions(variant, 2)) == 1
        assert variant.size < puzzle.size or (variant.size == puzzle.size and variant.givens == puzzle.givens - 1)
        assert 1 in variant.numbers and variant.size in variant.numbers
    assert [v.size for v in steps] == sorted(v.size for v in steps)     # smallest boards first


def test_the_failure_class_comes_from_the_judges_wording():
    assert fuzzing.failure_kind(Verdict.wrong("0 at (0,2) is out of range 1..6")) == "wrong: number out of range"
    assert fuzzing.failure_kind(Verdict(Status.PRESENTATION, "line 2: expected 3 cells, got 2")) == \
        "presentation error: row length"
    assert fuzzing.failure_kind(Verdict(Status.RUNTIME_ERROR, "exit code 1")) == "runtime error"
    assert fuzzing.ArrowsFuzzer(None).kind_slug("wrong: number out of range") == "number-out-of-range"
