"""Settings as the commands built from them use them: runs, builds and their cache."""
from __future__ import annotations

import os

import click
import pytest
from click.testing import CliRunner

from verify.cli.options import cluster_option, runner_option, settings_of
from verify.settings import Settings


def test_the_cli_builds_them_once_and_its_options_refine_them(monkeypatch):
    seen = []

    @click.command()
    @runner_option
    @cluster_option
    def show(runner, cluster) -> None:
        settings = settings_of(click.get_current_context())
        seen.append(settings)
        click.echo(f"{settings.sandbox} {settings.accounting} {cluster} {runner.resolved.accounting_policy}")

    monkeypatch.setenv("VERIFY_CLUSTER", "tcp://env:1")
    monkeypatch.setenv("VERIFY_ACCOUNTING", "cgroup")
    given = Settings.from_environment({"VERIFY_CLUSTER": "tcp://given:2"})
    done = CliRunner().invoke(show, ["--sandbox", "none", "--accounting", "rlimits"], obj=given)
    assert done.exit_code == 0, done.output
    assert done.output == "none rlimits tcp://given:2 rlimits\n"        # the settings given, not the environment
    assert seen[-1].cluster == "tcp://given:2"
    done = CliRunner().invoke(show, ["--sandbox", "none", "--accounting", "rlimits", "--cluster", "tcp://option:3"])
    assert done.output == "none rlimits tcp://option:3 rlimits\n", done.output
    done = CliRunner().invoke(show, ["--sandbox", "none", "--accounting", "rlimits"])
    assert done.output == "none rlimits tcp://env:1 rlimits\n", done.output   # none given: the environment's


def test_the_cache_the_cli_is_given_is_where_its_runs_build(tmp_path, monkeypatch):
    """Given settings (not the environment) say where verify-init, the seccomp filter and the
    self-test's build go."""
    import shutil

    from verify.cli import main
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("needs a C compiler")
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "from-the-environment"))
    given = Settings.from_environment({**os.environ, "VERIFY_CACHE": str(tmp_path / "given")})
    done = CliRunner().invoke(main, ["langs", "c"], obj=given)
    assert done.exit_code == 0, done.output
    assert (tmp_path / "given" / "c").is_dir() and (tmp_path / "given" / "init").is_dir()
    assert not (tmp_path / "from-the-environment").exists()


def test_a_bad_sandbox_word_in_the_environment_is_one_line_exit_2(monkeypatch):
    @click.command()
    @runner_option
    def show(runner) -> None:
        click.echo(runner.isolation)

    monkeypatch.setenv("VERIFY_SANDBOX", "sometimes")
    from verify.runner import SandboxUnavailable
    done = CliRunner().invoke(show, [])
    assert isinstance(done.exception, SandboxUnavailable) and "VERIFY_SANDBOX='sometimes'" in str(done.exception)
    assert CliRunner().invoke(show, ["--sandbox", "none", "--accounting", "rlimits"]).exit_code == 0
