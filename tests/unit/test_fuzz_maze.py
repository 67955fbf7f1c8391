"""Fuzzing maze entries: the generator families, the inputs and shrink steps, flawed solvers and
architects found and shrunk."""
from __future__ import annotations

import random

import pytest

from verify.contests.maze import fuzzing
from verify.contests.maze.generate import FAMILIES, family_walls, generate_maze
from verify.contests.maze.model import ANY_SIZE, Maze, parse_maze
from verify.contests.maze.roles import MazeRoles
from verify.verdict import Status, Verdict

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
