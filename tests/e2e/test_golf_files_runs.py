"""A golf entry's files under real runs: what it may read, and its ranked size."""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
from echo_contest import write_entry  # noqa: E402

from tests.unit.test_golf_files import contest as echo_contest_fixture
from tests.unit.test_golf_files import run

contest = echo_contest_fixture       # the unit half's fixture, used here by name


def standings() -> dict[str, dict]:
    result = run("rank", "echo", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    rows = data["standings"] if isinstance(data, dict) else data
    return {row["entry"]: row for row in rows}


def test_a_source_running_another_file_of_its_folder_fails_its_cases(contest):
    checked = run("check", "submissions/echo/helper", "submissions/echo/toml")
    assert checked.exit_code != 0, checked.output
    assert "No such file or directory" in checked.output       # solve.py, entry.toml: not there
    assert "AC" not in checked.output.split()


def test_it_is_not_ranked_at_its_short_source_s_size(contest):
    board = standings()
    assert board["echo/honest"]["rank"] == 1 and board["echo/honest"]["passed"]
    for short in ("echo/helper", "echo/toml"):
        assert board[short]["rank"] is None and not board[short]["passed"]
        assert board[short]["bytes"] < board["echo/honest"]["bytes"]     # what it would have won by


def test_a_perl_module_of_its_folder_is_not_there_to_load(contest):
    """`-I. -MSolve`: the flags cost 10, the module they would load nothing."""
    perl = write_entry(contest / "submissions" / "echo" / "module", "main.pl", "Solve::run()\n", language="perl",
                       extra='flags = ["-I.", "-MSolve"]\n')
    (perl / "Solve.pm").write_text("package Solve; sub run { print while <STDIN> } 1;\n")
    checked = run("check", "submissions/echo/module")
    assert checked.exit_code != 0 and "BEGIN failed" in checked.output, checked.output   # use Solve: not found
