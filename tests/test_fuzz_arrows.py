"""Fuzzing arrows entries: the puzzles generated, the shrink steps, a flawed entry found and shrunk."""
from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from verify.contests.arrows import fuzzing
from verify.contests.arrows.model import parse_text
from verify.contests.arrows.solver import solutions
from verify.entries import load_entry
from verify.fuzz import fuzz, target_for
from verify.grading import LocalRunner
from verify.runner import Limits
from verify.verdict import Status, Verdict

ROOT = Path(__file__).parent
LIMITS = Limits(wall_time=10, cpu_time=10)


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


def test_an_entry_that_assumes_1_top_left_is_shrunk_to_a_three_cell_board():
    entry = load_entry(ROOT / "fixtures" / "flawed" / "arrows-one-top-left")
    finding = fuzz(target_for(entry, LocalRunner(), LIMITS), seed=0, runs=100, jobs=2).finding
    assert finding is not None
    minimal = finding.minimal
    assert minimal.size <= 3 and minimal.numbers.index(1) != 0
    assert finding.kind == fuzzing.failure_kind(finding.verdict)


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["c-gaps", "javascript", "python-golf", "python-readable"])
def test_the_bundled_entries_survive_200_puzzles(entry):
    target = target_for(load_entry(ROOT.parent / "submissions" / "arrows" / entry), LocalRunner(), LIMITS)
    result = fuzz(target, seed=0, runs=200, jobs=2)
    assert result.finding is None, (result.finding.kind, target.show(result.finding.minimal),
                                    result.finding.verdict.summary())
