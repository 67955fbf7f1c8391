"""The tournament: leaderboards by hand, bad entries, determinism, the CLI."""
import json
import pickle
from pathlib import Path

import pytest
from maze_koth import run_tournament

from verify.contests.contract import Reply
from verify.contests.maze.match import Match
from verify.contests.maze.model import ANY_SIZE, Maze
from verify.contests.maze.play import BuiltMaze, MazeLimits
from verify.contests.maze.tournament import (
    TOURNAMENT,
    Contestant,
    MatchOutcome,
    MazeOptions,
    TournamentResult,
    board_of,
)
from verify.entries import load_entry
from verify.grading import FakeRun, FakeRunner, Grader, LocalRunner
from verify.reports.tournament import render_json, render_markdown
from verify.runner import Limits

ROOT = Path(__file__).resolve().parents[2]


SUBMISSIONS = ROOT / "submissions" / "maze"


LIMITS = MazeLimits(architect=Limits(wall_time=1.5, cpu_time=1.5, memory=512 << 20, output=1 << 20),
                    step_timeout=0.5, sizes=ANY_SIZE)


GRADER = Grader(LocalRunner())


def contestant(folder: Path) -> Contestant:
    entry = load_entry(folder)
    return Contestant(entry.name, entry.options)


def _outcome(architect, solver, maze, steps):
    match = Match(maze)
    moves = iter(maze.shortest_path()[1:])
    for _ in range(steps - 1):
        match.apply(Reply("nonsense"))
    match.apply(Reply(" ".join(map(str, next(moves)))) if steps == 1 else Reply("nonsense"))
    return MatchOutcome(architect, solver, maze.size, 1, match.result())


def test_leaderboards_by_hand():
    # a 4x4 maze without walls, corner to corner: denominator max(6, 0) = 6
    maze = Maze(4, (0, 0), (0, 1), "0" * 12, "0" * 12)        # denominator max(1, 0) = 1
    a = _outcome("A", "X", maze, 1)                              # X arrives in 1 step
    b = _outcome("A", "Y", maze, 4)                              # Y never arrives: charged 64
    assert (a.result.architect_score, b.result.architect_score) == (1.0, 64.0)
    result = TournamentResult([4], [1], ["A", "B"], ["A", "X", "Y"],
                              {("A", 4, 1): BuiltMaze(4, 1, maze), ("B", 4, 1): BuiltMaze(4, 1, None, "crash")},
                              [a, b])
    architects = {s.name: s for s in result.architect_board()}
    # A: its maze against X and Y (not itself): (1 + 64) / 2; B forfeited: 0 against A, X and Y
    assert architects["A"].score == 32.5 and architects["A"].games == 2
    assert architects["B"].score == 0.0 and architects["B"].games == 3 and architects["B"].detail["forfeits"] == 1
    solvers = {s.name: s for s in result.solver_board()}
    assert solvers["X"].score == 1.0 and solvers["Y"].score == 1 / 64
    assert solvers["A"].score is None and solvers["A"].games == 0     # B forfeited: nothing to walk
    assert [s.name for s in result.solver_board()] == ["X", "Y", "A"]
    matrix = result.matrix()
    assert matrix["A"]["X"]["architect_score"] == 1.0 and "A" not in matrix["A"]
    assert matrix["B"]["X"] == {"architect_score": 0.0, "solver_score": None, "mazes": 0, "forfeits": 1,
                                "arrived": 0}
    board = board_of(result)
    assert "| 1 | A" in render_markdown(board).replace("|   1 | A", "| 1 | A")
    assert json.loads(render_json(board))["architects"][0]["name"] == "A"


def test_duplicate_names_and_sizes_outside_the_range_are_refused():
    theseus = contestant(SUBMISSIONS / "theseus")
    with pytest.raises(Exception, match="two entries share a name: 'theseus'"):
        run_tournament(GRADER, [theseus, theseus], [6], [1], limits=LIMITS)
    with pytest.raises(Exception, match="size 6 is outside 15..50"):
        run_tournament(GRADER, [theseus], [6], [1])


def test_a_tournament_over_a_fake_runner_starts_no_process(tmp_path):
    """The tournament's rules alone: architects and solvers answer from scripts."""
    maze = Maze(4, (0, 0), (0, 3), "0" * 12, "0" * 12)
    path = iter(maze.shortest_path()[1:])

    def walker(stdin, args):
        row, column = next(path)
        return FakeRun(f"{row} {column}\n".encode())

    runner = FakeRunner({"arch.py": lambda stdin, args: FakeRun(maze.to_text().encode()),
                         "walk.py": walker,
                         "broken.py": lambda stdin, args: FakeRun(b"garbage\n", exit_code=1, stderr="boom")})
    builder = Contestant("builder", load_roles(tmp_path, "builder", architect="arch.py"))
    walker_entry = Contestant("walker", load_roles(tmp_path, "walker", solver="walk.py"))
    broken = Contestant("broken", load_roles(tmp_path, "broken", architect="broken.py"))
    result = run_tournament(Grader(runner), [builder, walker_entry, broken], [4], [1], limits=LIMITS)
    assert result.mazes[("broken", 4, 1)].forfeit == "runtime error: exit code 1: boom"
    (walk,) = result.matches
    assert walk.result.arrived and walk.result.steps == 3 and walk.result.failed_steps == 0
    assert ("arch.py", b"4 1\n", ("4", "1")) in runner.runs
    again = TournamentResult.from_json(json.loads(json.dumps(result.to_json())), ANY_SIZE)
    assert again.to_json() == result.to_json()


def load_roles(tmp_path, name, architect=None, solver=None):
    folder = tmp_path / name
    folder.mkdir()
    toml = 'contest = "maze"\n'
    for role, source in (("architect", architect), ("solver", solver)):
        if source:
            (folder / source).write_text("# scripted by the fake runner\n")
            toml += f'[maze.{role}]\nlanguage = "python"\nsource = "{source}"\n'
    (folder / "entry.toml").write_text(toml)
    return load_entry(folder).options


def test_the_jobs_are_plain_hashable_data(tmp_path):
    """Each job describes its match alone (which maze, size, seed, which programs): it can be sent
    to a worker, and be a key of its result."""
    maze = Maze(4, (0, 0), (0, 3), "0" * 12, "0" * 12)
    contestants = [Contestant("builder", load_roles(tmp_path, "builder", architect="arch.py")),
                   Contestant("walker", load_roles(tmp_path, "walker", solver="walk.py"))]
    options = MazeOptions((4,), (1, 2), LIMITS)
    mazes = TOURNAMENT.schedule(0, contestants, options, {}, [])
    walks = TOURNAMENT.schedule(1, contestants, options, {},
                                [[BuiltMaze(4, 1, maze).to_json(), BuiltMaze(4, 2, None, "crash").to_json()]])
    assert [(job.size, job.seed) for job in mazes] == [(4, 1), (4, 2)]
    assert [job.maze_key for job in walks] == [("builder", 4, 1)]        # the forfeited maze is not walked
    for job in [*mazes, *walks]:
        again = pickle.loads(pickle.dumps(job))
        assert again == job and hash(again) == hash(job)
