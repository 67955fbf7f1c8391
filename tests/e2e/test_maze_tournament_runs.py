"""`verify koth maze` on real entries."""
import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from maze_koth import run_tournament

from tests.unit.test_maze_tournament import GRADER, LIMITS, ROOT, SUBMISSIONS, contestant
from verify.cli import main
from verify.contests.maze.tournament import (
    board_of,
)
from verify.reports.tournament import render_table

FIXTURES = ROOT / "tests" / "fixtures" / "maze"


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
