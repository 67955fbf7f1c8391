"""`verify fuzz` and `verify check --fuzz` from the command line: exit codes, one-line errors,
the report, --save and the commands it prints, determinism whatever -j."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from verify.cli import main

ROOT = Path(__file__).parents[2]
FLAWED = ROOT / "tests" / "fixtures" / "flawed"


def verify(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_help():
    result = CliRunner().invoke(main, ["fuzz", "--help"])
    assert result.exit_code == 0
    for option in ("--runs", "--time", "--seed", "--jobs", "--save", "--max-size", "--replay", "--ignore"):
        assert option in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["--runs", "5", "--time", "3"], "give --runs or --time, not both"),
    (["--replay", "x.txt", "--runs", "3"], "--replay runs one saved input"),
])
def test_bad_usage_is_one_line_and_exit_2(args, message):
    done = verify("fuzz", ROOT / "submissions" / "desert" / "reference", *args)
    assert done.returncode == 2 and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""


def test_an_entry_folder_that_is_not_there_is_one_line_and_exit_2(tmp_path):
    done = verify("fuzz", tmp_path / "nothing")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


def test_a_correct_entry_exits_0():
    done = verify("fuzz", ROOT / "submissions" / "desert" / "reference", "--runs", "8", "-j", "2")
    assert done.returncode == 0, done.stderr
    assert "nothing failed in 8 inputs (seed 0" in done.stdout and "maps up to 10x10" in done.stdout


def without_times(text: str) -> str:
    return re.sub(r"[\d.]+ s\b", "T s", text)


def test_a_failure_is_shrunk_printed_saved_and_reproduced(tmp_path):
    entry = FLAWED / "desert-one-row"
    done = verify("fuzz", entry, "--seed", "3", "--runs", "50", "--save", tmp_path)
    assert done.returncode == 1, done.stderr
    saved = tmp_path / "fuzz-runtime-error.txt"
    assert saved.read_text() in ("SE\n", "ES\n")
    out = done.stdout
    assert "failed: runtime error" in out and "verdict: runtime error" in out
    assert "--seed 3 --runs " in out and f"--replay {saved}" in out
    assert f"verify check {entry} --testcases {tmp_path} --case fuzz-runtime-error" in out
    # each printed command reproduces the failure
    replay = verify("fuzz", entry, "--replay", saved)
    assert replay.returncode == 1 and "failure class: runtime error" in replay.stdout
    check = verify("check", entry, "--testcases", tmp_path, "--case", "fuzz-runtime-error")
    assert check.returncode == 1 and "fuzz-runtime-error" in check.stdout
    runs = re.search(r"--seed 3 --runs (\d+)", out).group(1)
    again = verify("fuzz", entry, "--seed", "3", "--runs", runs, "-j", "2")
    assert again.returncode == 1
    assert without_times(again.stdout).splitlines()[1:5] == without_times(out).splitlines()[1:5]


def test_a_second_save_of_the_same_failure_takes_a_new_name(tmp_path):
    for _ in range(2):
        assert verify("fuzz", FLAWED / "desert-one-row", "--save", tmp_path).returncode == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fuzz-runtime-error-2.txt", "fuzz-runtime-error.txt"]


def test_the_same_seed_gives_the_same_finding_whatever_the_jobs():
    outputs = [verify("fuzz", FLAWED / "desert-repeated-death", "--seed", "5", "-j", jobs).stdout for jobs in "12"]
    assert without_times(outputs[0]) == without_times(outputs[1])
    assert "failed: wrong: RepeatedDeath" in outputs[0]


def test_check_fuzz_adds_generated_cases():
    done = verify("check", ROOT / "submissions" / "desert" / "reference", "--fuzz", "3", "--case", "fuzz-*")
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(f"fuzz-0-{i}" in done.stdout for i in (1, 2, 3))
    flawed = verify("check", FLAWED / "desert-one-row", "--fuzz", "10", "--case", "fuzz-*")
    assert flawed.returncode == 1 and "RE" in flawed.stdout


def entry(folder: Path, script: str, language: str = "python", source: str = "main.py") -> Path:
    folder.mkdir()
    (folder / source).write_text(script)
    (folder / "entry.toml").write_text(f'name = "{folder.name}"\ncontest = "desert"\n'
                                       f'language = "{language}"\nsource = "{source}"\n')
    return folder


def test_what_an_entry_prints_is_shown_escaped(tmp_path):
    hostile = entry(tmp_path / "hostile", 'import sys\nsys.stdout.write("\\x1b[2J\\x1b]0;owned\\x07R+0\\n")\n')
    done = verify("fuzz", hostile, "--runs", "3")
    assert done.returncode == 1, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "failed: presentation error" in done.stdout


def test_an_entry_that_does_not_build_is_one_line_and_exit_1(tmp_path):
    broken = entry(tmp_path / "broken", "int main( {", language="c", source="main.c")
    done = verify("fuzz", broken)
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1
    assert "cannot run main.c: compile error" in done.stderr and done.stdout == ""


def test_a_budget_in_seconds():
    done = verify("fuzz", ROOT / "submissions" / "desert" / "reference", "--time", "1")
    assert done.returncode == 0 and "nothing failed in" in done.stdout


def test_a_maze_finding_is_saved_in_the_maze_format_and_replayed(tmp_path):
    solver = FLAWED / "maze-solver-border-end"
    assert verify("fuzz", solver, "--save", tmp_path).returncode == 1
    saved = tmp_path / "fuzz-crash.txt"
    assert verify("maze", "check", saved, "--size-range", "2..50").returncode == 0
    replay = verify("fuzz", solver, "--replay", saved)
    assert replay.returncode == 1 and "failure class: wrong: crash" in replay.stdout
    wrong_role = verify("fuzz", FLAWED / "maze-architect-odd", "--replay", saved)
    assert wrong_role.returncode == 2 and "the entry has no solver" in wrong_role.stderr
