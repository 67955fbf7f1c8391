"""What entries print, escaped in every report of a whole command."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.unit.test_report_escaping import _RAW_CONTROL, _parse_junit, markdown_table, unescaped_pipes

REPO = Path(__file__).resolve().parents[2]


HOSTILE = REPO / "tests" / "fixtures" / "hostile" / "entries"


def _check(*folders: str, fmt: str, tmp_path: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", "from verify.cli import run; run()", "check",
         *(str(HOSTILE / folder) for folder in folders), "--testcases", str(REPO / "testcases" / "desert"),
         "--case", "spec-example", "--format", fmt],
        capture_output=True, timeout=120, cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "VERIFY_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr
    return done.stdout.decode("utf-8")


def test_ansi_from_stderr_never_reaches_the_terminal(tmp_path):
    out = _check("ansi_stderr", "pipe_printer", fmt="table", tmp_path=tmp_path)
    assert not _RAW_CONTROL.search(out)
    assert ("desert/ansi_stderr: spec-example: runtime error: exit code 1: \\x1b[2J\\x1b[31mred\\x1b[0m "
            "\\x07bell \\x08back \\x9b31m c1 \\u202eevil \\x00nul") in out


def test_markdown_report_of_hostile_printers(tmp_path):
    out = _check("ansi_stderr", "pipe_printer", fmt="markdown", tmp_path=tmp_path)
    table = markdown_table(out)
    assert len(table) == 4 and all(unescaped_pipes(line) == 7 for line in table)
    pipes = next(line for line in table if "pipe\\_printer" in line)
    assert "exit code 1: a \\| b \\| c \\<script\\>alert(1)\\</script\\> \\`code\\` \\[x\\](http://evil)" in pipes
    assert not _RAW_CONTROL.search(out)


def test_junit_report_of_hostile_printers(tmp_path):
    out = _check("ansi_stderr", "pipe_printer", fmt="junit", tmp_path=tmp_path)
    root = _parse_junit(out)
    messages = [failure.get("message") for failure in root.iter("failure")]
    assert messages[0] == ("exit code 1: \\x1b[2J\\x1b[31mred\\x1b[0m \\x07bell \\x08back \\x9b31m c1 "
                           "\\u202eevil \\x00nul")
    assert messages[1] == "exit code 1: a | b | c <script>alert(1)</script> `code` [x](http://evil) **bold**"
    assert "an ordinary first line \\rreturn\n" in next(root.iter("failure")).text
