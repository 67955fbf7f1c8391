"""Sandbox policies on real runs."""
from __future__ import annotations

import click
import pytest
from click.testing import CliRunner
from machine_modes import machine_modes, mode_id

from verify.cli.options import runner_option
from verify.runner import Limits, Program, isolation, run_program
from verify.runner.process import STDERR_TAIL, run_command
from verify.runner.sandbox import Sandbox


def test_a_cgroup_where_one_can_be_had():
    if isolation.probed_setup() is None:
        pytest.skip("no cgroup per run can be made on this machine")
    chosen = isolation.resolve("none", "auto")
    assert chosen.accounting.startswith("cgroup") and isolation.differences(chosen.name) == ""


def test_stderr_head_and_tail_are_both_kept(tmp_path, default_isolation):
    source = tmp_path / "noisy.py"
    source.write_text("import sys\nsys.stderr.write('first line\\n' + 'x' * 10000 + '\\nlast line\\n')\n")
    result = run_program(Program("python", source), isolation=default_isolation)
    assert result.stderr_head.startswith("first line\n") and len(result.stderr_head) == STDERR_TAIL
    assert result.stderr_tail.endswith("last line\n") and "first" not in result.stderr_tail


@pytest.mark.parametrize("mode", machine_modes(), ids=mode_id)
def test_tmp_in_the_environment_is_the_runs_own_writable_folder(tmp_path, use_isolation, mode):
    chosen = use_isolation(*mode)
    with Sandbox(tmp_path, isolation=chosen) as box:
        env = box.environment({"GOCACHE": "{tmp}/go-cache", "PLAIN": "no placeholder"})
        assert env["GOCACHE"] == env["TMPDIR"] + "/go-cache" and env["PLAIN"] == "no placeholder"
    script = 'mkdir "$CACHE" && echo ok > "$CACHE/f" && [ "$CACHE" = "$TMPDIR/cache" ] && echo True'
    result = run_command(["/bin/sh", "-c", script], workdir=tmp_path, limits=Limits(), isolation=chosen,
                         env={"CACHE": "{tmp}/cache"})
    assert result.exit_code == 0, result.stderr_tail
    assert result.stdout == b"True\n"


def test_rlimits_accounting_is_asked_by_name_and_says_what_may_differ():
    chosen = isolation.resolve("none", "rlimits")
    assert chosen.cgroups is None and chosen.accounting == "rlimits" and chosen.accounting_policy == "rlimits"
    assert "rlimits" in chosen.name.split("+")
    assert "memory limit" in isolation.differences(chosen.name)


def test_the_accounting_option_reaches_the_runner_in_either_order(monkeypatch):
    @click.command()
    @runner_option
    def show(runner) -> None:
        click.echo(runner.resolved.accounting_policy)

    monkeypatch.setenv("VERIFY_ACCOUNTING", "auto")
    for argv in (["--sandbox", "none", "--accounting", "rlimits"], ["--accounting", "rlimits", "--sandbox", "none"]):
        done = CliRunner().invoke(show, argv)
        assert done.exit_code == 0 and done.output == "rlimits\n", done.output
    monkeypatch.setenv("VERIFY_ACCOUNTING", "rlimits")
    assert CliRunner().invoke(show, ["--sandbox", "none"]).output == "rlimits\n"
    assert CliRunner().invoke(show, ["--accounting", "never"]).exit_code == 2
