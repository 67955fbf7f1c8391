"""What `verify check` does beside its work, and that it changes nothing it says: the isolation
resolved while the entries load (the same isolation, its failure said first)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from verify.cli import main
from verify.cli.options import isolation_first, runner_option, runner_option_beside
from verify.grading.runners import LocalRunner, ResolvingIsolation
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
    runner = LocalRunner(ResolvingIsolation(lambda: isolation), forkserver=False, cache=Path("/nonexistent"))
    assert runner.resolved is isolation and runner.isolation == isolation.name

    def refused():
        raise SandboxUnavailable("no sandbox here")
    failing = LocalRunner(ResolvingIsolation(refused), forkserver=False, cache=Path("/nonexistent"))
    for _ in range(2):
        with pytest.raises(SandboxUnavailable, match="no sandbox here"):
            failing.await_isolation()
    failing.close()                     # (waits for the thread, raises nothing)
