"""verify-init's `--go` (a fork server's step, a sandbox built ahead): the program's process is
set up ahead, its uid, capabilities, no-new-privileges and seccomp filter in force, waiting
right before its exec; at go it joins the run's cgroup itself (verify-init stays out) and
execs; without go nothing runs. A step's stdin larger than its pipe still arrives whole."""
import dataclasses
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from verify.runner import Limits, Program, forkserver, seccomp
from verify.runner import run_program as run
from verify.runner.cgroup import CgroupSetup, RunCgroup, probed_setup
from verify.runner.helper import helper_path
from verify.runner.pools import Pools
from verify.runner.sandbox import UID_RANGE

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="verify-init switches uid only as root")

WAIT = 10.0                      # seconds for the process built ahead to reach its go (busy machine)


@pytest.fixture
def helper():
    found = helper_path()
    if found is None:
        pytest.skip("no verify-init (no C compiler)")
    return found


def _status(pid: int) -> dict[str, str]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        fields[name] = value.strip()
    return fields


def _waiting_child(supervisor: int, uid: int) -> int:
    """verify-init's child once it runs as `uid` (its set-up done or under way)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        children = Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text().split()
        for child in children:
            try:
                seen = _status(int(child))
                # (its capabilities are dropped just before it waits for go, asleep)
                if seen["Uid"].split()[0] == str(uid) and seen["CapEff"] == "0" * 16 and \
                        seen["State"].startswith("S"):
                    return int(child)
            except (OSError, KeyError):
                continue
        time.sleep(0.01)
    raise AssertionError("verify-init's child never waited as the run's uid")


def _start(helper: str, options: list[str], fds: list[int], command: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([helper, *options, "--", *command], pass_fds=fds, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)


def test_the_program_waits_hardened_before_its_exec_and_runs_at_go(helper, tmp_path):
    uid = UID_RANGE[0] + os.getpid() % 1000
    go_read, go_write = os.pipe()
    report_read, report_write = os.pipe()
    options = ["--go", str(go_read), "--report", str(report_write), "--uid", str(uid), "--nproc", "8", "--cpu", "3"]
    fds = [go_read, report_write]
    code = seccomp.filter_file()
    if code is not None:
        filter_fd = os.open(code, os.O_RDONLY)
        options += ["--seccomp", str(filter_fd)]
        fds.append(filter_fd)
    supervisor = _start(helper, options, fds, ["/bin/sh", "-c", "echo ran as $(id -u)"])
    for fd in fds:
        os.close(fd)
    try:
        child = _waiting_child(supervisor.pid, uid)
        seen = _status(child)
        assert Path(f"/proc/{child}/exe").resolve() == Path(helper).resolve()     # not exec'd yet
        assert seen["CapEff"] == seen["CapPrm"] == seen["CapInh"] == "0" * 16
        assert seen["NoNewPrivs"] == "1"
        assert seen["Seccomp"] == ("2" if code is not None else "0")              # its filter in force
        assert Path(f"/proc/{child}/limits").read_text().split("Max processes")[1].split()[:2] == ["8", "8"]
        assert supervisor.poll() is None
        os.write(go_write, b"g")
        out, _ = supervisor.communicate(timeout=WAIT)
    finally:
        os.close(go_write)
        if supervisor.poll() is None:
            supervisor.kill()
            supervisor.wait()
    assert out == f"ran as {uid}\n".encode() and supervisor.returncode == 0
    words = os.read(report_read, 256).split()
    os.close(report_read)
    assert len(words) == 6 and words[3] == b"0" and words[4] == b"1"     # exit 0, started


def test_without_go_nothing_runs_and_nothing_is_reported(helper, tmp_path):
    uid = UID_RANGE[0] + 1000 + os.getpid() % 1000
    go_read, go_write = os.pipe()
    report_read, report_write = os.pipe()
    marker = tmp_path / "ran"
    os.chmod(tmp_path, 0o777)
    supervisor = _start(helper, ["--go", str(go_read), "--report", str(report_write), "--uid", str(uid)],
                        [go_read, report_write], ["/bin/sh", "-c", f"touch {marker}"])
    os.close(go_read)
    os.close(report_write)
    _waiting_child(supervisor.pid, uid)
    os.close(go_write)                                  # EOF: the run is dropped
    supervisor.communicate(timeout=WAIT)
    assert supervisor.returncode == 125 and not marker.exists()
    assert os.read(report_read, 256) == b""
    os.close(report_read)


def test_at_go_the_program_joins_the_cgroup_alone(helper):
    setup = probed_setup()
    if setup is None:
        pytest.skip("no cgroup per run here")
    group = RunCgroup.create(setup, 256 << 20, 8)
    uid = UID_RANGE[0] + 2000 + os.getpid() % 1000
    go_read, go_write = os.pipe()
    fds = list(group.procs_fds)
    try:
        supervisor = _start(helper, ["--go", str(go_read), "--uid", str(uid),
                                     *[word for fd in fds for word in ("--cgroup", str(fd))]],
                            [go_read, *fds], ["/bin/sleep", "60"])
        os.close(go_read)
        group.close_fds()
        try:
            child = _waiting_child(supervisor.pid, uid)
            assert group.members() == []                # neither verify-init nor the waiting process
            os.write(go_write, b"g")
            deadline = time.monotonic() + WAIT
            while not group.members() and time.monotonic() < deadline:
                time.sleep(0.01)
            assert group.members() == [child]           # the program, not verify-init
        finally:
            os.close(go_write)
            group.kill_all()
            supervisor.communicate(timeout=WAIT)
    finally:
        group.remove()


@pytest.mark.skipif(not shutil.which("bwrap"), reason="the fork server runs under bubblewrap")
def test_a_step_gets_a_stdin_larger_than_its_pipe_whole(tmp_path, use_isolation):
    chosen = use_isolation("bwrap", cgroups=True)
    if not forkserver.possible(chosen):
        pytest.skip("no fork server here")
    counter = tmp_path / "count.sh"
    counter.write_text("wc -c\n")
    stdin = os.urandom(3 << 20)                         # far over a pipe's 64 KiB written before go
    limits = Limits(wall_time=10, cpu_time=5, memory=256 << 20, output=1 << 20, processes=16)
    with Pools() as pools:
        results = [run(Program("bash", counter), stdin=data, ahead=True, isolation=chosen, pools=pools,
                       limits=limits) for data in (stdin, b"small\n", b"")]
        assert pools.fork_servers.idle() == 1
    assert [r.stdout for r in results] == [f"{3 << 20}\n".encode(), b"6\n", b"0\n"], results


def _living_with(marker: str) -> list[int]:
    """Processes (not zombies) whose command line holds `marker`."""
    found = []
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and marker.encode() in Path(f"/proc/{entry.name}/cmdline").read_bytes():
                if Path(f"/proc/{entry.name}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not shutil.which("bwrap"), reason="the fork server runs under bubblewrap")
@pytest.mark.parametrize("cgroups", [True, False], ids=["cgroup", "rlimits"])
def test_a_step_stopped_at_a_limit_leaves_nothing_not_even_its_verify_init(tmp_path, use_isolation, cgroups):
    chosen = use_isolation("bwrap", cgroups=cgroups)
    if not forkserver.possible(chosen):
        pytest.skip("no fork server here")
    folder = tmp_path / f"stopped-{os.getpid()}"
    folder.mkdir()
    sleeper = folder / "sleep.sh"
    marker = folder.name
    sleeper.write_text(f'(exec -a "{marker}-child" sleep 30) & exec -a "{marker}-main" sleep 30\n')
    limits = Limits(wall_time=0.5, cpu_time=5, memory=256 << 20, output=1 << 20, processes=16)
    with Pools() as pools:
        for _ in range(2):                              # the second one built ahead
            result = run(Program("bash", sleeper), ahead=True, isolation=chosen, pools=pools, limits=limits)
            assert result.limit == "time", result
            server = _server_processes(pools)
            living = [pid for pid in _living_with(marker) if pid not in _waiting_for_go(pools) | server]
            assert living == [], [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in living]   # all gone at once


def _server_processes(pools: Pools) -> set[int]:
    """The fork servers' own processes (their bubblewrap and PID 1: the folder is in their
    command lines)."""
    bwrap = (shutil.which("bwrap") or "bwrap").encode()
    found = set()
    for pid in _living_with("verify-forkserver"):
        try:
            line = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"verify-forkserver\x00hold" in line or line.startswith(bwrap):
            found.add(pid)
    return found


def _waiting_for_go(pools: Pools) -> set[int]:
    """The processes of the next step, built ahead (verify-forkserver, verify-init, the process
    waiting for go): they carry the command line too."""
    waiting = set()
    for server in pools.fork_servers.servers():
        ready = server._next
        if ready is None:
            continue
        pids = [ready.started.process.pid]
        while pids:
            pid = pids.pop()
            waiting.add(pid)
            try:
                pids += [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
            except OSError:
                pass
    return waiting


def test_under_cgroup_v2_the_fork_server_needs_a_kernel_where_the_program_may_join(use_isolation):
    chosen = use_isolation("bwrap", cgroups=False)
    v1 = dataclasses.replace(chosen, cgroups=CgroupSetup("v1", (("memory", Path("/x")),)))
    v2 = dataclasses.replace(chosen, cgroups=CgroupSetup("v2", (("unified", Path("/x")),)))
    assert forkserver.programs_can_join(chosen, "4.19.0") and forkserver.programs_can_join(v1, "4.19.0")
    assert not forkserver.programs_can_join(v2, "5.15.90-generic")
    assert forkserver.programs_can_join(v2, "5.16.0") and forkserver.programs_can_join(v2, "6.18.44-fc")
