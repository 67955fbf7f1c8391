"""Architects and solvers run through the grading core: forfeits, failed steps, both solver modes."""
from pathlib import Path

import pytest

from verify.contests.maze.match import Match
from verify.contests.maze.model import ANY_SIZE, Maze, parse_maze
from verify.contests.maze.play import MazeLimits
from verify.contests.maze.play import build_maze as build_with
from verify.entries import load_entry
from verify.grading import Grader, LocalRunner
from verify.grading.interactive import asker
from verify.runner import Limits, Program

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "maze"
SUBMISSIONS = ROOT / "submissions" / "maze"
SMALL = MazeLimits(architect=Limits(wall_time=5.0, cpu_time=5.0, memory=512 << 20, output=1 << 20),
                   step_timeout=1.0, sizes=ANY_SIZE)
QUICK_TIMEOUT = MazeLimits(architect=Limits(wall_time=1.0, cpu_time=1.0), step_timeout=0.5, sizes=ANY_SIZE)
SPEC_5X5 = parse_maze("5\n4 2\n0 2\n00001011101110001100\n10100110000100010010\n", ANY_SIZE)


RUNNER = LocalRunner()


def python(path: Path) -> Program:
    return Program("python", path)


def build_maze(program: Program, size: int, seed: int, limits: MazeLimits = MazeLimits()):
    return build_with(Grader(RUNNER), program, size, seed, limits)


def PerStepSolver(program: Program, limits: MazeLimits = MazeLimits()):
    return asker(RUNNER, program, False, limits.solver(False), limits.step_timeout)


def PersistentSolver(program: Program, limits: MazeLimits = MazeLimits()):
    return asker(RUNNER, program, True, limits.solver(True), limits.step_timeout)


def test_entries_declare_their_roles():
    theseus = load_entry(SUBMISSIONS / "theseus").options
    assert theseus.architect.language == "python" and not theseus.persistent
    drunkard = load_entry(SUBMISSIONS / "drunkard").options
    assert drunkard.architect is None and drunkard.solver.language == "c" and drunkard.persistent
    daedalus = load_entry(SUBMISSIONS / "daedalus").options
    assert daedalus.solver.language == "javascript" and daedalus.persistent


def test_an_architect_builds_the_same_maze_for_the_same_seed():
    architect = python(SUBMISSIONS / "theseus" / "architect.py")
    first = build_maze(architect, 7, 3, SMALL)
    assert first.forfeit is None and first.maze.size == 7
    assert build_maze(architect, 7, 3, SMALL).maze == first.maze
    assert build_maze(architect, 7, 4, SMALL).maze != first.maze


@pytest.mark.parametrize("entry, reason", [
    ("crasher", "runtime error: exit code 3: boom: deliberate crash"),
    ("babbler", "wrong: invalid maze: line 1 (width): width 'hello, maze!' is not a non-negative integer"),
    ("wrong-size", "wrong: invalid maze: line 1 (width): width 5 but the maze asked for is 6x6"),
])
def test_bad_architects_forfeit_with_the_reason(entry, reason):
    built = build_maze(load_entry(FIXTURES / entry).options.architect, 6, 1, SMALL)
    assert built.maze is None and built.forfeit == reason
    assert built.to_json()["forfeit"] == reason


def test_a_hanging_architect_forfeits_on_time():
    built = build_maze(load_entry(FIXTURES / "sleeper").options.architect, 6, 1, QUICK_TIMEOUT)
    assert built.maze is None and built.forfeit == "time limit: still running after 1 s (wall time)"


def test_architect_gets_size_and_seed_as_arguments_too(tmp_path):
    script = tmp_path / "args.py"
    script.write_text("import sys\nn = int(sys.argv[1])\nassert sys.argv[2] == '9'\n"
                      "print(n); print(0, 0); print(n - 1, n - 1)\n"
                      "print('0' * n * (n - 1)); print('0' * n * (n - 1))\n")
    built = build_maze(python(script), 5, 9, SMALL)
    assert built.forfeit is None and built.maze.end == (4, 4)


@pytest.mark.parametrize("driver", [PerStepSolver, PersistentSolver])
@pytest.mark.parametrize("entry, failure", [
    ("crasher", "exit code 3"),
    ("babbler", "is not 'row column'"),
])
def test_bad_solvers_get_failed_steps(driver, entry, failure):
    log = []
    with driver(load_entry(FIXTURES / entry).options.solver, SMALL) as solver:
        result = Match(SPEC_5X5).play(solver, log.append, patience=3)
    steps = [r for r in log if r["type"] == "step"]
    assert len(steps) == 3 and all(s.get("failure") and s["at"] == [4, 2] for s in steps)
    assert failure in steps[0]["failure"]
    assert result.ended == "gave up after 3 failed steps in a row" and result.steps == 125


@pytest.mark.parametrize("driver", [PerStepSolver, PersistentSolver])
def test_a_hanging_solver_times_out_step_by_step(driver):
    log = []
    with driver(python(FIXTURES / "sleeper" / "sleep.py"), QUICK_TIMEOUT) as solver:
        result = Match(SPEC_5X5).play(solver, log.append, patience=2)
    steps = [r for r in log if r["type"] == "step"]
    assert [s["n"] for s in steps] == [1, 2] and all("time" in s["failure"] for s in steps)
    assert not result.arrived and result.steps == 125


def test_persistent_solver_is_restarted_after_a_crash(tmp_path):
    # crashes on its second state, so each fresh process answers once, then dies
    script = tmp_path / "once.py"
    script.write_text("import sys\n"
                      "for count in range(2):\n"
                      "    lines = [sys.stdin.readline() for _ in range(7)]\n"
                      "    if count: sys.exit(5)\n"
                      "    print(lines[6].split(',')[0].strip(), flush=True)\n")
    log = []
    with PersistentSolver(python(script), SMALL) as solver:
        Match(SPEC_5X5, limit=4).play(solver, log.append, patience=0)
        assert solver.restarts == 2
    steps = [r for r in log if r["type"] == "step"]
    assert [("failure" in s) for s in steps] == [False, True, False, True]
    assert "crash" in steps[1]["failure"]


def test_the_step_limit_with_a_cycling_solver():
    # no walls; the first offered move from (0,1) is (0,0) and from (0,0) it is (0,1): forever
    maze = Maze(5, (0, 1), (0, 4), "0" * 20, "0" * 20)
    with PersistentSolver(load_entry(FIXTURES / "first-move").options.solver, SMALL) as solver:
        result = Match(maze).play(solver)
    assert not result.arrived and result.steps_taken == result.steps == 125
    assert result.architect_score == 125 / 3    # no walls: Manhattan 3


def _walk(maze: Maze, driver) -> tuple[object, list[dict]]:
    log = []
    with driver as solver:
        result = Match(maze).play(solver, log.append)
    return result, log


def test_a_stateless_solver_scores_the_same_in_both_modes():
    theseus = python(SUBMISSIONS / "theseus" / "solver.py")
    first_move = load_entry(FIXTURES / "first-move").options.solver
    architect = python(SUBMISSIONS / "theseus" / "architect.py")
    for solver, size in [(theseus, 6), (first_move, 4)]:
        maze = build_maze(architect, size, 1, SMALL).maze
        per_step, per_step_log = _walk(maze, PerStepSolver(solver, SMALL))
        persistent, persistent_log = _walk(maze, PersistentSolver(solver, SMALL))
        assert per_step.failed_steps == 0 and per_step.steps_taken > size
        assert per_step == persistent
        assert per_step_log == persistent_log


def test_the_island_traps_the_wall_follower_but_not_the_explorer():
    island = build_maze(load_entry(SUBMISSIONS / "minotaur").options.architect, 15, 1)
    assert island.forfeit is None and island.maze.start == (7, 7)
    with PersistentSolver(load_entry(SUBMISSIONS / "daedalus").options.solver) as follower:
        trapped = Match(island.maze).play(follower)
    assert trapped.ended == "step limit" and trapped.steps == 15 ** 3 and trapped.failed_steps == 0
    with PersistentSolver(load_entry(SUBMISSIONS / "minotaur").options.solver) as explorer:
        assert Match(island.maze).play(explorer).arrived
