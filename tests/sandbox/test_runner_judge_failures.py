"""The judge's own failures are never the entry's: a sandbox that cannot start a program is
SandboxUnavailable (exit 2, one line with the fix), never a runtime error, a compile error
or a wrong answer, and it stops the whole command.

The failures are real ones: verify-init failing in the child before the exec (a seccomp
filter it cannot load), bubblewrap failing before verify-init runs (a `bwrap` that cannot
mount /proc, as in a container that masks it), each leaving verify-init's report saying
so or no report at all."""
from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from verify.commands.jobs import CaseJob, run_case
from verify.contests.contract import BatchTask
from verify.errors import JudgeFailure
from verify.grading import Grader, LocalRunner, grade_batch
from verify.runner import Limits, Program, SandboxUnavailable, cgroup, isolation, machine, run_program
from verify.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]
LIMITS = Limits(wall_time=10, cpu_time=10)
FAKE_BWRAP = """#!/bin/sh
for word in "$@"; do
    if [ "$word" = --proc ]; then
        echo "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" >&2
        exit 1
    fi
done
exec {bwrap} "$@"
"""


class Accept:
    def feed(self, chunk: bytes) -> Verdict | None:
        return None

    def finish(self) -> Verdict:
        return Verdict.accept()


@pytest.fixture
def program(tmp_path) -> Program:
    source = tmp_path / "ok.py"
    source.write_text("print('ok')\n")
    return Program("python", source)


@pytest.fixture
def broken_seccomp(tmp_path, use_isolation) -> isolation.Isolation:
    """The machine's isolation, with a seccomp filter verify-init refuses to load (3 bytes:
    not whole instructions): the child's set-up fails before the exec."""
    chosen = use_isolation("none", cgroups=False)
    bad = tmp_path / "bad.bpf"
    bad.write_bytes(b"bad")
    return dataclasses.replace(chosen, seccomp=bad)


def test_a_set_up_failure_in_verify_init_is_the_judges_failure(program, broken_seccomp):
    if broken_seccomp.helper is None:
        pytest.skip("no verify-init here")
    with pytest.raises(SandboxUnavailable) as failed:
        run_program(program, isolation=broken_seccomp)
    line = str(failed.value)
    assert "verify-init: seccomp filter" in line and "fix:" in line and "\n" not in line


def test_bubblewrap_failing_before_verify_init_is_the_judges_failure(program, tmp_path, use_isolation):
    chosen = use_isolation("bwrap" if shutil.which("bwrap") else "none", cgroups=False)
    if chosen.bwrap is None:
        pytest.skip("no bubblewrap here")
    fake = tmp_path / "bwrap"
    fake.write_text(FAKE_BWRAP.format(bwrap=chosen.bwrap))
    fake.chmod(0o755)
    with pytest.raises(SandboxUnavailable, match="Can't mount proc"):
        run_program(program, isolation=dataclasses.replace(chosen, bwrap=str(fake)))


def test_the_grading_core_and_the_check_jobs_stop_on_it(program, broken_seccomp):
    if broken_seccomp.helper is None:
        pytest.skip("no verify-init here")
    runner = LocalRunner(broken_seccomp)
    task = BatchTask("case", program, b"", Accept)
    with pytest.raises(JudgeFailure):
        grade_batch(runner, task, LIMITS)
    job = CaseJob(label="x", folder=program.folder, digest="", testcases=None, patterns=(), index=0,
                  task_digest="", limits=LIMITS, broken=None, task=task)
    with pytest.raises(JudgeFailure):
        run_case(Grader(runner), job)


def test_resolving_an_isolation_makes_a_trial_run(monkeypatch, tmp_path):
    bad = tmp_path / "bad.bpf"
    bad.write_bytes(b"bad")
    monkeypatch.setattr(isolation.seccomp, "available", lambda: True)
    monkeypatch.setattr(isolation.seccomp, "filter_file", lambda **options: bad)
    with pytest.raises(SandboxUnavailable, match="verify-init: seccomp filter"):
        isolation.resolve("none", "rlimits")


def test_verify_check_exits_2_with_one_line_when_the_sandbox_cannot_start(tmp_path):
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.skip("no bubblewrap here")
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "bwrap").write_text(FAKE_BWRAP.format(bwrap=bwrap))
    (fake_bin / "bwrap").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake_bin}:{os.environ['PATH']}", "VERIFY_SANDBOX": "bwrap"}
    done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "check",
                           "submissions/desert/awk", "--case", "spec-example"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Can't mount proc" in lines[0] and "fix:" in lines[0], done.stderr


@pytest.mark.parametrize("root, expected", [(True, "as a normal user inside the container"),
                                            (False, "--security-opt 'unmask=/proc/*'")])
def test_in_a_container_the_fix_is_the_containers_run_flags(monkeypatch, root, expected):
    monkeypatch.setattr(machine, "container", lambda: "podman")
    monkeypatch.setattr(machine, "is_root", lambda: root)
    fix = machine.sandbox_fix()
    assert fix.startswith("inside a podman container") and expected in fix


def test_on_a_host_the_fix_follows_what_restricts_it(monkeypatch):
    monkeypatch.setattr(machine, "container", lambda: None)
    monkeypatch.setattr(machine, "apparmor_restricts_userns", lambda: True)
    assert "kernel.apparmor_restrict_unprivileged_userns=0" in machine.sandbox_fix()
    monkeypatch.setattr(machine, "apparmor_restricts_userns", lambda: False)
    monkeypatch.setattr(machine, "user_namespaces_disabled", lambda: True)
    assert "unprivileged_userns_clone=1" in machine.sandbox_fix()
    monkeypatch.setattr(machine, "cgroup_v2_only", lambda: True)
    monkeypatch.setattr(machine, "is_root", lambda: False)
    monkeypatch.setattr(machine.shutil, "which", lambda name: "/usr/bin/" + name)
    assert "systemd-run --user --scope -p Delegate=yes" in machine.cgroup_fix()
    monkeypatch.setattr(machine, "cgroup_v2_only", lambda: False)
    assert "as root" in machine.cgroup_fix()


def test_a_run_whose_cgroup_cannot_be_made_is_the_judges_failure(program, tmp_path, use_isolation):
    """Once cgroups are in force, a run never goes without one quietly (its verdicts would
    come from other counts than every other run's)."""
    if cgroup.probed_setup() is None:
        pytest.skip("no cgroup per run on this machine")
    chosen = use_isolation("none", cgroups=True)
    gone = cgroup.CgroupSetup(chosen.cgroups.version,
                              tuple((name, tmp_path / "no-such-cgroup") for name, _ in chosen.cgroups.parents))
    with pytest.raises(cgroup.RunCgroupFailed, match="cannot make a run's cgroup") as failed:
        run_program(program, isolation=dataclasses.replace(chosen, cgroups=gone))
    assert isinstance(failed.value, JudgeFailure) and "\n" not in str(failed.value)


def test_a_command_verify_made_that_cannot_be_run_is_the_judges_failure(tmp_path, use_isolation):
    """An interpreter, compiler or artefact out of the run's reach (a toolchain under a 0700
    /root, as a fresh uid sees it) never reads as the entry's compile or runtime error."""
    chosen = use_isolation("none", cgroups=False)
    if chosen.helper is None:
        pytest.skip("no verify-init here")
    from verify.runner.process import run_command
    with pytest.raises(SandboxUnavailable, match="verify-init: cannot run /no/such/tool") as failed:
        run_command(["/no/such/tool"], workdir=tmp_path, limits=LIMITS, isolation=chosen)
    assert "install that tool where every user can run it" in str(failed.value)
