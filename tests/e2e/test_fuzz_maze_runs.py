"""Fuzzing maze entries: real runs."""
from __future__ import annotations

from pathlib import Path

import pytest

from verify.contests.maze import fuzzing
from verify.entries import load_entry
from verify.fuzz import fuzz, target_for
from verify.grading import LocalRunner
from verify.runner import Limits

ROOT = Path(__file__).parents[1]


FLAWED = ROOT / "fixtures" / "flawed"


SUBMISSIONS = ROOT.parent / "submissions" / "maze"


def found(fixture: str, runs: int = 60):
    target = target_for(load_entry(FLAWED / fixture), LocalRunner(), Limits())
    finding = fuzz(target, seed=0, runs=runs, jobs=2).finding
    assert finding is not None, f"{fixture} survived {runs} inputs"
    return finding


def test_a_solver_that_crashes_on_an_end_on_the_border_is_shrunk_to_a_2x2_maze():
    finding = found("maze-solver-border-end")
    assert finding.kind == "wrong: crash" and finding.minimal.maze.size == 2


def test_an_architect_that_walls_in_the_end_for_odd_sizes_is_shrunk_to_size_15_seed_0():
    finding = found("maze-architect-odd")
    assert finding.kind == "wrong: unreachable end"
    assert finding.minimal == fuzzing.ArchitectInput(15, 0)


@pytest.mark.slow
@pytest.mark.parametrize(("entry", "runs", "max_size", "ignore"), [
    ("minotaur", 200, None, ()),
    ("daedalus", 200, 20, ("wrong: step limit",)),      # a wall follower: loops trap it, by design
    ("drunkard", 200, 15, ("wrong: step limit",)),      # a random walk: may not arrive, by design
    ("theseus", 200, 4, ()),                            # per step: a process per step, so small mazes
])
def test_the_bundled_entries_survive_200_inputs(entry, runs, max_size, ignore):
    target = target_for(load_entry(SUBMISSIONS / entry), LocalRunner(), Limits(), max_size)
    result = fuzz(target, seed=0, runs=runs, jobs=2, ignore=ignore)
    assert result.finding is None, (result.finding.kind, target.show(result.finding.minimal),
                                    result.finding.verdict.summary())
