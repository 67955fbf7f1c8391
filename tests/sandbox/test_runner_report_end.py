"""A run whose sandbox ends at verify-init's report (`Sandbox.ends_at_report`: a fork server's
step) is over once that report is read: what the program wrote is read in full from the
pipes, and its verdict does not wait for the processes around it to exit. A report saying the
set-up failed is not such an end: the run is the judge's failure, as without it.

The processes here stand for a step's verify-forkserver: each writes what the program would
have written, then the report, then stays alive (a step's verify-init and verify-forkserver
may still be exiting when verify reads the report)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from verify.runner import Limits, SandboxUnavailable
from verify.runner.process import Started, drive
from verify.runner.sandbox import Report, Sandbox

LIMITS = Limits(wall_time=20, cpu_time=20, output=16 << 20)
STAYS = "import time\nwhile True: time.sleep(60)\n"


class ReportingSandbox:
    """The part of a Sandbox that `drive` uses, for a process that writes the report itself."""

    ends_at_report = True
    ends_by_request = True
    expects_report = True
    cgroup = None
    isolation = SimpleNamespace(name="test", accounting="rlimits")
    backend = SimpleNamespace(namespaced=False)

    def __init__(self) -> None:
        self.report_fd, self.report_write = os.pipe()
        self._report: Report | None = None
        self.stopped = False

    read_report = Sandbox.read_report

    def stop(self, pid: int, pidfd: int) -> None:
        self.stopped = True
        os.kill(pid, signal.SIGKILL)

    def await_end(self, pid: int, pidfd: int) -> None:
        pass

    def kill_leftovers(self) -> None:
        pass


def start(sandbox: ReportingSandbox, script: str) -> Started:
    argv = [sys.executable, "-c", script, str(sandbox.report_write)]
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               pass_fds=[sandbox.report_write])
    os.close(sandbox.report_write)
    return Started(process, argv, time.monotonic())


@pytest.fixture
def reporting():
    sandbox = ReportingSandbox()
    started: list[Started] = []
    yield sandbox, started
    for each in started:
        each.process.kill()
        each.process.wait()
    os.close(sandbox.report_fd)


def test_the_run_ends_at_the_report_with_all_the_output(reporting):
    sandbox, started = reporting
    started.append(start(sandbox, (
        "import os, sys\n"
        "sys.stdout.buffer.write(b'x' * 300_000); sys.stdout.flush()\n"
        "os.write(2, b'said on stderr')\n"
        "os.write(int(sys.argv[1]), b'1500 500 2048 768 1 -1\\n')\n" + STAYS)))
    result = drive(started[0], sandbox, LIMITS)
    assert result.limit is None, result            # not stopped at the wall time: ended at the report
    assert result.stdout == b"x" * 300_000 and result.stdout_bytes == 300_000
    assert "said on stderr" in result.stderr_tail
    assert (result.exit_code, result.signal) == (3, None)            # the report's wait status, 3 << 8
    assert result.cpu_time == pytest.approx(0.002) and result.peak_memory == 2048 * 1024
    assert not sandbox.stopped                          # nothing was left to stop
    assert started[0].process.poll() is None            # the process around it still runs


def test_a_report_of_a_failed_set_up_is_the_judges_failure(reporting):
    sandbox, started = reporting
    started.append(start(sandbox, (
        "import os, sys\n"
        "os.write(2, b'verify-init: cannot switch uid: Operation not permitted\\n')\n"
        "os.write(int(sys.argv[1]), b'0 0 0 32000 0 -1\\n')\n"
        "os._exit(125)\n")))
    with pytest.raises(SandboxUnavailable, match="cannot switch uid"):
        drive(started[0], sandbox, LIMITS)
