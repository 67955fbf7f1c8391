"""What `verify check` does beside its work, and that it changes nothing it says: the isolation
resolved while the entries load (the same isolation, its failure said first), and the report's
modules imported while the first program runs."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from verify.cli import main
from verify.cli.options import ResolvingIsolation, isolation_first, runner_option, runner_option_beside
from verify.contests.contract import BatchTask
from verify.grading.runners import LocalRunner
from verify.pipeline.observe import WhileRunning
from verify.runner import Program, resolve_isolation
from verify.runner.mode import SandboxUnavailable
from verify.settings import Settings
from verify.verdict import Status, Verdict

ROOT = Path(__file__).resolve().parents[2]


def test_an_isolation_resolved_beside_is_the_one_resolved_at_once():
    @click.command()
    @runner_option
    def at_once(runner) -> None:
        click.echo(repr(runner.resolved))

    @click.command()
    @runner_option_beside
    def beside(runner) -> None:
        with isolation_first(runner):
            click.echo(repr(runner.resolved))

    arguments = ["--sandbox", "none", "--accounting", "rlimits"]
    first, second = CliRunner().invoke(at_once, arguments), CliRunner().invoke(beside, arguments)
    assert first.exit_code == second.exit_code == 0, (first.output, second.output)
    assert first.output == second.output


def test_an_isolation_that_cannot_be_had_is_said_before_any_other_failure(monkeypatch):
    monkeypatch.setenv("VERIFY_SANDBOX", "sometimes")
    given = Settings.from_environment({"VERIFY_SANDBOX": "sometimes"})
    for arguments in ([], ["no-such-entry"], ["--changed-since", "HEAD", "no-such-entry"]):
        done = CliRunner().invoke(main, ["check", *arguments], obj=given)
        assert isinstance(done.exception, SandboxUnavailable), (arguments, done.output)
        assert "VERIFY_SANDBOX='sometimes'" in str(done.exception)


def test_the_command_line_says_it_in_one_line():
    done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "check"], cwd=ROOT,
                          capture_output=True, text=True, env={"VERIFY_SANDBOX": "sometimes", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2
    assert done.stderr == "verify: error: VERIFY_SANDBOX='sometimes': expected one of auto, bwrap, none\n"


def test_a_resolving_isolation_gives_what_resolving_gave_or_raises_what_it_raised():
    isolation = resolve_isolation("none", cgroups=False)
    assert ResolvingIsolation(lambda: isolation).result() is isolation
    runner = LocalRunner(ResolvingIsolation(lambda: isolation).result, forkserver=False, cache=Path("/nonexistent"))
    assert runner.resolved is isolation and runner.isolation == isolation.name

    def refused():
        raise SandboxUnavailable("no sandbox here")
    resolving = ResolvingIsolation(refused)
    failing = LocalRunner(resolving.result, forkserver=False, cache=Path("/nonexistent"))
    for _ in range(2):
        with pytest.raises(SandboxUnavailable, match="no sandbox here"):
            failing.await_isolation()
    resolving.wait()                    # (raises nothing)
    failing.close()
    assert sys.getswitchinterval() == pytest.approx(0.005)   # (set back)


class Judge:
    def __init__(self, reader: object = None):
        self.fed: list[bytes] = []
        if reader is not None:
            self.pipe_reader = lambda: reader

    def feed(self, chunk: bytes) -> Verdict | None:
        self.fed.append(chunk)
        return None

    def finish(self) -> Verdict:
        return Verdict(Status.ACCEPTED)


def test_while_running_does_its_work_once_when_a_program_starts_and_passes_the_judge_on():
    done = []
    started = threading.Event()

    def work():
        done.append(threading.current_thread().name)
        started.set()

    ahead = WhileRunning(work)
    reader = object()
    judges = [Judge(reader), Judge()]
    task = BatchTask("case", Program("c", Path("main.c")), b"", iter(judges).__next__)
    wrapped = ahead.task(0, None, task)  # type: ignore[arg-type]
    assert isinstance(wrapped, BatchTask) and wrapped.stdin == task.stdin and wrapped.program == task.program
    first = wrapped.judge()
    assert done == []                           # made, not started
    assert first.feed(b"x") is None and judges[0].fed == [b"x"]
    assert first.pipe_reader() is reader        # the runner asks for the reader when the run starts
    assert started.wait(10)
    second = wrapped.judge()
    assert second.pipe_reader() is None         # the real judge has none: none
    assert second.finish().status is Status.ACCEPTED
    ahead.close()
    assert done == ["verify-while-running"]     # once, on its own thread
    assert sys.getswitchinterval() == pytest.approx(0.005)   # (set back)
    assert ahead.task(0, None, "not a batch task") == "not a batch task"  # type: ignore[arg-type]


def test_while_running_without_a_program_started_does_nothing_and_a_failing_work_changes_nothing():
    def work():
        raise RuntimeError("no")
    ahead = WhileRunning(work)
    ahead.close()
    failing = WhileRunning(work)
    judge = failing.task(0, None, BatchTask("case", Program("c", Path("main.c")), b"", Judge))  # type: ignore[arg-type]
    judge.judge().pipe_reader()
    failing.close()


@pytest.mark.parametrize("output_format", ["table", "json"])
def test_a_check_imports_tabulate_while_its_program_runs_only_for_a_table(output_format):
    """The report's tabulate is imported during the run, not after it; a JSON report imports none."""
    script = ("import json, sys\n"
              "import verify.pipeline.observe as observe\n"
              "seen = []\n"
              "class Watched(observe.WhileRunning):\n"
              "    def _run(self):\n"
              "        super()._run(); seen.append('tabulate' in sys.modules)\n"
              "observe.WhileRunning = Watched\n"
              "import verify.commands.check as check\n"
              "check.WhileRunning = Watched\n"
              "from verify.cli import run\n"
              "try:\n"
              "    run()\n"
              "finally:\n"
              "    sys.stderr.write('SEEN ' + json.dumps([seen, 'tabulate' in sys.modules]) + '\\n')\n")
    done = subprocess.run([sys.executable, "-c", script, "check", "submissions/desert/reference", "--case",
                           "adjacent-row", "--sandbox", "none", "--accounting", "rlimits", "--format", output_format],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    seen, imported = json.loads(done.stderr.rpartition("SEEN ")[2])
    assert seen == ([True] if output_format == "table" else [])
    assert imported == (output_format == "table")


def test_the_command_line_leaves_its_objects_to_the_exit_and_still_runs_its_exit_callbacks():
    script = ("import atexit, gc, sys, weakref\n"
              "class Kept:\n"
              "    pass\n"
              "kept = Kept()\n"
              "weakref.finalize(kept, sys.stderr.write, 'finalized\\n')\n"
              "atexit.register(lambda: sys.stderr.write(f'frozen {gc.get_freeze_count() > 0}\\n'))\n"
              "from verify.cli import run\n"
              "run()\n")
    done = subprocess.run([sys.executable, "-c", script, "--version"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and "version" in done.stdout
    assert done.stderr == "frozen True\nfinalized\n"
