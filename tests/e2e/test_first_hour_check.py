"""`verify check` outside the repository: the real cause when no test-case folder is found, and a
broken test-case file is a bad input (exit 2, one line naming the file), not the entry's fault."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRY = ROOT / "submissions" / "desert" / "reference"


def _check(cwd: Path, *args: str):
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "check", *args,
                           "--sandbox", "none"], capture_output=True, text=True, cwd=cwd)


def test_no_test_case_folder_is_named_as_the_cause(tmp_path):
    shutil.copytree(ENTRY, tmp_path / "ref")
    done = _check(tmp_path, "ref", "--case", "spec-example")
    assert "no test case folder found for desert (give --testcases DIR)" in done.stdout + done.stderr
    assert "no case matches" not in done.stdout + done.stderr


def test_a_broken_case_file_is_a_bad_input_exit_2(tmp_path):
    shutil.copytree(ENTRY, tmp_path / "ref")
    (tmp_path / "tc").mkdir()
    (tmp_path / "tc" / "bad.txt").write_text("S..X\n")
    done = _check(tmp_path, "ref", "--testcases", "tc")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert "tc/bad.txt" in done.stderr and "line 1, column 4" in done.stderr
