"""`verify check` of maze entries, and the reference generator."""
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from verify import Status
from verify.cli import main
from verify.commands.jobs import load_checks, run_checks
from verify.contests.maze.generate import generate_maze
from verify.contests.maze.model import ANY_SIZE, parse_maze
from verify.entries import load_entry
from verify.grading import LocalRunner
from verify.runner import Limits

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "maze"
SUBMISSIONS = ROOT / "submissions" / "maze"


def test_reference_maze_is_perfect_deterministic_and_valid():
    maze = generate_maze(15, 1)
    assert maze == generate_maze(15, 1) and maze != generate_maze(15, 2)
    assert maze.wall_count == 14 * 14                      # a perfect maze has (N-1)^2 walls
    assert parse_maze(maze.to_text()) == maze
    path = maze.shortest_path()
    far = maze.distances_from(maze.start)
    assert len(path) - 1 == max(max(row) for row in far)   # start and end: ends of a longest path


def test_gen_command_prints_the_format():
    output = CliRunner().invoke(main, ["gen", "maze", "--size", "6", "--seed", "3"]).output
    assert parse_maze(output, ANY_SIZE) == generate_maze(6, 3)


def check_entry(entry, limits):
    """``verify check`` of one loaded maze entry: its tasks through the grading core."""
    (check,) = load_checks([entry.folder], None)
    if entry.options is not check.entry.options:
        check.entry.options = entry.options
        check = replace(check, tasks=tuple(entry.contest.entry_tasks(entry.options)))
    (done,) = run_checks(LocalRunner(), [check], limits, jobs=2)
    return done.results


def test_check_a_good_entry():
    results = check_entry(load_entry(SUBMISSIONS / "drunkard"), Limits(wall_time=5))
    assert [r.case for r in results] == ["solver on the reference 15x15 maze (seed 1)"]
    assert results[0].verdict.accepted and results[0].verdict.stats["mode"] == "persistent"


def test_check_a_crashing_entry_names_what_failed():
    results = check_entry(load_entry(FIXTURES / "crasher"), Limits(wall_time=5))
    architect_15, architect_50, solver = results
    assert architect_15.verdict.status is Status.RUNTIME_ERROR
    assert architect_15.verdict.message == "exit code 3: boom: deliberate crash"
    assert architect_50.case == "architect 50x50 seed 1"
    assert solver.verdict.status is Status.WRONG
    assert solver.verdict.message.startswith("did not arrive: gave up after 20 failed steps in a row after 20 steps; "
                                             "first failed step 1: runtime error: exit code 3")


def test_check_statuses_for_a_wrong_size_and_a_hanging_architect():
    (wrong, _) = check_entry(load_entry(FIXTURES / "wrong-size"), Limits(wall_time=5))
    assert wrong.verdict.status is Status.WRONG and "width 5 but the maze asked for is 15x15" in wrong.verdict.message
    sleeper = load_entry(FIXTURES / "sleeper")
    sleeper.options = replace(sleeper.options, solver=None)      # its hanging solver would take 20 timeouts
    hanging = check_entry(sleeper, Limits(wall_time=0.5, cpu_time=0.5))
    assert [r.verdict.status for r in hanging] == [Status.TIME_LIMIT, Status.TIME_LIMIT]
