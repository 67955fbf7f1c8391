"""The fork server (verify/runner/forkserver.py): one sandbox per per-step program, a fresh
process and writable area per step. Each step must end, and be judged, exactly as a run
of its own; nothing a hostile step does may reach the next step or the fork server."""
import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from maze_koth import run_tournament

from verify.contests.maze.model import ANY_SIZE
from verify.contests.maze.play import MazeLimits
from verify.contests.maze.tournament import Contestant
from verify.entries import load_entry
from verify.grading import Grader, LocalRunner
from verify.runner import Isolation, Limits, Program, RunResult, forkserver
from verify.runner import run_program as run_alone
from verify.runner.pools import Pools
from verify.runner.sandbox import processes_of_uid

pytestmark = pytest.mark.skipif(not shutil.which("bwrap") or os.geteuid() != 0,
                                reason="the fork server runs under bubblewrap, as root")

ROOT = Path(__file__).resolve().parents[2]
MAZE_LIMITS = MazeLimits(architect=Limits(wall_time=5, cpu_time=5, memory=512 << 20, output=1 << 20),
                         step_timeout=2.0, sizes=ANY_SIZE)
LIMITS = Limits(wall_time=2, cpu_time=1, memory=256 << 20, output=1 << 20, processes=16)


@dataclasses.dataclass
class Servers:
    """Steps under `isolation`, their fork servers kept in the test's own `pools`."""
    isolation: Isolation
    pools: Pools

    def step(self, program: Program, **options) -> RunResult:
        options.setdefault("limits", LIMITS)
        return run_alone(program, ahead=True, isolation=self.isolation, pools=self.pools, **options)

    def alone(self, program: Program, **options) -> RunResult:
        """The same program run on its own, as a run of its own."""
        options.setdefault("limits", LIMITS)
        return run_alone(program, ahead=False, isolation=self.isolation, **options)


def _servers_under(use_isolation, cgroups: bool):
    chosen = use_isolation("bwrap", cgroups=cgroups)
    if not forkserver.possible(chosen):
        pytest.skip("no fork server here (no verify-init or no C compiler)")
    with Pools() as own:
        yield Servers(chosen, own)


@pytest.fixture(params=[True, False], ids=["cgroup", "rlimits"])
def accounting(request, use_isolation):
    """Both accountings: a cgroup per step, or rlimits and a uid scan."""
    yield from _servers_under(use_isolation, request.param)


@pytest.fixture
def cgroup(use_isolation):
    """The default accounting only, for what does not depend on it."""
    yield from _servers_under(use_isolation, True)


def program(folder: Path, text: str, name: str = "step.sh") -> Program:
    source = folder / name
    source.write_text(text)
    return Program({".py": "python", ".rb": "ruby"}.get(source.suffix, "bash"), source)


def test_steps_share_one_server_and_each_is_a_fresh_process(tmp_path, accounting):
    show = program(tmp_path, 'read line; echo "$(id -u) $$ $PWD $line"\n')
    results = [accounting.step(show, stdin=f"request {n}\n".encode()) for n in range(3)]
    assert all(r.ok for r in results), results
    lines = [r.stdout.decode().split() for r in results]
    assert [line[3:] for line in lines] == [["request", str(n)] for n in range(3)]
    assert all(line[2] == str(tmp_path) for line in lines)
    assert len({line[0] for line in lines}) == 3            # a new uid each step
    assert accounting.pools.fork_servers.idle() == 1                           # one sandbox for all of them


def test_a_step_sees_no_file_an_earlier_step_wrote(tmp_path, accounting):
    (tmp_path / "data.txt").write_text("pristine\n")
    writer = program(tmp_path, "cat data.txt; ls -A . /tmp /dev/shm | tr '\\n' ' '; echo\n"
                               "echo dirty > data.txt; echo x > new.txt; mkdir sub; echo y > /tmp/y\n"
                               "echo z > /dev/shm/z; rm -f step.sh; python3 -c '"
                               "import mmap, os; f = os.open(\"/dev/shm/seg\", os.O_CREAT | os.O_RDWR); "
                               "os.ftruncate(f, 4096)'\n")
    first, second = accounting.step(writer), accounting.step(writer)
    assert first.ok and second.ok, (first, second)
    assert first.stdout == second.stdout
    assert second.stdout.startswith(b"pristine\n")
    assert b"new.txt" not in second.stdout and b"seg" not in second.stdout and b" y " not in second.stdout
    assert (tmp_path / "data.txt").read_text() == "pristine\n" and (tmp_path / "step.sh").exists()


def test_a_background_child_dies_with_its_step(tmp_path, accounting):
    leaver = program(tmp_path, 'id -u\n(sleep 60 &) ; setsid sleep 60 & nohup sleep 60 >/dev/null 2>&1 &\n'
                               'for p in /proc/[0-9]*; do awk \'/^Uid:/ {print $2}\' $p/status 2>/dev/null; done '
                               '| sort -u | tr "\\n" " "; echo\n')
    first = accounting.step(leaver)
    uid = int(first.stdout.split()[0])
    assert processes_of_uid(uid) == []                      # nothing of the step outlives it
    second = accounting.step(leaver)
    own = second.stdout.split(b"\n")[0]
    seen = set(second.stdout.split(b"\n")[1].split())
    assert seen <= {b"0", own}, seen                          # only the server (root) and itself
    assert first.ok and second.ok


def test_every_step_is_pid_2_of_a_pid_namespace_of_its_own(tmp_path, accounting):
    counter = program(tmp_path, 'echo $$ $(ls /proc | grep -c "^[0-9]"); for i in $(seq 30); do /bin/true; done\n')
    # its pid is 2, and /proc shows at most verify-init, bash, $(...), ls and grep (grep may
    # not be forked yet when ls reads /proc): nothing of the server or of an earlier step
    for result in [accounting.step(counter) for _ in range(3)] + [accounting.alone(counter)]:
        pid, count = result.stdout.split()
        assert pid == b"2" and 4 <= int(count) <= 5, result


def test_a_step_that_changes_its_folder_and_cwd_does_not_move_the_next(tmp_path, cgroup):
    mover = program(tmp_path, 'pwd; ls\nmkdir -p elsewhere; cd /tmp && rm -rf "$OLDPWD"/* ; cd /; pwd\n')
    (tmp_path / "keep.txt").write_text("x")
    first, second = cgroup.step(mover), cgroup.step(mover)
    assert first.stdout == second.stdout == f"{tmp_path}\nkeep.txt\nstep.sh\n/\n".encode()


def test_a_step_that_fills_tmp_leaves_the_next_an_empty_one(tmp_path, cgroup):
    filler = program(tmp_path, "df -k /tmp | awk 'NR == 2 {print $3}'\n"
                               "head -c 300M /dev/zero > /tmp/fill 2>/dev/null; head -c 300M /dev/zero > /dev/shm/f "
                               "2>/dev/null; df -k /tmp | awk 'NR == 2 {print $3}'\n")
    limits = Limits(wall_time=10, cpu_time=5, memory=1 << 30, output=1 << 20, processes=16)
    first = cgroup.step(filler, limits=limits)
    second = cgroup.step(filler, limits=limits)
    used_before, used_after = map(int, first.stdout.split())
    assert used_before == 0 and used_after > 200_000       # it filled /tmp
    assert second.stdout == first.stdout                   # and the next step had it empty again


def test_a_step_cannot_kill_its_parents_or_the_server(tmp_path, accounting):
    killer = program(tmp_path, "kill -KILL $PPID 1 2>/dev/null; kill -STOP $PPID 1 2>/dev/null; "
                               "kill -KILL -1 2>/dev/null; echo alive\n")
    results = [accounting.step(killer) for _ in range(3)]
    assert [(r.ok, r.stdout) for r in results] == [(True, b"alive\n")] * 3, results
    assert accounting.pools.fork_servers.idle() == 1                           # the server survived each of them
    assert accounting.alone(killer).stdout == b"alive\n"


CONTROL = """
import os
fds = sorted(int(f) for f in os.listdir("/proc/self/fd"))
print("fds", fds)
for target in ("/proc/1/root/tmp", "/proc/1/fd", "/proc/1/ns/mnt", "/proc/1/environ"):
    try:
        os.listdir(target) if not target.endswith(("mnt", "environ")) else open(target, "rb").read(1)
        print(target, "open")
    except OSError as error:
        print(target, type(error).__name__)
for fd in range(3, 64):
    try:
        os.write(fd, b"g")
        print("wrote to", fd)
    except OSError:
        pass
"""


def test_a_step_reaches_no_descriptor_of_the_server_and_nothing_of_its_pid_1(tmp_path, accounting):
    probe = program(tmp_path, CONTROL, "probe.py")
    first, second, own = accounting.step(probe), accounting.step(probe), accounting.alone(probe)
    assert first.ok and second.ok, first
    assert first.stdout == second.stdout == own.stdout      # exactly what a run of its own sees
    assert b"fds [0, 1, 2, 3]" in first.stdout and b"wrote to" not in first.stdout
    assert b" open" not in first.stdout


VERDICTS = {
    "exit 3": ("echo out; exit 3\n", None),
    "signal": ("kill -SEGV $$\n", None),
    "time": ("while :; do :; done\n", None),
    "wall time": ("sleep 30\n", None),
    "output": ("cat /dev/zero\n", None),
    "memory": ("import os\nx = bytearray(400 << 20)\nprint(len(x))\n", "step.py"),
    "processes": ("for i in $(seq 40); do sleep 5 & done; wait\n", None),
    "stdin echo": ("cat\n", None),
}


@pytest.mark.parametrize("case", sorted(VERDICTS))
def test_verdicts_are_those_of_a_run_of_its_own(tmp_path, accounting, case):
    text, name = VERDICTS[case]
    entry = program(tmp_path, text, name or "step.sh")
    stdin = b"state\n" * 100
    served, own = accounting.step(entry, stdin=stdin), accounting.alone(entry, stdin=stdin)
    assert accounting.pools.fork_servers.idle() == 1
    same = ("exit_code", "signal", "limit", "stopped_early", "stdout", "isolation", "accounting")   # (not how
    # many bytes were read before the output limit stopped it: that varies from run to run)
    if case == "time":
        # at the CPU time limit the kernel's SIGXCPU (RLIMIT_CPU) and verify's SIGKILL (the
        # CPU time counted) race, in a run of its own as in a step: either ends it
        same = tuple(k for k in same if k != "signal")
        assert {served.signal, own.signal} <= {signal.SIGXCPU, signal.SIGKILL}, (served, own)
    assert {k: getattr(served, k) for k in same} == {k: getattr(own, k) for k in same}


def test_the_bundled_per_step_solver_plays_the_same_matches_with_and_without_the_server(
        tmp_path, accounting, monkeypatch):
    theseus = load_entry(ROOT / "submissions" / "maze" / "theseus")
    assert theseus.options.solver is not None and not theseus.options.persistent     # a per-step solver
    minotaur = load_entry(ROOT / "submissions" / "maze" / "minotaur")        # (its mazes for theseus to walk)
    contestants = [Contestant(theseus.name, theseus.options), Contestant(minotaur.name, minotaur.options)]
    logs = {}
    # served with its steps forked from the zygote, served with a fresh interpreter a step, not served
    for setting, zygote in (("on", "on"), ("fresh", "off"), ("off", "on")):
        monkeypatch.setenv("VERIFY_FORKSERVER", "off" if setting == "off" else "on")
        monkeypatch.setenv("VERIFY_ZYGOTE", zygote)
        folder = tmp_path / setting
        runner = LocalRunner()
        result = run_tournament(Grader(runner), contestants, [6, 8], [1, 2], jobs=2, limits=MAZE_LIMITS,
                                log_dir=folder)
        servers = runner.pools.fork_servers.servers()
        assert (len(servers) >= 1) == (setting != "off")
        assert any(server.zygote is not None for server in servers) == (setting == "on")
        # the match logs byte for byte (the architects' logs hold their runs' wall times)
        logs[setting] = {path.relative_to(folder): path.read_bytes() for path in sorted(folder.glob("matches/*"))}
        data = result.to_json()
        for maze in data["mazes"]:
            maze.pop("wall_time")
        for match in data["matches"]:
            match["log"] = str(Path(match["log"]).relative_to(folder))
        logs[setting]["result"] = data
        runner.close()
        assert runner.pools.fork_servers.idle() == 0
    walked = [path for path in logs["on"] if str(path).endswith("--theseus.jsonl")]
    assert len(walked) == 4 and all(logs["on"][path].count(b"\n") > 5 for path in walked)
    assert logs["on"] == logs["fresh"] == logs["off"]


def test_a_server_outlives_the_thread_that_started_it(tmp_path, cgroup):
    show = program(tmp_path, "echo hello\n")
    worker = threading.Thread(target=cgroup.step, args=(show,))
    worker.start()
    worker.join()
    assert cgroup.pools.fork_servers.idle() == 1
    (server,) = cgroup.pools.fork_servers.servers()
    assert cgroup.step(show).stdout == b"hello\n" and server.alive()
    assert cgroup.pools.fork_servers.idle() == 1


def test_verify_starts_no_process_for_a_step(tmp_path, cgroup, monkeypatch):
    """Each step is handed to the server's step maker: after the server's own start, verify
    starts nothing per step (and a step built ahead by one thread serves another's)."""
    show = program(tmp_path, 'read line; echo "$$ $line"\n')
    assert cgroup.step(show, stdin=b"first\n").stdout == b"2 first\n"
    started = []
    popen = subprocess.Popen.__init__

    def counted(self, *args, **kwargs):
        started.append(args[0] if args else kwargs.get("args"))
        popen(self, *args, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", counted)
    outputs = [cgroup.step(show, stdin=b"%d\n" % k).stdout for k in range(3)]
    worker = threading.Thread(target=lambda: outputs.append(cgroup.step(show, stdin=b"3\n").stdout))
    worker.start()
    worker.join()
    assert outputs == [b"2 %d\n" % k for k in range(4)] and started == []
    assert cgroup.pools.fork_servers.idle() == 1


def test_a_server_whose_step_maker_died_is_replaced(tmp_path, cgroup):
    """A server whose step maker died (killed here) serves no more: it is removed with the
    step it had built ahead, and a new server runs the step, with the same result."""
    show = program(tmp_path, "read line; echo \"$line\"\n")
    assert cgroup.step(show, stdin=b"one\n").stdout == b"one\n"
    (server,) = cgroup.pools.fork_servers.servers()
    assert server.maker is not None
    os.killpg(server.maker._process.pid, signal.SIGKILL)
    server.maker._process.wait()
    result = cgroup.step(show, stdin=b"two\n")
    assert (result.exit_code, result.stdout, result.limit) == (0, b"two\n", None)
    assert not server.alive() and cgroup.pools.fork_servers.idle() == 1
    assert cgroup.pools.fork_servers.servers()[0] is not server


def test_turned_off_it_starts_no_server(tmp_path, cgroup, monkeypatch):
    monkeypatch.setenv("VERIFY_FORKSERVER", "off")
    with LocalRunner(cgroup.isolation) as runner:         # its settings: the environment's
        hello = runner.prepare(program(tmp_path, "echo hello\n"))
        for _ in range(2):
            result = runner.run(hello, stdin=b"", args=(), limits=LIMITS, repeated=True)
            assert result.stdout == b"hello\n"
        assert runner.pools.fork_servers.idle() == 0


KEEPER = """
import sys, time
from pathlib import Path
from verify.runner import Program, isolation_from_settings, run_program
from verify.runner.pools import Pools
from verify.settings import from_process
print(run_program(Program("bash", Path(sys.argv[1])), ahead=True, isolation=isolation_from_settings(from_process()),
                  pools=Pools()).stdout.decode(), flush=True)
time.sleep(60)
"""


def _living_with(marker: str) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and marker.encode() in Path(f"/proc/{entry.name}/cmdline").read_bytes():
                state = Path(f"/proc/{entry.name}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
                if state not in (b"Z", b"X"):
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_a_killed_verify_leaves_no_server_behind(tmp_path, cgroup):
    folder = tmp_path / f"served-{os.getpid()}-{threading.get_ident()}"
    folder.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(folder, 0o755)
    show = program(folder, "echo served\n")
    keeper = subprocess.Popen([sys.executable, "-c", KEEPER, str(show.source)], stdout=subprocess.PIPE,
                              env={**os.environ, "VERIFY_SANDBOX": "bwrap"}, cwd=ROOT)
    try:
        assert keeper.stdout.readline() == b"served\n"
        assert any(b"verify-forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes()
                   for pid in _living_with(folder.name))                # the server waits, idle
    finally:
        keeper.kill()
        keeper.wait()
    deadline = time.monotonic() + 5
    while _living_with(folder.name) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _living_with(folder.name) == []



def _children() -> set[int]:
    """This process's children, zombies too."""
    found: set[int] = set()
    for task in os.scandir("/proc/self/task"):
        try:
            found.update(map(int, Path(task.path, "children").read_text().split()))
        except OSError:
            continue
    return found


def test_a_step_ends_at_its_report_and_the_server_reaps_what_exits_after(tmp_path, cgroup):
    show = program(tmp_path, "echo served\n")
    before = _children()
    with Pools() as own:
        results = [run_alone(show, ahead=True, isolation=cgroup.isolation, pools=own, limits=LIMITS)
                   for _ in range(5)]
        kept = own.fork_servers.servers()        # (held, so that nothing is reaped by being dropped)
    assert [r.stdout for r in results] == [b"served\n"] * 5 and all(r.ok for r in results), results
    assert len(kept) == 1 and not kept[0].alive()
    assert _children() <= before                 # every step's verify-forkserver reaped, the server gone

@pytest.fixture
def open_folder():
    """A folder the run's uid can reach on the host (not under tmp_path: pytest makes it 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="verify-forkserver-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_folder_too_big_for_the_tmpfs_runs_the_usual_way(open_folder, cgroup):
    show = program(open_folder, "ls | wc -l; touch more\n")
    for index in range(300):                        # over the sandbox's WORKDIR_MAX_FILES: copied on the host
        (open_folder / f"{index:03}").write_text("x")
    results = [cgroup.step(show) for _ in range(3)]
    assert [r.stdout for r in results] == [b"301\n"] * 3 and all(r.ok for r in results), results
    assert cgroup.pools.fork_servers.idle() == 0


def test_a_steps_environment_is_that_of_a_run_of_its_own(tmp_path, accounting):
    # (a Python program: a shell would set PWD itself)
    show = program(tmp_path, "import os\nprint(sorted(os.environ.items()))\n", "step.py")
    served, alone = accounting.step(show), accounting.alone(show)
    assert served.stdout == alone.stdout and b"'PWD'" in served.stdout, (served, alone)


@pytest.mark.skipif(not shutil.which("ipcmk"), reason="needs ipcmk and ipcs (util-linux)")
def test_a_step_sees_no_sysv_segment_an_earlier_step_made(tmp_path, cgroup):
    maker = program(tmp_path, "ipcs -m | grep -c '^0x'; ipcmk -M 4096 >/dev/null && ipcs -m | grep -c '^0x'\n")
    first, second = cgroup.step(maker), cgroup.step(maker)
    assert first.stdout == second.stdout == b"0\n1\n", (first, second)


# -- the Python zygote: a Python step forked from an interpreter started once; Ruby has none ----

def _forked_from_zygote(cache: Path) -> list[int]:
    """The live processes of a zygote whose library is in `cache` (the zygote, and what it forked
    that has not run a program yet: every such process has the zygote's command line)."""
    return _living_with(str(cache / "forkserver"))


def test_a_python_step_is_forked_from_the_servers_zygote(tmp_path, accounting):
    show = program(tmp_path, "import os, sys\nprint(os.getpid(), sys.argv, sys.stdin.read())\n", "step.py")
    results = [accounting.step(show, stdin=b"state %d" % k) for k in range(3)]
    assert [r.stdout for r in results] == [f"2 [{str(show.source)!r}] state {k}\n".encode() for k in range(3)]
    (server,) = accounting.pools.fork_servers.servers()
    assert server.zygote is not None and server.zygote.alive()


@pytest.mark.skipif(shutil.which("ruby") is None, reason="ruby is not installed")
def test_a_ruby_step_starts_a_fresh_interpreter_where_signals_threads_and_fork_work(tmp_path, cgroup):
    # (a Ruby process forked in C, as a zygote's step would be, aborts at its first fork,
    # signal or woken thread: Ruby gets no zygote, docs/runner.md "The Python zygote")
    probe = program(tmp_path, 'trap(:USR1) { print "usr1 " }\nProcess.kill(:USR1, $$)\nsleep 0.01\n'
                              'print Thread.new { "thread " }.value\n'
                              'fork { exit 3 }\nprint Process.wait2.last.exitstatus, "\\n"\n', "step.rb")
    results = [cgroup.step(probe) for _ in range(2)]
    assert [r.stdout for r in results] == [b"usr1 thread 3\n"] * 2, results
    (server,) = cgroup.pools.fork_servers.servers()
    assert server.zygote is None


def test_a_python_step_with_flags_or_without_the_library_starts_a_fresh_interpreter(tmp_path, cgroup,
                                                                                   monkeypatch):
    flagged = dataclasses.replace(program(tmp_path, "import sys\nprint(sys.flags.optimize)\n", "step.py"),
                                  flags=("-O",))
    assert cgroup.step(flagged).stdout == b"1\n"
    (server,) = cgroup.pools.fork_servers.servers()
    assert server.zygote is None
    cgroup.pools.close()
    monkeypatch.setattr(forkserver, "zygote_library", lambda server: None)
    plain = program(tmp_path, "print('fresh')\n", "plain.py")
    assert cgroup.step(plain).stdout == b"fresh\n"
    assert all(server.zygote is None for server in cgroup.pools.fork_servers.servers())


def test_a_python_step_stopped_at_its_limit_leaves_nothing_and_neither_does_the_zygote(tmp_path, use_isolation):
    isolation = use_isolation("bwrap", cgroups=True)
    if not forkserver.possible(isolation):
        pytest.skip("no fork server here (no verify-init or no C compiler)")
    cache = tmp_path / "cache"
    spin = program(tmp_path, "import os\nprint(os.getuid(), flush=True)\nwhile True:\n    pass\n", "step.py")
    with Pools(cache=cache) as own:
        result = run_alone(spin, ahead=True, isolation=isolation, pools=own, limits=LIMITS)
        (server,) = own.fork_servers.servers()
        assert server.zygote is not None
        assert result.limit == "time", result
        assert processes_of_uid(int(result.stdout)) == []
        assert _forked_from_zygote(cache) != []              # the zygote waits for the next step
    deadline = time.monotonic() + 5
    while _forked_from_zygote(cache) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _forked_from_zygote(cache) == []


ZYGOTE_KEEPER = """
import sys, time
from pathlib import Path
from verify.runner import Program, isolation_from_settings, run_program
from verify.runner.pools import Pools
from verify.settings import from_process
print(run_program(Program("python", Path(sys.argv[1])), ahead=True, isolation=isolation_from_settings(from_process()),
                  pools=Pools(cache=Path(sys.argv[2]))).stdout.decode(), flush=True)
time.sleep(60)
"""


def test_a_killed_verify_leaves_no_zygote_behind(tmp_path, cgroup):
    cache = tmp_path / "cache"
    os.chmod(tmp_path, 0o755)
    show = program(tmp_path, "print('served')\n", "step.py")
    keeper = subprocess.Popen([sys.executable, "-c", ZYGOTE_KEEPER, str(show.source), str(cache)],
                              stdout=subprocess.PIPE, env={**os.environ, "VERIFY_SANDBOX": "bwrap"}, cwd=ROOT)
    try:
        assert keeper.stdout.readline() == b"served\n"
        assert _forked_from_zygote(cache) != []               # the zygote waits, idle
    finally:
        keeper.kill()
        keeper.wait()
    deadline = time.monotonic() + 5
    while _forked_from_zygote(cache) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _forked_from_zygote(cache) == []


def test_a_python_step_starts_with_the_signals_of_a_run_of_its_own_whatever_verify_ignores(tmp_path, cgroup):
    probe = program(tmp_path, "import signal\nprint(signal.getsignal(signal.SIGINT) is signal.default_int_handler, "
                              "[line for line in open('/proc/self/status') if line.startswith('SigIgn')])\n",
                    "step.py")
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)        # (verify under nohup, or a background job)
    try:
        with Pools() as own:
            served = run_alone(probe, ahead=True, isolation=cgroup.isolation, pools=own, limits=LIMITS)
            assert [server.zygote is not None for server in own.fork_servers.servers()] == [True]
        alone = cgroup.alone(probe)
    finally:
        signal.signal(signal.SIGINT, before)
    assert served.stdout == alone.stdout and served.stdout.startswith(b"True "), (served, alone)
