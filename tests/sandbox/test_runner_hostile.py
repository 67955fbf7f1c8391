"""Hostile programs (tests/fixtures/hostile/): each gets the right verdict within its
limit plus a margin, no process of it survives, and no temporary folder is left."""
import dataclasses
import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest
from machine_modes import machine_modes, mode_id
from runtime_cache import evict_runtime

from verify.grading.verdicts import run_verdict
from verify.runner import CompileError, Isolation, Limits, Program, RunResult, backends, languages, run_program, sandbox
from verify.verdict import Status, Verdict

HOSTILE = Path(__file__).parents[1] / "fixtures" / "hostile"
LIMITS = Limits(wall_time=2.0, cpu_time=1.0, memory=256 << 20, output=4 << 20, processes=16)
MARGIN = 3.0
STRESS_ROUNDS = 50  # seconds beyond the limit that tearing down may take (generous on a busy machine)
MODES = machine_modes()


@pytest.fixture(params=MODES, ids=[mode_id(m) for m in MODES])
def mode(request, monkeypatch, use_isolation):
    """Run each test in every isolation the machine offers; temp folders go to a folder we can inspect."""
    policy, cgroups = request.param
    # (not under tmp_path: pytest makes that 0700, and the program's own uid must get through)
    temp_root = Path(tempfile.mkdtemp(prefix="verify-tmp-"))
    os.chmod(temp_root, 0o755)
    monkeypatch.setenv("VERIFY_TMPDIR", str(temp_root))
    chosen = use_isolation(policy, cgroups=cgroups)
    RUNS.clear()
    RUNS.append(str(temp_root))
    UIDS.clear()
    real_enter = sandbox.Sandbox.__enter__

    def remember_uid(self):               # the leftover check looks for this run's processes only
        entered = real_enter(self)
        if self.uid is not None:
            UIDS.add(self.uid)
        return entered

    monkeypatch.setattr(sandbox.Sandbox, "__enter__", remember_uid)
    yield chosen
    left = list(temp_root.iterdir())
    temp_root.rmdir() if not left else None
    assert left == [], "a temporary folder was left behind"


RUNS: list[str] = []     # this test's own temporary root (a marker no other test run shares)
UIDS: set[int] = set()   # the uids this test process's runs were given


def verdict_of(result: RunResult, limits: Limits) -> Verdict:
    """The verdict of a run whose judge accepts whatever is printed: only the run decides it."""
    return run_verdict(result, limits, None, Verdict.accept)


def living_processes_mentioning(*markers: str) -> list[str]:
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                if stat.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue   # dead already, merely not yet reaped by whoever adopted it
            with open(f"/proc/{entry.name}/cmdline", "rb") as cmdline:
                text = cmdline.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if any(marker in text for marker in markers) and str(os.getpid()) != entry.name:
            found.append(f"{entry.name}: {text}")
    return found


def run_hostile(isolation: Isolation, folder: str, language: str, source: str, *args: str, limits: Limits = LIMITS):
    path = HOSTILE / folder / source
    result = run_program(Program(language, path), args=args, limits=limits, isolation=isolation)
    verdict = verdict_of(result, limits)
    assert result.wall_time <= limits.wall_time + MARGIN
    assert leftovers(folder) == []
    return result, verdict


def leftovers(folder: str) -> list[str]:
    """Living processes of this test's runs: of the uids they were given (when verify is
    root) or, as an ordinary user, those naming this run's private folder or fixture.
    (Other people may run these same tests at the same time: their processes are theirs.)"""
    if UIDS:
        return [f"{pid} (uid {uid})" for uid in UIDS for pid in sandbox.processes_of_uid(uid)]
    return living_processes_mentioning(*RUNS, str(HOSTILE / folder))


def test_infinite_loop_is_a_time_limit(mode):
    result, verdict = run_hostile(mode, "infinite_loop", "python", "loop.py")
    assert verdict.status is Status.TIME_LIMIT and result.limit == "time"


def test_sleeper_is_a_wall_time_limit(mode):
    result, verdict = run_hostile(mode, "sleeper", "python", "sleep.py")
    assert verdict.status is Status.TIME_LIMIT
    assert "wall time" in verdict.message


def counted(mode) -> bool:
    """The kernel counts processes and memory for the whole run (a cgroup is in force)."""
    return mode.accounting != "rlimits"


def test_bash_fork_bomb_is_contained(mode):
    """The bomb's parent spins until its CPU limit: with a cgroup the refused forks are
    counted (process limit), with rlimits alone nothing counts them (time limit)."""
    result, verdict = run_hostile(mode, "fork_bomb", "bash", "bomb.sh")
    if counted(mode):
        assert verdict.status is Status.RUNTIME_ERROR and "process limit" in verdict.message, verdict
    else:
        assert verdict.status is Status.TIME_LIMIT, verdict


@pytest.mark.stress
@pytest.mark.parametrize("fixture, language, source", [("fork_bomb", "bash", "bomb.sh"),
                                                      ("fork_bomb_python", "python", "bomb.py")])
def test_fork_bomb_verdicts_never_vary(mode, fixture, language, source):
    verdicts = {str(run_hostile(mode, fixture, language, source)[1].status) for _ in range(STRESS_ROUNDS)}
    assert len(verdicts) == 1, verdicts


def test_python_fork_bomb_hits_the_process_limit(mode):
    result, verdict = run_hostile(mode, "fork_bomb_python", "python", "bomb.py")
    if counted(mode):
        assert verdict.status is Status.RUNTIME_ERROR
        assert "process limit (16 processes)" in verdict.message
    else:
        assert (result.limit, result.exit_code) == (None, 1)   # no kernel count: its own failure


def test_a_program_printing_cannot_fork_is_not_a_process_limit(mode, tmp_path):
    """Verdicts come from kernel counters, never from what a program prints."""
    result, verdict = run_hostile(mode, "liar", "python", "liar.py")
    assert result.limit is None and verdict.accepted, verdict


def test_python_memory_hog_is_a_memory_limit(mode):
    result, verdict = run_hostile(mode, "memory_hog", "python", "hog.py")
    assert verdict.status is Status.MEMORY_LIMIT, verdict
    assert result.peak_memory <= LIMITS.memory


def test_c_memory_hog_is_a_memory_limit(mode):
    result, verdict = run_hostile(mode, "memory_hog_c", "c", "hog.c")
    assert verdict.status is Status.MEMORY_LIMIT, verdict


@pytest.mark.parametrize("fixture, source", [("memfd_hog", "hog.py"), ("sysv_shm_hog", "hog.py"),
                                             ("tmpfs_hog", "hog.py"), ("shared_memory_hog", "shm.py")])
def test_memory_held_by_any_means_is_counted(mode, fixture, source):
    """memfd + fallocate, SysV shared memory, shared anonymous mappings and tmpfs files:
    with a cgroup, each is a memory limit; without one, the shared kinds are refused to
    the program (tmpfs files are then bounded by each tmpfs's size)."""
    result, verdict = run_hostile(mode, fixture, "python", source)
    if counted(mode):
        assert verdict.status is Status.MEMORY_LIMIT, verdict
    elif fixture != "tmpfs_hog":
        assert b"refused" in result.stdout, (result.stdout, verdict)


def test_children_burning_cpu_are_counted(mode):
    """Four children burning CPU, never reaped: their time counts against the limit. The
    wall time allowed is long enough for the CPU limit to come first on a busy machine."""
    result, verdict = run_hostile(mode, "cpu_children", "python", "burn.py", limits=dataclasses.replace(LIMITS, wall_time=10.0))
    assert verdict.status is Status.TIME_LIMIT, verdict
    assert result.cpu_time > LIMITS.cpu_time


@pytest.mark.parametrize("folder, language, source", [
    ("memory_hog_java", "java", "Hog.java"), ("memory_hog_node", "javascript", "hog.js")])
def test_jvm_and_v8_memory_hogs_are_memory_limits(mode, folder, language, source, monkeypatch):
    """With time to spare: near its limit a runtime's collector burns CPU, and on a busy
    machine the CPU limit could come first; memory is what this test is about. The runtime's
    files are evicted from the page cache first, as on a machine where it never ran: a run
    that read them itself would be charged for them, and the kernel would reclaim them
    instead of killing it (resident.py)."""
    limits = dataclasses.replace(LIMITS, wall_time=20.0, cpu_time=20.0)
    evict_runtime(languages.get_language(language), monkeypatch)
    result = run_program(Program(language, HOSTILE / folder / source), limits=limits, isolation=mode)
    verdict = verdict_of(result, limits)
    assert verdict.status is Status.MEMORY_LIMIT, verdict
    assert leftovers(folder) == []


def test_output_flood_is_an_output_limit(mode):
    result, verdict = run_hostile(mode, "output_flood", "python", "flood.py")
    assert verdict.status is Status.OUTPUT_LIMIT
    assert result.stdout is not None and len(result.stdout) == LIMITS.output


def test_background_children_do_not_survive(mode):
    result, verdict = run_hostile(mode, "background_child", "bash", "orphan.sh")
    assert result.stdout == b"parent done\n" and verdict.accepted


def test_child_escaping_the_process_group_does_not_survive(mode):
    result, verdict = run_hostile(mode, "escaped_child", "python", "escape.py")
    assert result.stdout == b"parent done\n" and verdict.accepted


def test_signal_death_is_a_runtime_error_with_the_stderr_tail(mode):
    result, verdict = run_hostile(mode, "killed_by_signal", "python", "abort.py")
    assert verdict.status is Status.RUNTIME_ERROR
    assert verdict.message == "killed by SIGABRT: giving up"
    assert "giving up" in verdict.detail


def test_segfault_is_a_runtime_error(mode):
    result, verdict = run_hostile(mode, "segfault_c", "c", "crash.c")
    assert verdict.status is Status.RUNTIME_ERROR and "SIGSEGV" in verdict.message
    assert result.stdout == b"before the crash\n"


def test_binary_output_passes_through_exactly(mode):
    result, _ = run_hostile(mode, "binary_output", "python", "binary.py")
    assert result.stdout == b"caf\xe9\x00\xff\xfe\n\x00end\n"


def test_writes_go_to_a_private_copy_of_the_folder(mode):
    result, _ = run_hostile(mode, "write_own_folder", "python", "write.py")
    assert result.stdout == b"mine tmp\n"
    assert not (HOSTILE / "write_own_folder" / "scratch.txt").exists()


@pytest.mark.parametrize("folder, language, source", [
    ("compile_error_c", "c", "broken.c"), ("compile_error_java", "java", "Broken.java")])
def test_compile_errors(folder, language, source, default_isolation):
    with pytest.raises(CompileError) as caught:
        run_program(Program(language, HOSTILE / folder / source), limits=LIMITS, isolation=default_isolation)
    assert "error" in caught.value.log.lower()


needs_bwrap = pytest.mark.skipif(not shutil.which("bwrap"), reason="needs bubblewrap")


@needs_bwrap
def test_files_outside_the_folder_are_invisible(tmp_path, default_isolation):
    secret = tmp_path / "secret.txt"
    secret.write_text("the answers")
    os.chmod(tmp_path, 0o755)
    result = run_program(Program("python", HOSTILE / "read_outside" / "peek.py"),
                         args=[str(secret), "/etc/shadow", str(Path(__file__))], limits=LIMITS, isolation=default_isolation)
    assert b"READ" not in result.stdout
    assert result.stdout.count(b"denied") == 3


@needs_bwrap
def test_no_network_even_to_the_host(default_isolation):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        result = run_program(Program("python", HOSTILE / "network" / "connect.py"),
                             args=["127.0.0.1", str(port)], limits=LIMITS, isolation=default_isolation)
    assert result.stdout.startswith(b"offline")


@needs_bwrap
@pytest.mark.parametrize("cgroups", [True, False])
def test_the_entry_folder_is_a_bounded_private_file_system(use_isolation, cgroups):
    """Its files are memory: with a cgroup they count against the memory limit; without,
    the folder's tmpfs is full at TMPFS_SIZE."""
    chosen = use_isolation("bwrap", cgroups=cgroups)
    result = run_program(Program("python", HOSTILE / "disk_filler" / "fill.py"), limits=LIMITS, isolation=chosen)
    if chosen.accounting != "rlimits":
        assert result.limit == "memory"
    else:
        assert result.stdout.startswith(b"stopped after") and b"No space left on device" in result.stdout
        assert int(result.stdout.split()[2]) <= backends.TMPFS_SIZE >> 20
    assert not list((HOSTILE / "disk_filler").glob("filler*"))


def test_without_bubblewrap_or_own_uid_verify_init_still_kills_escaped_children(monkeypatch, use_isolation):
    """The weakest mode (an ordinary user, no bubblewrap, no cgroup): no uid to sweep, so
    the subreaper in verify-init is what catches the daemon that left the session."""
    private = Path(tempfile.mkdtemp(prefix="verify-tmp-"))
    monkeypatch.setenv("VERIFY_TMPDIR", str(private))
    chosen = use_isolation("none", cgroups=False)
    if chosen.helper is None:
        pytest.skip("needs verify-init (a C compiler)")
    monkeypatch.setattr(sandbox, "running_as_root", lambda: False)
    result = run_program(Program("python", HOSTILE / "escaped_child" / "escape.py"), limits=LIMITS,
                         isolation=dataclasses.replace(chosen, own_uid=False))
    assert result.stdout == b"parent done\n" and result.exit_code == 0
    assert living_processes_mentioning(str(private)) == []
    private.rmdir()


def test_a_program_cannot_reach_the_judge(mode):
    """It cannot signal verify, read verify's environment, write the compile cache, or
    write the channel verify-init reports on; its kill(-1) reaches only its own run."""
    from verify.runner.paths import cache_root
    cache_root().mkdir(parents=True, exist_ok=True)
    result, _ = run_hostile(mode, "attack_judge", "python", "attack.py", str(os.getpid()), str(cache_root()))
    lines = result.stdout.decode().splitlines()
    assert all(not line.endswith("DONE") for line in lines), lines
    assert "signal-judge denied" in lines and "read-environ denied" in lines
    assert "write-cache denied" in lines
    assert not (cache_root() / "planted").exists()


def test_a_build_runs_sandboxed_and_cannot_read_host_secrets(mode):
    """The compiler runs as the run's fresh uid: /etc/shadow is not readable to it."""
    with pytest.raises(CompileError) as caught:
        run_program(Program("c", HOSTILE / "compile_incbin" / "steal.c"), limits=LIMITS, isolation=mode)
    secret = Path("/etc/shadow").read_bytes()[:16] if os.geteuid() == 0 else b"root:"
    assert secret not in caught.value.log.encode()
    assert "file not found: /etc/shadow" in caught.value.log    # (gas's words for "cannot open")


def test_a_flag_that_runs_a_program_is_refused_before_any_build(tmp_path, default_isolation):
    from verify.runner import FlagError
    source = HOSTILE / "segfault_c" / "crash.c"
    with pytest.raises(FlagError) as caught:
        run_program(Program("c", source, flags=("-wrapper", "/bin/sh,-c,touch /tmp/owned")), limits=LIMITS, isolation=default_isolation)
    assert "'-wrapper'" in str(caught.value) and not Path("/tmp/owned").exists()
