"""Fuzzing arrows entries: real runs."""
from __future__ import annotations

from pathlib import Path

import pytest

from verify.contests.arrows import fuzzing
from verify.entries import load_entry
from verify.fuzz import fuzz, target_for
from verify.grading import LocalRunner
from verify.runner import Limits

ROOT = Path(__file__).parents[1]


LIMITS = Limits(wall_time=10, cpu_time=10)


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
