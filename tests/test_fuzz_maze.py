"""Fuzzing maze entries: the generator families, the inputs and shrink steps, flawed solvers and
architects found and shrunk."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from verify.contests.maze import fuzzing
from verify.contests.maze.generate import FAMILIES, family_walls, generate_maze
from verify.contests.maze.model import ANY_SIZE, Maze, parse_maze
from verify.contests.maze.roles import MazeRoles
from verify.entries import load_entry
from verify.fuzz import fuzz, target_for
from verify.grading import LocalRunner
from verify.runner import Limits
from verify.verdict import Status, Verdict

ROOT = Path(__file__).parent
FLAWED = ROOT / "fixtures" / "flawed"
SUBMISSIONS = ROOT.parent / "submissions" / "maze"
BOTH = MazeRoles(architect=object(), solver=object())  # type: ignore[arg-type]


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("size", [2, 3, 15, 50])
def test_every_family_connects_every_cell(family, size):
    for seed in range(3):
        maze = Maze(size, (0, 0), (size - 1, size - 1), *family_walls(family, size, seed))
        assert all(d >= 0 for row in maze.distances_from((0, 0)) for d in row)
        assert family_walls(family, size, seed) == (maze.horizontal, maze.vertical)


def test_the_families_differ_as_documented():
    walls = {family: Maze(20, (0, 0), (1, 0), *family_walls(family, 20, 1)).wall_count for family in FAMILIES}
    perfect = (20 - 1) ** 2
    assert walls["backtracker"] == walls["kruskal"] == walls["prim"] == perfect
    assert walls["braided"] < perfect and walls["rooms"] < walls["braided"]


def test_the_reference_maze_of_verify_check_is_unchanged():
    maze = generate_maze(15, 1)
    assert maze == parse_maze(maze.to_text()) and maze.shortest_path() is not None


def test_inputs_cover_both_roles_every_family_and_placement():
    settings = fuzzing.MazeFuzzSettings()
    inputs = [fuzzing.random_input(random.Random(i), settings, BOTH) for i in range(300)]
    solvers = [v for v in inputs if isinstance(v, fuzzing.SolverInput)]
    architects = [v for v in inputs if isinstance(v, fuzzing.ArchitectInput)]
    assert len(solvers) > 100 and len(architects) > 100
    assert {v.family for v in solvers} == set(FAMILIES)
    assert {v.maze.size for v in solvers} <= set(range(15, 31)) and {a.size for a in architects} <= set(range(15, 51))
    for value in solvers:
        assert parse_maze(value.maze.to_text()) == value.maze
    n = lambda v: v.maze.size - 1  # noqa: E731
    assert any(n(v) in v.maze.end or 0 in v.maze.end for v in solvers)
    assert any(0 < v.maze.end[0] < n(v) and 0 < v.maze.end[1] < n(v) for v in solvers)
    assert any(abs(v.maze.start[0] - v.maze.end[0]) + abs(v.maze.start[1] - v.maze.end[1]) == 1 for v in solvers)


def test_shrink_steps_are_valid_and_smaller():
    settings = fuzzing.MazeFuzzSettings()
    value = fuzzing.solver_input("braided", 9, 4, (8, 8), (0, 3))
    steps = list(fuzzing.shrink_steps(value, settings))
    assert steps[0].maze.size == 2
    for step in steps:
        assert parse_maze(step.maze.to_text(), ANY_SIZE) == step.maze
        assert step.maze.size < 9 or len(step.maze.shortest_path()) < len(value.maze.shortest_path())
    architect = list(fuzzing.shrink_steps(fuzzing.ArchitectInput(18, 40), settings))
    assert [a.size for a in architect[:3]] == [15, 16, 17] and {a.seed for a in architect[3:]} == {0, 1, 20}


def test_failure_classes():
    assert fuzzing._step_kind("answer 'x' is not 'row column'") == "invalid answer"
    assert fuzzing._step_kind("time limit: 2 s") == "time limit"
    assert fuzzing._step_kind("runtime error: exit code 1") == "runtime error"
    assert fuzzing.failure_kind(Verdict.wrong("x", failure="invalid answer")) == "wrong: invalid answer"
    assert fuzzing.failure_kind(Verdict(Status.TIME_LIMIT, "x")) == "time limit"


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
