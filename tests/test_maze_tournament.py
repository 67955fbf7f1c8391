"""The tournament: leaderboards by hand, bad entries, determinism, the CLI."""
import json
import pickle
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from maze_koth import run_tournament

from verify.cli import main
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
from verify.reports.tournament import render_json, render_markdown, render_table
from verify.runner import Limits

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "maze"
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


def test_bad_entries_forfeit_or_fail_and_the_tournament_finishes(tmp_path):
    names = ["crasher", "sleeper", "babbler", "wrong-size", "first-move"]
    contestants = [contestant(FIXTURES / n) for n in names] + [contestant(SUBMISSIONS / "drunkard"),
                                                               contestant(SUBMISSIONS / "theseus")]
    result = run_tournament(GRADER, contestants, [6], [1], jobs=2, limits=LIMITS, log_dir=tmp_path, patience=3)
    forfeits = {k[0]: b.forfeit for k, b in result.mazes.items() if b.maze is None}
    assert forfeits["crasher"].startswith("runtime error: exit code 3")
    assert forfeits["sleeper"].startswith("time limit: still running after 1.5 s")
    assert forfeits["babbler"].startswith("wrong: invalid maze: line 1 (width)")
    assert forfeits["wrong-size"] == "wrong: invalid maze: line 1 (width): width 5 but the maze asked for is 6x6"
    assert set(forfeits) == {"crasher", "sleeper", "babbler", "wrong-size"}
    architects = {s.name: s.score for s in result.architect_board()}
    assert all(architects[n] == 0.0 for n in forfeits) and architects["theseus"] > 0
    walked = {m.solver: m.result for m in result.matches}
    assert set(walked) == {"crasher", "sleeper", "babbler", "first-move", "drunkard"}   # theseus's maze only
    for bad in ("crasher", "sleeper", "babbler"):
        assert walked[bad].ended == "gave up after 3 failed steps in a row" and walked[bad].steps == 216
    assert walked["drunkard"].failed_steps == 0
    logs = sorted(p.name for p in (tmp_path / "matches").iterdir())
    assert "theseus-6-1--sleeper.jsonl" in logs and len(logs) == 5
    sleeper_log = [json.loads(line) for line in (tmp_path / "matches" / "theseus-6-1--sleeper.jsonl").open()]
    assert sleeper_log[0]["mode"] == "persistent" and "timeout" in sleeper_log[2]["failure"]
    assert json.loads((tmp_path / "mazes" / "crasher-6-1.jsonl").read_text())["forfeit"] == forfeits["crasher"]
    table = render_table(board_of(result))
    assert "Architects" in table and "Solvers" in table and "theseus" in table


def test_same_seeds_same_results(tmp_path):
    contestants = [contestant(SUBMISSIONS / "theseus"), contestant(SUBMISSIONS / "drunkard"),
                   contestant(FIXTURES / "first-move")]
    runs = []
    for _ in range(2):
        result = run_tournament(GRADER, contestants, [6, 7], [1, 2], jobs=2, limits=LIMITS, patience=3)
        data = result.to_json()
        for maze in data["mazes"]:
            maze.pop("wall_time")
        runs.append(data)
    assert runs[0] == runs[1]
    assert len(runs[0]["matches"]) == 8


def test_duplicate_names_and_sizes_outside_the_range_are_refused():
    theseus = contestant(SUBMISSIONS / "theseus")
    with pytest.raises(Exception, match="two entries share a name: 'theseus'"):
        run_tournament(GRADER, [theseus, theseus], [6], [1], limits=LIMITS)
    with pytest.raises(Exception, match="size 6 is outside 15..50"):
        run_tournament(GRADER, [theseus], [6], [1])


def test_cli_tournament_json_and_replay(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["koth", "maze", str(SUBMISSIONS / "theseus"), str(SUBMISSIONS / "drunkard"),
                                  "--sizes", "6", "--seeds", "3", "--size-range", "2..50", "--format", "json",
                                  "--logs", str(tmp_path), "-q"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [s["name"] for s in data["architects"]] == ["theseus"]
    assert {s["name"] for s in data["solvers"]} == {"drunkard", "theseus"}
    log = Path(data["matches"][0]["log"])
    final = runner.invoke(main, ["maze", "show", str(log)])
    assert final.exit_code == 0 and "@" in final.output and "result: arrived" in final.output
    first = runner.invoke(main, ["maze", "show", str(log), "--step", "0", "--fog"])
    assert "step 0 of" in first.output and "?" in first.output
    forfeit = runner.invoke(main, ["maze", "show", str(tmp_path / "mazes" / "theseus-6-3.jsonl")])
    assert "valid maze" in forfeit.output


@pytest.mark.parametrize("args, message", [
    (["maze", "show", "/nonexistent.jsonl"], "cannot read the log"),
    (["koth", "maze", "--sizes", "x"], "--sizes: expected comma-separated integers"),
    (["koth", "maze", "--sizes", "6"], "size 6 is outside 15..50"),
    (["maze", "check", "{tmp}/short.txt", "--size-range", "2..50"], "maze: only 3 line(s); the horizontal walls line is missing"),
    (["maze", "check", "{tmp}/short.txt", "--size-range", "9"], "--size-range: expected LOW..HIGH"),
])
def test_cli_errors_are_one_line(args, message, tmp_path):
    (tmp_path / "short.txt").write_text("5\n4 2\n0 2\n")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    done = subprocess.run(["verify", *args], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_an_entry_that_does_not_compile_forfeits_and_fails(tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bad.c").write_text("int main(void) { return missing_symbol; }\n")
    (broken / "entry.toml").write_text('contest = "maze"\n[maze.architect]\nlanguage = "c"\nsource = "bad.c"\n'
                                       '[maze.solver]\nlanguage = "c"\nsource = "bad.c"\n')
    contestants = [contestant(broken), contestant(SUBMISSIONS / "theseus")]
    result = run_tournament(GRADER, contestants, [5], [1], limits=LIMITS, log_dir=tmp_path / "logs")
    assert result.mazes[("broken", 5, 1)].forfeit.startswith("could not run: compile error")
    (walk,) = [m for m in result.matches if m.solver == "broken"]
    assert walk.result.ended.startswith("could not run:") and walk.result.steps == 125
    assert {s.name: s.score for s in result.architect_board()}["broken"] == 0.0


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
