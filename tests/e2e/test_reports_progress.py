"""The progress of a check: counts, elapsed time and time left on a terminal; nothing otherwise."""
from __future__ import annotations

import io
import subprocess
import sys

from verify.commands.progress import Progress
from verify.results import CaseResult
from verify.verdict import Status, Verdict


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _result(status: Status = Status.ACCEPTED) -> CaseResult:
    return CaseResult("desert/\x1b[31mawk", "map-[bold]1", Verdict(status, "x"))


def test_on_a_terminal_it_shows_counts_elapsed_and_time_left():
    stream = _Terminal()
    progress = Progress(stream)
    progress.finished(0, _result(), 3, 10)
    progress.finished(0, _result(Status.WRONG), 4, 10)
    shown = stream.getvalue()
    progress.close()
    assert "4/10" in shown and "elapsed" in shown and "left" in shown and "0:00:0" in shown
    assert "map-[bold]1: WA" in shown                   # entry text is not rich markup
    assert "\x1b[31mawk" not in shown and "\\x1b[31mawk" in shown


def test_nothing_when_not_a_terminal():
    stream = io.StringIO()
    progress = Progress(stream)
    progress.finished(0, _result(), 1, 2)
    progress.close()
    assert stream.getvalue() == ""


def test_the_command_line_does_not_import_rich_at_start():
    code = "import sys, verify.cli; print('rich' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"
