"""Nothing of a run survives `verify`: after SIGINT, SIGTERM or SIGKILL of verify (or of a
`timeout` running it) no process of the run is alive within 2 s, and no folder of the run
is left (after SIGKILL: once the next verify has started a sandbox). With bubblewrap and
without it (VERIFY_SANDBOX=none). Plus the reaper's own pieces (verify/runner/reaper.py).

The entry's program starts a child and a daemon that leaves the session (double fork +
setsid), then all three sleep for an hour; every one of them, and verify-init, carries a
marker unique to the test in its command line."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest

from verify.runner import reaper

ROOT = Path(__file__).resolve().parents[2]
VERIFY = [sys.executable, "-c", "from verify.cli import run; run()"]
CASE = "spec-example"               # testcases/desert/spec-example.txt
START_TIMEOUT = 30.0                # seconds for verify to get the program running (busy machine)
GONE_WITHIN = 2.0                   # the requirement
TIMEOUT_AFTER = 4                   # `timeout N verify ...`: N, well after the program started
PADDING_FILES = 300                 # above WORKDIR_MAX_FILES: under bubblewrap too the entry's
                                    # folder is copied into the run's temporary folder on the host
ROLES = ("main", "child", "daemon")

ENTRY_SOURCE = '''\
import os, subprocess, sys, time
MARKER = {marker!r}
if sys.argv[1:] != [MARKER + "-main"]:      # put the marker in our own command line
    os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), MARKER + "-main"])
SLEEP = "import time; time.sleep(3600)"
DAEMON = (
    "import os, sys\\n"
    "if os.fork(): os._exit(0)\\n"
    "os.setsid()\\n"
    "if os.fork(): os._exit(0)\\n"
    "os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(3600)', sys.argv[1]])\\n")
subprocess.Popen([sys.executable, "-c", SLEEP, MARKER + "-child"])
subprocess.Popen([sys.executable, "-c", DAEMON, MARKER + "-daemon"])
time.sleep(3600)
'''


def _bwrap_works() -> bool:
    found = shutil.which("bwrap")
    if not found or os.environ.get("VERIFY_SANDBOX", "").lower() in ("none", "off", "0", "rlimits"):
        return False
    probe = subprocess.run([found, "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--die-with-parent",
                            "/bin/true"], stdin=subprocess.DEVNULL, capture_output=True)
    return probe.returncode == 0


MODES = ["bubblewrap", "none"] if _bwrap_works() else ["none"]


# -- processes ------------------------------------------------------------------------------

def _state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return None


def marked_processes(marker: str) -> dict[int, str]:
    """Living (not zombie) processes whose command line holds `marker`: pid -> command line."""
    found = {}
    needle = marker.encode()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as file:
                cmdline = file.read()
        except OSError:
            continue
        if needle in cmdline and _state(int(entry.name)) not in (None, "Z", "X"):
            found[int(entry.name)] = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
    return found


def wait_until_running(marker: str, process: subprocess.Popen, timeout: float = START_TIMEOUT) -> None:
    """Until the program, its child and its daemon are all alive (verify still running)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = marked_processes(marker).values()
        # (the daemon's forking steps hold its marker too: wait for the sleeper they exec)
        if all(any(f"{marker}-{role}" in line and "fork" not in line for line in lines) for role in ROLES):
            return
        if process.poll() is not None:
            out, err = process.communicate()
            pytest.fail(f"verify ended (exit {process.returncode}) before the program was running:\n{out}\n{err}")
        time.sleep(0.05)
    pytest.fail(f"the program was not running after {timeout} s: {marked_processes(marker)}")


def survivors_after(marker: str, since: float, within: float = GONE_WITHIN) -> dict[int, str]:
    """Wait (until `since` + `within`) for every marked process to be gone; what is left."""
    while True:
        left = marked_processes(marker)
        if not left or time.monotonic() > since + within:
            return left
        time.sleep(0.02)


def kill_marked(marker: str) -> None:
    """Test clean-up: whatever is left of a failed test must not sleep for an hour."""
    for _ in range(50):
        left = marked_processes(marker)
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)


# -- fixtures -------------------------------------------------------------------------------

class Setup:
    def __init__(self, base: Path, mode: str):
        self.marker = f"nothing-survives-{uuid.uuid4().hex[:12]}"
        # (not under tmp_path: pytest makes it 0700, and the program's own uid must get through)
        self.entry = base / f"entry-{self.marker}"
        self.private_tmp = base / f"tmp-{self.marker}"     # verify-init's command line shows it
        for folder in (self.entry, self.private_tmp, self.entry / "padding"):
            folder.mkdir()
            os.chmod(folder, 0o755)
        (self.entry / "entry.toml").write_text('contest = "desert"\nlanguage = "python"\nsource = "s.py"\n')
        (self.entry / "s.py").write_text(ENTRY_SOURCE.format(marker=self.marker))
        for index in range(PADDING_FILES):
            (self.entry / "padding" / f"{index:03}").write_text("x")
        self.env = dict(os.environ, VERIFY_TMPDIR=str(self.private_tmp))
        if mode == "none":
            self.env["VERIFY_SANDBOX"] = "none"
        else:
            self.env.pop("VERIFY_SANDBOX", None)

    def check_argv(self) -> list[str]:
        return [*VERIFY, "check", str(self.entry), "--case", CASE, "--time", "300"]

    def start(self, prefix: list[str] = ()) -> subprocess.Popen:
        return subprocess.Popen([*prefix, *self.check_argv()], cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def leftover_folders(self) -> list[str]:
        return sorted(p.name for p in self.private_tmp.iterdir())

    def next_verify_run(self) -> None:
        """One more verify that makes a sandbox: it removes what a killed verify left."""
        subprocess.run([*VERIFY, "langs", "python"], cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=120)


@pytest.fixture(params=MODES)
def setup(request):
    base = Path(tempfile.mkdtemp(prefix="verify-ns-"))
    os.chmod(base, 0o755)
    made = Setup(base, request.param)
    try:
        yield made
    finally:
        kill_marked(made.marker)
        shutil.rmtree(base, ignore_errors=True)


def _describe(left: dict[int, str]) -> str:
    return "\n".join(f"  {pid}: {line[:300]}" for pid, line in left.items())


# -- verify signalled directly ----------------------------------------------------------------

@pytest.mark.parametrize("signum, code, repeat", [(signal.SIGINT, 130, False), (signal.SIGTERM, 143, False),
                                                  (signal.SIGTERM, 143, True)], ids=["INT", "TERM", "TERM-twice"])
def test_interrupted_or_terminated_verify_leaves_nothing(setup, signum, code, repeat):
    """repeat: the same signal again while the runs are being stopped, as `timeout` sends
    it (to verify, then to verify's process group): one request, still cleaned up."""
    process = setup.start()
    wait_until_running(setup.marker, process)
    os.kill(process.pid, signum)
    since = time.monotonic()
    if repeat:
        time.sleep(0.002)
        os.kill(process.pid, signum)
    left = survivors_after(setup.marker, since)
    try:
        _, err = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        pytest.fail(f"verify still running 10 s after {signum.name}")
    assert not left, f"alive {GONE_WITHIN} s after {signum.name} to verify:\n{_describe(left)}"
    assert process.returncode == code, err
    assert setup.leftover_folders() == []


def test_killed_verify_leaves_nothing(setup):
    process = setup.start()
    wait_until_running(setup.marker, process)
    process.kill()
    since = time.monotonic()
    left = survivors_after(setup.marker, since)
    process.wait()
    setup.next_verify_run()
    folders = setup.leftover_folders()
    assert not left, f"alive {GONE_WITHIN} s after SIGKILL to verify:\n{_describe(left)}"
    assert folders == [], "left after the next verify run"


# -- verify under `timeout` -----------------------------------------------------------------

# (with -s KILL, timeout also kills its own process group, itself included: -9, not 137)
@pytest.mark.parametrize("signame, codes", [("TERM", (143,)), ("KILL", (137, -signal.SIGKILL))])
def test_verify_under_timeout_leaves_nothing(setup, signame, codes):
    process = setup.start(["timeout", "--preserve-status", "-s", signame, str(TIMEOUT_AFTER)])
    wait_until_running(setup.marker, process)     # (fails if `timeout` struck first)
    _, err = process.communicate(timeout=TIMEOUT_AFTER + 30)
    since = time.monotonic()                      # timeout ends right after verify does
    left = survivors_after(setup.marker, since)
    if signame == "KILL":
        setup.next_verify_run()
    folders = setup.leftover_folders()
    assert not left, f"alive {GONE_WITHIN} s after timeout's SIG{signame} to verify:\n{_describe(left)}"
    assert process.returncode in codes, err
    assert folders == [], "left" + (" after the next verify run" if signame == "KILL" else "")


# -- the reaper's pieces ------------------------------------------------------------------------

def _start_time(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[19].decode()


def _dead_pid() -> int:
    """A pid no process can have (above the kernel's pid_max)."""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1000


def test_owner_tag_names_this_process():
    tag = reaper.owner_tag()
    pid, start = tag.split("-")
    assert int(pid) == os.getpid() and start == _start_time(os.getpid())
    assert reaper.owner_alive(tag)
    assert not reaper.owner_alive(f"{os.getpid()}-{int(start) + 1}")    # our pid, reused: not us
    assert not reaper.owner_alive(f"{_dead_pid()}-{start}")
    assert reaper.run_folder_prefix() == f"verify-run-{tag}-"
    assert reaper.build_folder_prefix() == f".build-{tag}-"
    assert reaper.cgroup_name_prefix() == f"verify-{tag}-"


def test_a_zombie_owner_is_dead():
    child = subprocess.Popen(["true"])
    tag = f"{child.pid}-{_start_time(child.pid)}"
    deadline = time.monotonic() + 10
    while _state(child.pid) != "Z" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not reaper.owner_alive(tag)
    child.wait()


def test_remove_stale_removes_only_dead_owners_folders(tmp_path):
    folder = tmp_path / "temp"
    outside = tmp_path / "outside"
    folder.mkdir()
    (outside / "target").mkdir(parents=True)
    (outside / "target" / "keep.txt").write_text("keep")
    (outside / "inner").mkdir()
    (outside / "inner" / "keep.txt").write_text("keep")
    dead = f"{_dead_pid()}-123"
    reused = f"{os.getpid()}-{int(_start_time(os.getpid())) + 7}"
    sleeper = subprocess.Popen(["sleep", "60"])
    other_live = f"{sleeper.pid}-{_start_time(sleeper.pid)}"

    def made(name: str, deep: bool = True) -> Path:
        path = folder / name
        (path / "work" / "sub").mkdir(parents=True)
        (path / "work" / "sub" / "f.txt").write_text("x")
        if deep:
            (path / "work" / "escape").symlink_to(outside / "inner")   # rmtree must not follow it
        return path

    try:
        stale = [made(f"verify-run-{dead}-abc"), made(f".build-{dead}-xyz"), made(f"verify-run-{reused}-q")]
        kept = [made(f"verify-run-{reaper.owner_tag()}-live"), made(f".build-{reaper.owner_tag()}-live"),
                made(f"verify-run-{other_live}-other"),
                made("verify-run-abcd1234"),                     # the older naming, no tag: not ours to judge
                made(".build-k2j4h5g6"), made(f"unrelated-{dead}-x")]
        link = folder / f"verify-run-{dead}-link"
        link.symlink_to(outside / "target")
        plain_file = folder / f"verify-run-{dead}-file"
        plain_file.write_text("not a folder")

        reaper.remove_stale([folder])

        assert [p.name for p in stale if os.path.lexists(p)] == []
        assert [p.name for p in kept if not p.is_dir()] == []
        assert link.is_symlink() and (outside / "target" / "keep.txt").read_text() == "keep"
        assert (outside / "inner" / "keep.txt").read_text() == "keep"
        assert plain_file.read_text() == "not a folder"

        sleeper.kill()
        sleeper.wait()
        reaper.remove_stale([folder])                 # its owner is gone now
        assert not (folder / f"verify-run-{other_live}-other").exists()
        assert (folder / f"verify-run-{reaper.owner_tag()}-live").is_dir()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_remove_stale_tolerates_missing_folders_and_races(tmp_path):
    reaper.remove_stale([tmp_path / "nowhere", Path("/proc/self/fd/999999")], [tmp_path / "no-cgroups"])
    dead = f"{_dead_pid()}-5"
    big = tmp_path / f"verify-run-{dead}-big"
    for index in range(200):
        (big / f"d{index}").mkdir(parents=True)
    # two removers at once (two verify processes starting together)
    threads = [threading.Thread(target=reaper.remove_stale, args=([tmp_path],)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not big.exists()


def test_remove_stale_cgroup_folders_of_dead_owners(tmp_path):
    """Folders only (not a cgroup file system): the names decide, empty ones are removed."""
    parent = tmp_path / "cgroups"
    parent.mkdir()
    dead = f"{_dead_pid()}-77"
    stale = parent / f"verify-{dead}-0a1b2c3d"
    live = parent / f"{reaper.cgroup_name_prefix()}deadbeef"
    legacy = parent / "verify-1234-12345678"          # verify-<pid>-<hex>: the older naming
    for path in (stale, live, legacy):
        path.mkdir()
    reaper.remove_stale([], [parent])
    assert not stale.exists() and live.is_dir() and legacy.is_dir()


def _own_v1_memory_cgroup() -> Path | None:
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if "memory" in controllers.split(","):
                candidate = Path("/sys/fs/cgroup/memory" + path)
                return candidate if (candidate / "cgroup.procs").exists() else None
    except OSError:
        pass
    return None


def test_remove_stale_kills_what_is_left_in_a_dead_owners_cgroup():
    parent = _own_v1_memory_cgroup()
    if parent is None:
        pytest.skip("no v1 memory cgroup of our own here")
    group = parent / f"verify-{_dead_pid()}-9-{uuid.uuid4().hex[:8]}"
    try:
        group.mkdir()
    except OSError as error:
        pytest.skip(f"cannot make a cgroup here: {error}")
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        (group / "cgroup.procs").write_text(str(sleeper.pid))
        started = time.monotonic()
        reaper.remove_stale([], [parent])
        assert sleeper.wait(timeout=5) == -signal.SIGKILL
        assert not group.exists()
        assert time.monotonic() - started < 3
    finally:
        sleeper.kill()
        sleeper.wait()
        if group.exists():
            group.rmdir()


def test_remove_stale_once_runs_once_per_folder(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(reaper, "remove_stale", lambda folders, parents=(): calls.append((list(folders),
                                                                                         list(parents))))
    reaper.remove_stale_once([tmp_path / "a"], [tmp_path / "c"])
    reaper.remove_stale_once([tmp_path / "a"], [tmp_path / "c"])
    reaper.remove_stale_once([tmp_path / "a", tmp_path / "b"])
    assert calls == [([tmp_path / "a"], [tmp_path / "c"]), ([tmp_path / "b"], [])]


def test_registry_aborts_each_run_once():
    called = []

    def failing():
        called.append("failing")
        raise RuntimeError("an abort that fails must not stop the others")

    before = reaper.tracked()
    tokens = [reaper.track(lambda: called.append("a")), reaper.track(failing),
              reaper.track(lambda: called.append("b"))]
    gone = reaper.track(lambda: called.append("untracked"))
    reaper.untrack(gone)
    reaper.untrack(None)
    reaper.untrack(10 ** 9)
    assert reaper.tracked() == before + 3
    reaper.abort_all()
    reaper.abort_all()
    assert sorted(called) == ["a", "b", "failing"]
    assert reaper.tracked() == 0
    for token in tokens:
        reaper.untrack(token)         # a sandbox cleaning up after its abort: harmless


def test_registry_from_many_threads():
    hits = []
    lock = threading.Lock()

    def register(n: int) -> None:
        for index in range(n):
            token = reaper.track(lambda: (lock.acquire(), hits.append(1), lock.release()))
            if index % 2:
                reaper.untrack(token)

    threads = [threading.Thread(target=register, args=(200,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    left = reaper.tracked()
    reaper.abort_all()
    assert len(hits) == left == 4 * 100 and reaper.tracked() == 0


def test_handlers_only_from_the_main_thread():
    result = []
    thread = threading.Thread(target=lambda: result.append(reaper.install_signal_handlers()))
    thread.start()
    thread.join()
    assert result == [False]


HANDLER_PROGRAM = textwrap.dedent('''\
    import os, signal, sys, threading, time
    from verify.runner import reaper
    # a verify started from a terminal, whatever the test run ignores (a background job: SIGINT)
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    reaper.install_signal_handlers()
    mode, flag = sys.argv[1], sys.argv[2]
    def abort():
        open(flag, "w").write("aborted")
        if mode == "slow":
            time.sleep(30)
    reaper.track(abort)
    # a worker blocked on a pipe forever (like a thread reading a program's output)
    r, w = os.pipe()
    threading.Thread(target=os.read, args=(r, 1)).start()
    print("ready", flush=True)
    time.sleep(60)
''')


@pytest.fixture
def handler_child():
    """handler_child(mode, flag): a verify-like process with the reaper's handlers, killed at the
    test's end whatever became of it (a failed test leaves nothing)."""
    started: list[subprocess.Popen] = []

    def start(mode: str, flag: Path) -> subprocess.Popen:
        child = subprocess.Popen([sys.executable, "-c", HANDLER_PROGRAM, mode, str(flag)], cwd=ROOT,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        started.append(child)
        assert child.stdout.readline() == "ready\n"
        return child
    yield start
    for child in started:
        child.kill()
        child.communicate()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT])
def test_signal_aborts_runs_and_exits_despite_blocked_threads(tmp_path, signum, handler_child):
    flag = tmp_path / "flag"
    child = handler_child("fast", flag)
    os.kill(child.pid, signum)
    assert child.wait(timeout=10) == 128 + signum
    assert flag.read_text() == "aborted"
    assert "verify:" in child.stderr.read()


def test_a_second_signal_while_aborting_exits_at_once(tmp_path, handler_child):
    flag = tmp_path / "flag"
    child = handler_child("slow", flag)
    os.kill(child.pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while not flag.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    os.kill(child.pid, signal.SIGINT)
    assert child.wait(timeout=10) == 130
    assert time.monotonic() - started < 5        # not the abort's 30 s


def test_an_ignored_signal_stays_ignored(tmp_path):
    program = ("import signal, os; signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
               "from verify.runner import reaper; reaper.install_signal_handlers()\n"
               "assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN\n"
               "assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_sandbox_names_its_folder_with_the_owner_tag(monkeypatch):
    """The hook in sandbox.py: a run's temporary folder carries this process's tag."""
    from verify.runner.sandbox import Sandbox
    base = Path(tempfile.mkdtemp(prefix="verify-ns-"))
    try:
        os.chmod(base, 0o755)
        entry = base / "entry"
        entry.mkdir()
        (entry / "a.txt").write_text("a")
        monkeypatch.setenv("VERIFY_TMPDIR", str(base))
        monkeypatch.setenv("VERIFY_SANDBOX", "none")
        _clear_caches()
        before = reaper.tracked()
        from verify.runner.isolation import resolve
        with Sandbox(entry, isolation=resolve("none")) as box:
            assert box.temp is not None and box.temp.name.startswith(reaper.run_folder_prefix())
            assert reaper.tracked() == before + 1
        assert reaper.tracked() == before
        assert sorted(p.name for p in base.iterdir()) == ["entry"]
    finally:
        shutil.rmtree(base, ignore_errors=True)
        monkeypatch.undo()
        _clear_caches()


def _clear_caches() -> None:
    """Whatever the runner remembered of VERIFY_SANDBOX (its home moves between versions)."""
    import importlib
    for module_name, names in (("verify.runner.sandbox", ("bwrap_path",)),
                               ("verify.runner.isolation", ("current",))):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name in names:
            function = getattr(module, name, None)
            if hasattr(function, "cache_clear"):
                function.cache_clear()
