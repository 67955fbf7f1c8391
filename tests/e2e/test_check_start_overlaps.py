"""What `verify check` does beside its work, and that it changes nothing it says: the isolation
resolved while the entries load (the same isolation, its failure said first); and what it
leaves out of its start (tabulate, the collections at its exit)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from verify.cli import main
from verify.cli.options import ResolvingIsolation, isolation_first, runner_option, runner_option_beside
from verify.grading.runners import LocalRunner
from verify.runner import resolve_isolation
from verify.runner.mode import SandboxUnavailable
from verify.settings import Settings

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


@pytest.mark.parametrize("output_format", ["table", "json", "markdown"])
def test_a_check_imports_no_tabulate_and_no_package_metadata(output_format):
    """The check's report is written without tabulate, whose import (with importlib.metadata
    and wcwidth) would cost the command more than the table's layout does."""
    script = ("import json, sys\n"
              "from verify.cli import run\n"
              "try:\n"
              "    run()\n"
              "finally:\n"
              "    sys.stderr.write('SEEN ' + json.dumps(sorted({'tabulate', 'wcwidth', 'importlib.metadata'}"
              " & set(sys.modules))) + '\\n')\n")
    done = subprocess.run([sys.executable, "-c", script, "check", "submissions/desert/reference", "--case",
                           "adjacent-row", "--sandbox", "none", "--accounting", "rlimits", "--format", output_format],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "adjacent-row" in done.stdout
    assert json.loads(done.stderr.rpartition("SEEN ")[2]) == []


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
