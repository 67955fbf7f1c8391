"""A persistent session reports what its processes used, as a run does: its CPU time and
peak memory (verify/runner/session.py), counted by its cgroup or, with rlimits, by
verify-init; and the persistent asker of a match carries them into the case's result."""
import shutil
from pathlib import Path

import pytest

from verify.contests.contract import InteractiveTask
from verify.grading import LocalRunner, grade_interactive
from verify.runner import Limits, Program, Session
from verify.verdict import Verdict

pytestmark = pytest.mark.skipif(not shutil.which("bwrap"), reason="sessions run under bubblewrap here")

LIMITS = Limits(wall_time=20, cpu_time=10, memory=512 << 20, output=1 << 20)
HOLDER = """
import sys, time
held = []
for line in sys.stdin:
    if line.startswith("hold"):
        held.append(bytearray(int(line.split()[1]) << 20))      # touched: resident
    elif line.startswith("spin"):
        end = time.process_time() + float(line.split()[1])
        while time.process_time() < end:
            pass
    print("ok", flush=True)
"""


def holder(folder: Path) -> Program:
    source = folder / "holder.py"
    source.write_text(HOLDER)
    return Program("python", source)


@pytest.fixture(params=[True, False], ids=["cgroup", "rlimits"])
def isolation(request, use_isolation):
    return use_isolation("bwrap", cgroups=request.param)


def test_a_closed_session_reports_its_peak_memory_and_cpu_time(tmp_path, isolation):
    session = Session(holder(tmp_path), LIMITS, isolation=isolation)
    with session:
        assert session.exchange(b"hold 96\n", timeout=10) == b"ok"
        assert session.exchange(b"spin 0.3\n", timeout=10) == b"ok"
        assert session.peak_memory == 0 and session.cpu_time == 0.0      # known once it is closed
    assert 96 << 20 <= session.peak_memory < 400 << 20, session.peak_memory
    assert 0.3 <= session.cpu_time < 5, session.cpu_time


def test_a_session_that_crashed_reports_what_it_used_too(tmp_path, isolation):
    source = tmp_path / "crash.py"
    source.write_text("import sys\nheld = bytearray(64 << 20)\nsys.stdin.readline()\nraise SystemExit(3)\n")
    session = Session(Program("python", source), LIMITS, isolation=isolation)
    with session:
        with pytest.raises(Exception, match="crashed"):
            session.exchange(b"go\n", timeout=10)
    assert session.peak_memory >= 64 << 20 and session.cpu_time > 0


def play_holding(ask) -> Verdict:
    """A match of three requests to a persistent program."""
    replies = [ask(request) for request in (b"hold 80\n", b"spin 0.2\n", b"hold 1\n")]
    return Verdict.accept() if all(reply.line == "ok" for reply in replies) else Verdict.wrong("no")


def test_a_persistent_match_reports_its_sessions_memory_and_cpu_time(tmp_path, isolation):
    with LocalRunner(isolation) as runner:
        task = InteractiveTask("holding", holder(tmp_path), play_holding, persistent=True, limits=LIMITS,
                               step_timeout=10)
        result = grade_interactive(runner, task)
    assert result.verdict.accepted, result.verdict
    assert result.memory >= 80 << 20 and result.cpu_time >= 0.2, (result.memory, result.cpu_time)
