"""The seccomp filter (verify/runner/seccomp.py), on its own: the filter file is handed to
bubblewrap (`bwrap --seccomp FD`, as the sandbox will) or loaded by a small C loader
(as verify-init does with --seccomp FD, for runs without bubblewrap), around

- a C probe (tests/fixtures/hostile/syscalls/probe.c) that tries every blocked call with
  harmless arguments and prints "name errno": each must fail with EPERM (clone3: ENOSYS),
  while fork, clone, threads, mmap, execve, signals to itself and its children still work;
- the language runtimes and compilers the judge runs: each must still work under it.

The probe also runs without the filter (capabilities dropped), as a control: there most
of the same calls do not fail with EPERM, so it is the filter that makes them fail.
"""
from __future__ import annotations

import errno
import os
import platform
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from verify.runner import isolation, seccomp
from verify.settings import Settings

HERE = Path(__file__).parents[1]
SYSCALLS = HERE / "fixtures" / "hostile" / "syscalls"
BWRAP = shutil.which("bwrap")
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"

pytestmark = pytest.mark.skipif(
    BWRAP is None, reason="bubblewrap (bwrap) is not installed: the filter is tested through `bwrap --seccomp`")

# The filter variants the runtimes must survive: as built for every run, and the strictest
# (the judge's pid protected, no shared memory).
VARIANTS = {"default": {}, "strictest": {"block_kill_of": os.getpid(), "block_shared_memory": True}}


# -- helpers --------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """Filter files go to a cache folder of this test session, not the user's."""
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path_factory.getbasetemp() / "verify-cache"))


def compile_c(source: Path, output: Path, *flags: str) -> Path:
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler to build the probe")
    built = subprocess.run([compiler, "-O2", "-Wall", *flags, "-o", str(output), str(source)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    return output


@pytest.fixture(scope="session")
def probe(tmp_path_factory) -> Path:
    return compile_c(SYSCALLS / "probe.c", tmp_path_factory.mktemp("probe") / "probe", "-pthread")


@pytest.fixture(scope="session")
def loader(tmp_path_factory) -> Path:
    return compile_c(SYSCALLS / "load_filter.c", tmp_path_factory.mktemp("loader") / "load_filter")


def bwrap(argv, *, options: dict | None = None, binds=(), ro_binds=(), env=None, extra=(),
          timeout: float = 180) -> subprocess.CompletedProcess:
    """`bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-pid --die-with-parent
    [--seccomp FD] -- argv`; options=None: no filter."""
    command = [BWRAP, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
               "--unshare-pid", "--die-with-parent", *extra]
    for path in ro_binds:
        command += ["--ro-bind", str(path), str(path)]
    for path in binds:                       # (after --tmpfs /tmp, which would hide them)
        command += ["--bind", str(path), str(path)]
    descriptor = None
    if options is not None:
        path = seccomp.filter_file(**options)
        assert path is not None, "libseccomp could not be loaded"
        descriptor = os.open(path, os.O_RDONLY)
        command += ["--seccomp", str(descriptor)]
    environment = {"PATH": SANDBOX_PATH, "HOME": "/tmp", "LANG": "C.UTF-8", **(env or {})}
    try:
        return subprocess.run([*command, "--", *map(str, argv)], capture_output=True, text=True,
                              env=environment, timeout=timeout,
                              pass_fds=(descriptor,) if descriptor is not None else ())
    finally:
        if descriptor is not None:
            os.close(descriptor)


# The probe runs with every capability dropped (bwrap started by root keeps them) and in
# its own namespaces: even a call the filter failed to stop could change nothing outside.
PROBE_ISOLATION = ("--cap-drop", "ALL", "--unshare-net", "--unshare-uts", "--unshare-ipc", "--new-session")


def run_probe(probe: Path, mode: str, *args, options: dict | None = None) -> dict[str, int | str]:
    done = bwrap([probe, mode, *args], options=options, ro_binds=[probe.parent], extra=PROBE_ISOLATION)
    assert done.returncode == 0, done.stderr
    return parse(done.stdout)


def parse(output: str) -> dict[str, int | str]:
    results: dict[str, int | str] = {}
    for line in output.splitlines():
        name, value = line.rsplit(" ", 1)
        results[name] = int(value) if value.lstrip("-").isdigit() else value
    return results


def errno_names(results: dict) -> dict:
    return {name: errno.errorcode.get(value, value) if isinstance(value, int) else value
            for name, value in results.items()}


# -- the file -------------------------------------------------------------------------------

BPF_LD_W_ABS, BPF_RET_K = 0x20, 0x06
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
SECCOMP_RET_ACTION_FULL = 0xFFFF0000


def instructions(code: bytes) -> list[tuple[int, int, int, int]]:
    assert len(code) % 8 == 0
    return [struct.unpack_from("=HBBI", code, offset) for offset in range(0, len(code), 8)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_file_is_a_raw_sock_filter_array_that_never_kills(variant):
    code = seccomp.filter_bytes(**VARIANTS[variant])
    program = instructions(code)
    assert 0 < len(program) <= 4096                          # BPF_MAXINSNS
    # first the architecture (seccomp_data.arch is at offset 4), in native byte order
    assert program[0] == (BPF_LD_W_ABS, 0, 0, 4)
    returns = {k for code_, _, _, k in program if code_ == BPF_RET_K}
    assert SECCOMP_RET_ALLOW in returns
    assert SECCOMP_RET_ERRNO | errno.EPERM in returns
    assert SECCOMP_RET_ERRNO | errno.ENOSYS in returns      # clone3, and other ABIs
    assert all(k & SECCOMP_RET_ACTION_FULL in (SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO) for k in returns), \
        "only ALLOW and ERRNO: nothing is killed, trapped or traced"
    print(f"{variant}: {len(program)} instructions")


def test_filter_file_is_written_once_atomically_with_public_modes(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    path = seccomp.filter_file()
    assert path is not None and path.parent == tmp_path / "cache" / "seccomp"
    assert re.fullmatch(r"[0-9a-f]{24}\.bpf", path.name)
    assert path.read_bytes() == seccomp.filter_bytes()
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o755
    assert stat.S_IMODE(path.parent.parent.stat().st_mode) == 0o755
    inode = path.stat().st_ino
    assert seccomp.filter_file() == path and path.stat().st_ino == inode       # not rewritten
    other = seccomp.filter_file(block_shared_memory=True)
    assert other != path and other.read_bytes() == seccomp.filter_bytes(block_shared_memory=True)
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([path.name, other.name])  # no temp file left
    # a damaged file (a crash while writing, someone else) is written again
    path.write_bytes(b"\0" * 8)
    seccomp._written.clear()
    assert seccomp.filter_file() == path and path.read_bytes() == seccomp.filter_bytes()


@pytest.fixture
def fresh_caches():
    """Forget the filters compiled so far (they are kept per process)."""
    for cached in (seccomp._plan, seccomp._compile):
        cached.cache_clear()
    yield
    for cached in (seccomp._plan, seccomp._compile):
        cached.cache_clear()


def test_without_libseccomp_there_is_no_filter_and_it_says_so(monkeypatch, fresh_caches):
    monkeypatch.setattr(seccomp, "_binding", lambda: None)
    assert seccomp.filter_file() is None
    assert not seccomp.available()
    assert seccomp.describe().startswith("no seccomp")
    with pytest.raises(seccomp.SeccompUnavailable):
        seccomp.filter_bytes()


def test_verify_seccomp_off_turns_it_off():
    settings = Settings.from_environment({"VERIFY_SECCOMP": "off", "VERIFY_SANDBOX": "bwrap"})
    assert not settings.seccomp
    assert seccomp.describe(wanted=settings.seccomp) == "no seccomp (VERIFY_SECCOMP=off)"
    if shutil.which("bwrap"):
        assert isolation.from_settings(settings).seccomp is None


def test_describe_counts_what_is_really_blocked_here():
    text = seccomp.describe()
    found = re.fullmatch(r"seccomp \(libseccomp \d+\.\d+\.\d+, (\d+) calls blocked"
                         r"(?:, (\d+) not on this architecture)?\)", text)
    assert found, text
    blocked, absent = seccomp.blocked_calls(), seccomp.absent_calls()
    assert int(found.group(1)) == len(blocked)
    assert int(found.group(2) or 0) == len(absent)
    everything = {*seccomp.BLOCKED, *seccomp.CONDITIONAL, *seccomp.NOT_IMPLEMENTED}
    assert set(blocked) | set(absent) <= everything and not set(blocked) & set(absent)
    left_out = everything - set(blocked) - set(absent)
    assert all(seccomp.TWINS.get(call) in blocked for call in left_out), left_out
    assert len(seccomp.BLOCKED) == len(set(seccomp.BLOCKED))
    # what the brief asked for at least
    for call in ("unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "bpf", "keyctl",
                 "ptrace", "process_vm_readv", "perf_event_open", "userfaultfd", "io_uring_setup",
                 "kexec_load", "init_module", "open_by_handle_at", "reboot", "clone", "clone3",
                 "personality", "ioctl", "socket", "socketpair", "connect", "bind"):
        assert call in blocked
    print(text)


def test_the_kill_option_rules_match_their_declared_lists():
    rules = {rule[0] for rule in seccomp._kill_rules(os.getpid())}
    assert rules == set(seccomp.KILL_TARGETED) | set(seccomp.KILL_BLOCKED)
    with pytest.raises(ValueError):
        seccomp.filter_bytes(block_kill_of=1)


# -- the probe ------------------------------------------------------------------------------

def test_every_blocked_call_fails_with_eperm(probe):
    filtered = run_probe(probe, "blocked", options={})
    control = run_probe(probe, "blocked")
    print("filtered:", errno_names(filtered))
    print("control: ", errno_names(control))
    assert set(filtered) == set(control)
    wrong = {name: value for name, value in errno_names(filtered).items()
             if value != ("ENOSYS" if name == "clone3" else "EPERM")}
    assert not wrong, f"not blocked as they should be: {wrong}"
    # every call the filter blocks here was tried (vhangup only without a terminal; the socket
    # calls by test_sockets_stay_inside_the_run, below, and test_runner_sockets.py)
    tried = {name.split(":")[0] for name in filtered}
    assert set(seccomp.blocked_calls()) - tried <= {"vhangup", *SOCKET_CALLS}
    # without the filter these go through (or fail otherwise): the filter made the difference
    assert control["unshare"] == 0                       # unshare(0): a no-op
    assert control["personality:ADDR_NO_RANDOMIZE"] == 0
    assert control["personality:ADDR_NO_RANDOMIZE+high-bits"] == 0
    assert control["ioctl:TIOCSTI"] == errno.EBADF
    assert control["ioctl:TIOCSTI+high-bits"] == errno.EBADF   # the kernel reads 32 bits of it
    assert control.get("clone3", 0) == 0
    differing = [name for name in control if control[name] != errno.EPERM]
    print(f"{len(differing)} of {len(control)} attempts fail with EPERM only because of the filter")
    assert len(differing) > len(control) // 2


@pytest.mark.parametrize("variant", VARIANTS)
def test_ordinary_calls_still_work(probe, variant):
    results = run_probe(probe, "allowed", options=VARIANTS[variant])
    assert {"fork", "clone", "vfork", "pthread_create", "posix_spawn", "execve", "kill:self",
            "kill:child", "mmap", "personality:query", "personality:PER_LINUX32"} <= set(results)
    failed = {name: value for name, value in errno_names(results).items() if value != 0}
    assert not failed, failed


@pytest.mark.skipif(platform.machine() != "x86_64", reason="int $0x80 and x32 numbers are x86-64 matters")
def test_another_abi_gets_enosys_instead_of_dodging_the_rules(probe):
    results = run_probe(probe, "abi", options={})
    # int $0x80 from a 64-bit process: the filter's architecture check answers ENOSYS (a
    # kernel without IA-32 emulation faults instead: SIGSEGV)
    assert results["int80:getpid"] in (errno.ENOSYS, f"signal-{signal.SIGSEGV}")
    assert results["x32:getpid"] == errno.ENOSYS
    assert results["x32:unshare"] == errno.ENOSYS


def test_block_kill_of_protects_that_process_only(probe, loader, tmp_path):
    """As used without a PID namespace (same uid as the judge): here the filter is loaded by
    the C loader, no bubblewrap; the protected process is a `sleep` in its own session."""
    target = subprocess.Popen(["sleep", "120"], start_new_session=True)
    try:
        path = seccomp.filter_file(block_kill_of=target.pid)
        aimed = [str(probe), "kill", str(target.pid)]
        control = parse(subprocess.run(aimed, capture_output=True, text=True, check=True).stdout)
        filtered = parse(subprocess.run([str(loader), str(path), *aimed], capture_output=True,
                                        text=True, check=True).stdout)
        default = parse(subprocess.run([str(loader), str(seccomp.filter_file()), *aimed],
                                       capture_output=True, text=True, check=True).stdout)
        print("filtered:", errno_names(filtered))
        at_target = [name for name in filtered if not name.startswith(("child:", "self:"))]
        assert len(at_target) >= 20
        assert {n: v for n, v in errno_names(filtered).items() if n in at_target and v != "EPERM"} == {}
        own = {n: v for n, v in errno_names(filtered).items() if n not in at_target and v != 0}
        assert own == {}, "a program must still signal itself and its children"
        # without the option (and without any filter) the target is reachable: the option does it
        for results in (control, default):
            for name in ("kill:pid", "kill:-pid", "tgkill:pid", "rt_sigqueueinfo:pid", "pidfd_open:pid",
                         "fcntl:F_SETOWN:pid", "prlimit64:pid"):
                assert results[name] == 0, (name, results[name])
        assert target.poll() is None
    finally:
        target.kill()
        target.wait()


SOCKET_CALLS = ("socket", "socketpair", "connect", "bind", "socketcall")

SOCKETS_SCRIPT = """\
import ctypes, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, action):
    try:
        action()
        print(name, 0)
    except OSError as error:
        print(name, error.errno)
def raw_socket(family, kind):      # the family's high bits, which glibc's socket() cannot pass
    if libc.syscall(ctypes.c_long(int(sys.argv[1])), ctypes.c_long(family), ctypes.c_long(kind), ctypes.c_long(0)) < 0:
        raise OSError(ctypes.get_errno(), "socket")
def opened(*args):
    return lambda: socket.socket(*args).close()
def paired(kind):
    return lambda: [end.close() for end in socket.socketpair(socket.AF_UNIX, kind)]
def named(how, address):
    def act():
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            getattr(sock, how)(address)
    return act
attempt("socket:AF_INET/SOCK_DGRAM", opened(socket.AF_INET, socket.SOCK_DGRAM))
attempt("socket:AF_INET/SOCK_STREAM", opened(socket.AF_INET, socket.SOCK_STREAM))
attempt("socket:AF_INET6/SOCK_DGRAM", opened(socket.AF_INET6, socket.SOCK_DGRAM))
attempt("socket:AF_NETLINK", opened(socket.AF_NETLINK, socket.SOCK_RAW, 0))
attempt("socket:AF_UNIX+high-bits/SOCK_STREAM", lambda: raw_socket(socket.AF_UNIX | 1 << 32, socket.SOCK_STREAM))
attempt("socket:AF_UNIX/SOCK_DGRAM", opened(socket.AF_UNIX, socket.SOCK_DGRAM))
attempt("socket:AF_UNIX/SOCK_DGRAM|SOCK_CLOEXEC", opened(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC))
attempt("socket:AF_UNIX/SOCK_RAW", opened(socket.AF_UNIX, socket.SOCK_RAW))
attempt("socketpair:AF_UNIX/SOCK_DGRAM", paired(socket.SOCK_DGRAM))
attempt("bind:path", named("bind", "/tmp/bound.sock"))
attempt("bind:abstract", named("bind", "\\0verify-bound"))
attempt("connect:path", named("connect", "/tmp/bound.sock"))
attempt("connect:abstract", named("connect", "\\0verify-absent"))
attempt("allowed:socket:AF_UNIX/SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC",
        opened(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC))
attempt("allowed:socket:AF_UNIX/SOCK_SEQPACKET", opened(socket.AF_UNIX, socket.SOCK_SEQPACKET))
attempt("allowed:socketpair:AF_UNIX/SOCK_STREAM", paired(socket.SOCK_STREAM))
attempt("allowed:socketpair:AF_UNIX/SOCK_SEQPACKET", paired(socket.SOCK_SEQPACKET))
"""


def test_sockets_stay_inside_the_run():
    """Only Unix stream and seqpacket sockets, unnamed: no other family (the family's high
    bits too), no datagram socket (it sends to any name), no name bound or connected to."""
    number = seccomp._number(seccomp._require(), "socket")
    python = need("python3")
    filtered = parse(bwrap([python, "-c", SOCKETS_SCRIPT, number], options={}, extra=PROBE_ISOLATION).stdout)
    control = parse(bwrap([python, "-c", SOCKETS_SCRIPT, number], extra=PROBE_ISOLATION).stdout)
    print("filtered:", errno_names(filtered))
    print("control: ", errno_names(control))
    assert len(filtered) == len(control) == 17
    wrong = {name: value for name, value in errno_names(filtered).items()
             if value != (0 if name.startswith("allowed:") else "EPERM")}
    assert not wrong, wrong
    # without the filter each refused one goes through or fails otherwise
    assert not [name for name, value in control.items() if value == errno.EPERM]
    assert control["socket:AF_UNIX/SOCK_DGRAM"] == control["bind:path"] == 0


def test_block_shared_memory(probe):
    blocked = run_probe(probe, "shm", options={"block_shared_memory": True})
    default = run_probe(probe, "shm", options={})
    print("blocked:", errno_names(blocked), "default:", errno_names(default))
    for name in ("shmget", "shmat", "shmctl", "memfd_create", "mmap:shared-anonymous",
                 "mmap:shared-validate-anonymous"):
        assert blocked[name] == errno.EPERM, name
    for name in ("shmget", "shmat", "shmctl", "memfd_create", "mmap:shared-anonymous"):
        assert default[name] == 0, name
    for results in (blocked, default):
        assert results["mmap:private-anonymous"] == 0
        assert results["mmap:shared-file"] == 0


# -- the runtimes ---------------------------------------------------------------------------

def need(program: str) -> str:
    found = shutil.which(program, path=SANDBOX_PATH) or shutil.which(program)
    if found is None:
        pytest.skip(f"{program} is not installed")
    return found


PYTHON_SCRIPT = """
import mmap, subprocess, threading, multiprocessing as mp
box = []
thread = threading.Thread(target=box.append, args=(1,)); thread.start(); thread.join()
assert subprocess.run(["echo", "sub"], capture_output=True, text=True).stdout == "sub\\n"
with mp.Pool(2) as pool:
    assert sum(pool.map(abs, range(-5, 5))) == 25
queue = mp.Queue(); child = mp.Process(target=queue.put, args=(42,)); child.start()
assert queue.get() == 42; child.join()
assert mp.Value("i", 3).value == 3
print("ok", box)
"""


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("python", ["/usr/bin/python3", sys.executable])
def test_python_threads_subprocess_multiprocessing(python, variant):
    if not os.path.exists(python):
        pytest.skip(f"{python} is not installed")
    done = bwrap([python, "-c", PYTHON_SCRIPT], options=VARIANTS[variant])
    assert done.returncode == 0 and done.stdout == "ok [1]\n", done.stderr


TCL_SCRIPT = 'puts [expr {1 + 1}]; puts [exec echo sub]'
AWK_SCRIPT = 'BEGIN { print 1 + 1; system("echo sub"); "echo pipe" | getline x; print x }'
# Interpreters that fork, exec and pipe under the filter: (program, its command line given
# the program's path, what it must print).
INTERPRETERS = {
    "perl": ("perl", lambda perl: [perl, "-e", 'my $p = fork; exit 3 if !$p; waitpid($p, 0); '
                                              'print "perl ", $? >> 8, " ", `echo sub`'], "perl 3 sub\n"),
    "node": ("node", lambda node: [node, "-e", 'require("fs").readFileSync("/etc/hostname"); '
                                              'setTimeout(() => console.log("ok"), 10)'], "ok\n"),
    "bash pipeline and subshell": ("bash", lambda bash: [
        bash, "-c", 'x=$(echo a | tr a b); (echo "$x"; echo c) | cat; f() { echo d; }; f | wc -l; sleep 0 & wait'],
        "b\nc\n1\n"),
    "tclsh": ("tclsh", lambda tclsh: ["sh", "-c", f"echo '{TCL_SCRIPT}' | {tclsh}"], "2\nsub\n"),
    "awk": ("awk", lambda awk: [awk, AWK_SCRIPT], "2\nsub\npipe\n"),
    "gawk": ("gawk", lambda awk: [awk, AWK_SCRIPT], "2\nsub\npipe\n"),
    "mawk": ("mawk", lambda awk: [awk, AWK_SCRIPT], "2\nsub\npipe\n"),
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_interpreters_fork_exec_and_pipe(interpreter, variant):
    program, command, expected = INTERPRETERS[interpreter]
    done = bwrap(command(need(program)), options=VARIANTS[variant])
    assert done.returncode == 0 and done.stdout == expected, done.stderr


NODE_ASYNC = """
const fs = require("fs");
fs.readFile("/etc/hostname", (error, data) => {
  if (error) throw error;
  fs.promises.readFile("/etc/passwd").then(text => console.log("ok", text.length > 0));
});
"""


@pytest.mark.parametrize("variant", VARIANTS)
def test_node_falls_back_from_io_uring(variant):
    """libuv (1.45+) tries io_uring for file I/O (always with UV_USE_IO_URING=1): on EPERM it
    must fall back to its thread pool."""
    done = bwrap([need("node"), "-e", NODE_ASYNC], options=VARIANTS[variant], env={"UV_USE_IO_URING": "1"})
    assert done.returncode == 0 and done.stdout == "ok true\n", done.stderr


def test_node_really_tried_io_uring_and_got_eperm(tmp_path):
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (it only shows that the fallback was exercised)")
    node = need("node")
    trace = tmp_path / "trace"
    path = seccomp.filter_file()
    descriptor = os.open(path, os.O_RDONLY)
    try:
        done = subprocess.run([strace, "-f", "-qq", "-e", "trace=io_uring_setup", "-o", str(trace),
                               BWRAP, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                               "--tmpfs", "/tmp", "--unshare-pid", "--die-with-parent",
                               "--seccomp", str(descriptor), "--", node, "-e", NODE_ASYNC],
                              capture_output=True, text=True, pass_fds=(descriptor,), timeout=120,
                              env={"PATH": SANDBOX_PATH, "HOME": "/tmp", "UV_USE_IO_URING": "1"})
    finally:
        os.close(descriptor)
    if done.returncode != 0 and "ptrace" in done.stderr:
        pytest.skip(f"strace cannot trace here: {done.stderr.strip()}")
    assert done.returncode == 0 and done.stdout == "ok true\n", done.stderr
    attempts = [line for line in trace.read_text().splitlines() if "io_uring_setup(" in line]
    if not attempts:
        pytest.skip("this node's libuv does not try io_uring: nothing to fall back from")
    assert all("EPERM" in line for line in attempts), attempts


@pytest.mark.parametrize("variant", VARIANTS)
def test_java(tmp_path, variant):
    java, javac = need("java"), need("javac")
    version = bwrap([java, "-version"], options=VARIANTS[variant])
    assert version.returncode == 0 and "version" in version.stderr, version.stderr
    (tmp_path / "Main.java").write_text(
        "public class Main { public static void main(String[] a) throws Exception {\n"
        "  Thread t = new Thread(() -> System.out.println(\"thread\")); t.start(); t.join();\n"
        "  System.out.println(\"exit \" + new ProcessBuilder(\"true\").start().waitFor()); } }\n")
    built = bwrap([javac, "-d", tmp_path, tmp_path / "Main.java"], options=VARIANTS[variant], binds=[tmp_path])
    assert built.returncode == 0, built.stderr
    ran = bwrap([java, "-cp", tmp_path, "Main"], options=VARIANTS[variant], ro_binds=[tmp_path])
    assert ran.returncode == 0 and ran.stdout == "thread\nexit 0\n", ran.stderr


C_HELLO = """#include <pthread.h>
#include <stdio.h>
static void *body(void *arg) { return arg; }
int main(void) { pthread_t t; pthread_create(&t, NULL, body, NULL); pthread_join(t, NULL); puts("ok"); return 0; }
"""


@pytest.mark.parametrize("variant", VARIANTS)
def test_gcc_compiles_under_the_filter(tmp_path, variant):
    (tmp_path / "hello.c").write_text(C_HELLO)
    built = bwrap([need("gcc"), "-O2", "-pthread", "-o", tmp_path / "hello", tmp_path / "hello.c"],
                  options=VARIANTS[variant], binds=[tmp_path])
    assert built.returncode == 0, built.stderr
    ran = bwrap([tmp_path / "hello"], options=VARIANTS[variant], ro_binds=[tmp_path])
    assert ran.returncode == 0 and ran.stdout == "ok\n", ran.stderr


@pytest.mark.parametrize("variant", VARIANTS)
def test_rustc_compiles_under_the_filter(tmp_path, variant):
    rustc = shutil.which("rustc") or os.path.expanduser("~/.cargo/bin/rustc")
    if not os.path.exists(rustc):
        pytest.skip("rustc is not installed")
    home = os.path.expanduser("~")
    toolchains = [p for p in (Path(home) / ".cargo", Path(home) / ".rustup") if p.is_dir()]
    (tmp_path / "hello.rs").write_text(
        'fn main() { let h = std::thread::spawn(|| 1); println!("ok {}", h.join().unwrap()); }\n')
    built = bwrap([rustc, "-O", "-o", tmp_path / "hello", tmp_path / "hello.rs"], options=VARIANTS[variant],
                  ro_binds=toolchains, binds=[tmp_path], env={"HOME": home})
    assert built.returncode == 0, built.stderr
    ran = bwrap([tmp_path / "hello"], options=VARIANTS[variant], ro_binds=[tmp_path])
    assert ran.returncode == 0 and ran.stdout == "ok 1\n", ran.stderr
