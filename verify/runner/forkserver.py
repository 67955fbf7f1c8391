"""A fork server per per-step program: the sandbox is built once, each step is a fresh process.

A per-step player of a match is started once per move (one request, one answer, exit). Under
bubblewrap most of such a run is bwrap building namespaces and mounts; here that is
done once per program and folder: a long-lived sandbox whose PID 1 is
`verify-forkserver hold` (forkserver.c), which runs nothing and only reaps, and a step
maker beside it, `verify-forkserver serve`, which has joined that sandbox's mount,
network, UTS and cgroup namespaces. verify hands it each step (handed.py: a request on a
socket, with the step's descriptors); it forks the step, which makes its own mount, IPC
and PID namespaces with fresh tmpfs on /tmp, /dev/shm and the entry's folder (a copy of
the pristine one), and forks verify-init as that PID namespace's pid 1 (with its own
/proc) with the options of a run of its own: the step's own cgroup and fresh uid, the
same rlimits, Landlock rules and seccomp filter, the same report. The step is then
driven and classified by process.drive, as any run. Nothing a step wrote, started or
left behind reaches the next one (docs/runner.md, "Fork server").

A Python program's server also keeps a `Zygote`: an interpreter started once in the
sandbox (zygote_main.py) which makes its steps instead, from the same requests, so
that each step's program process is forked from it and runs the script without
starting an interpreter (docs/runner.md, "The Python zygote"). VERIFY_ZYGOTE=off turns
it off.

Used for `run_prepared(..., ahead=True)` (what the grading core's per-step asker asks
for) only under bubblewrap with verify-init, as root (each step gets its own uid; the
pristine folder stays out of its reach), when the entry's folder fits in the sandbox's
tmpfs; elsewhere those runs go the usual way. VERIFY_FORKSERVER=off turns it off.
Idle servers wait in a `ForkServerPool` (at most MAX_IDLE, each used by one step at a
time), which its owner closes (a runner, pools.py); a server whose program folder
changed, or whose step maker died, is dropped.
"""
from __future__ import annotations

import os
import secrets
import select
import signal
import socket
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from verify.runner import reaper, warm
from verify.runner.backends import TMPFS_SIZE, is_system_path, running_as_root
from verify.runner.build import Prepared
from verify.runner.cgroup import KeptCgroup, RunCgroup, RunCgroupFailed, StepCgroup, create_run_cgroup
from verify.runner.handed import HandedStep, StepRefused
from verify.runner.helper import HELPER_SOURCE, compiled_tool
from verify.runner.idle import IdleBoxes
from verify.runner.limits import Limits
from verify.runner.mode import Isolation
from verify.runner.paths import cache_root
from verify.runner.process import RunResult, Started, StdoutConsumer, drive
from verify.runner.sandbox import STOP_GRACE, STOP_SIGNAL, UID_RANGE, RunProcess, Sandbox, kill_group

SOURCE = Path(__file__).with_name("forkserver.c")
ZYGOTE_CODE = Path(__file__).with_name("zygote_main.py")
LIBRARY = ("verify-zygote.so", "VERIFY_ZYGOTE_LIBRARY")     # forkserver.c built as a zygote's library
ZYGOTE_LANGUAGES = ("python",)
MAX_IDLE = 4
MAX_UNSUITABLE = 64
READY_TIMEOUT = 10.0

Key = tuple[Hashable, ...]

_spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="verify-forkserver")


def possible(isolation: Isolation, cache: Path | None = None) -> bool:
    """Under bubblewrap with verify-init, as root (own uid per step), with verify-forkserver
    built (in `cache`, None: cache_root()). (A pool made with enabled=False,
    VERIFY_FORKSERVER=off, never serves.)"""
    return bool(isolation.bwrap and isolation.helper and isolation.own_uid and running_as_root()
                and programs_can_join(isolation) and binary(cache) is not None)


def programs_can_join(isolation: Isolation, release: str | None = None) -> bool:
    """Whether a step's program, as its own uid, may join its cgroup through descriptors verify
    opened (`verify-init --go`): v1 lets a process move itself; v2 checks the opener's
    credentials only from Linux 5.16 (`release`: the kernel's, None: this one's)."""
    if isolation.cgroups is None or isolation.cgroups.version != "v2":
        return True
    numbers = (release or os.uname().release).split("-")[0].split(".")
    try:
        return (int(numbers[0]), int(numbers[1])) >= (5, 16)
    except (IndexError, ValueError):
        return False


def binary(cache: Path | None = None) -> str | None:
    """verify-forkserver's path, compiled once into `cache` (None: cache_root(); None without a C compiler)."""
    return compiled_tool(SOURCE, "forkserver", "verify-forkserver", cache, includes=[HELPER_SOURCE], library=LIBRARY)


def zygote_library(server: str) -> str | None:
    """The zygote's library built beside verify-forkserver (`server`); None when it did not compile."""
    library = Path(server).with_name(LIBRARY[0])
    return str(library) if library.exists() else None


def zygote_prefix(prepared: Prepared, argv: Sequence[str]) -> tuple[str, ...] | None:
    """The interpreter's part of the command line `argv` of `prepared` that a zygote starts
    ahead (`python3 -s`), when its steps can be forked from one: a language that has a zygote,
    no flags of the entry's (they change the interpreter's start, and the zygote starts as
    root), the script right after. None otherwise."""
    if prepared.language.key not in ZYGOTE_LANGUAGES or prepared.program.flags:
        return None
    if len(argv) < 3 or argv[1] != "-s" or argv[2].startswith("-"):
        return None
    return (argv[0], argv[1])


class ServerUnavailable(Exception):
    """This program cannot get a fork server (its folder is too big for the tmpfs, or
    the sandbox or its step maker did not come up): its runs go the usual way."""


class ForkServer:
    """A long-lived sandbox for one program's folder; `step` runs one fresh process in it."""

    def __init__(self, prepared: Prepared, isolation: Isolation, server: str, *, zygotes: bool = True) -> None:
        self.isolation = isolation
        self.server = server
        self.maker: StepMaker | None = None          # what makes its steps (serve)
        self.zygote: Zygote | None = None            # the interpreter its Python steps are forked from
        self._zygote_refused = not zygotes or zygote_library(server) is None
        self.workdir = prepared.program.folder
        self.signature = warm.folder_signature(self.workdir)
        helper = isolation.helper
        assert helper is not None
        readonly = [*prepared.readonly, Path(server).parent]
        # the read-only mounts each step's fresh /tmp and /dev/shm would hide: mounted again
        self.keep = [str(path) for path in (*readonly, Path(helper).parent)
                     if path.exists() and not is_system_path(path)
                     and any(str(path) == top or str(path).startswith(top + "/") for top in ("/tmp", "/dev/shm"))]
        sandbox = Sandbox(self.workdir, readonly=readonly, isolation=isolation)
        self._sandbox = sandbox.__enter__()
        self._pidfd: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._group: KeptCgroup | None = None       # the steps' cgroup, made at the first step
        self._next: ReadyStep | None = None          # the next step, built ahead
        self._fresh_groups = False                   # True: none can be kept here, a new group per step
        self._exiting: list[RunProcess] = []      # steps reported, not ended yet
        try:
            if sandbox.temp is not None:
                raise ServerUnavailable("the folder is too big for the sandbox's tmpfs")
            argv = [*sandbox.bwrap_argv(helper), server, "hold"]
            # Started from one thread that lives as long as verify: bwrap --die-with-parent
            # follows the thread that started it, and a server outlives the run that made it.
            self._process = _spawner.submit(
                subprocess.Popen, argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, cwd=str(self.workdir), env=sandbox.environment(),
                start_new_session=True, close_fds=True, pass_fds=sandbox.pass_fds).result()
            sandbox.spawned()
            stdout = self._process.stdout
            assert stdout is not None
            ready, _, _ = select.select([stdout], [], [], READY_TIMEOUT)
            if not ready or os.read(stdout.fileno(), 1) != b"r":
                raise ServerUnavailable("the fork server did not start")
            init = sandbox.namespace_init()
            if init is None:
                raise ServerUnavailable("bubblewrap did not say which process is the sandbox's init")
            self._pidfd = os.pidfd_open(init)
            self.maker = StepMaker([server, "serve", str(self._pidfd), SOCKET_WORD], {}, self._pidfd)
        except BaseException:
            self.close()
            raise

    def alive(self) -> bool:
        return (self._process is not None and self._process.poll() is None and self._pidfd is not None
                and self.maker is not None and self.maker.alive())

    def step(self, prepared: Prepared, *, args: Sequence[str], limits: Limits, stdin: bytes,
             on_stdout: StdoutConsumer | None) -> RunResult:
        """One run of `prepared` in a fresh process and writable area of this sandbox: the
        step built ahead by the previous one when it is for the same command line and
        limits, else one built now; meanwhile the next is built."""
        key = _step_key(prepared, args, limits)
        ready = self._take_next(key) or self._build(prepared, args, limits, key)
        sandbox = ready.sandbox
        try:
            ready.started.process.poll()      # (a step that cannot be made fails here, before go)
            stdin = _stdin_ahead(ready.started.process, stdin)
            if isinstance(sandbox.cgroup, StepCgroup):
                try:
                    sandbox.cgroup.begin()        # its counts start here, before anything of it runs
                except OSError as error:
                    raise RunCgroupFailed(f"cannot read the fork server's cgroup: {error.strerror or error}") from None
            sandbox.go()
            started = Started(ready.started.process, ready.started.argv, time.monotonic())
            self._reap_exited()
            self._build_next(prepared, args, limits, key)
            return drive(started, sandbox, limits, stdin=stdin, on_stdout=on_stdout)
        finally:
            if ready.started.process.returncode is None:
                self._exiting.append(ready.started.process)    # its end was reported; it exits on its own
            sandbox.cleanup()

    def _build(self, prepared: Prepared, args: Sequence[str], limits: Limits, key: StepKey) -> ReadyStep:
        """A step up to verify-init waiting for go: its namespaces, writable area, uid and
        cgroup made, nothing of the program started."""
        assert self.maker is not None
        sandbox = StepSandbox(self.workdir, isolation=self.isolation, server=self.server, keep=self.keep,
                              cgroup_for=self._step_cgroup).__enter__()
        try:
            zygote = self._zygote_for(prepared, prepared.argv(args, limits, sandbox.path),
                                      sandbox.environment(prepared.language.env))
            sandbox.maker = zygote or self.maker
            started = prepared.start(sandbox, args, limits)
        except BaseException:
            sandbox.cleanup()
            raise
        sandbox.process = started.process
        return ReadyStep(key, sandbox, started)

    def _zygote_for(self, prepared: Prepared, argv: Sequence[str], environment: dict[str, str]) -> Zygote | None:
        """The zygote this step is forked from (started at the first step that can have one),
        or None: a fresh interpreter (not a language with a zygote, the entry's flags, another
        environment than the zygote's, or no zygote could start here)."""
        prefix = zygote_prefix(prepared, argv)
        if prefix is None or self._zygote_refused:
            return None
        if self.zygote is not None and not self.zygote.alive():
            self.zygote.close()
            self.zygote = None
        if self.zygote is None:
            assert self._pidfd is not None
            library = zygote_library(self.server)
            assert library is not None
            try:
                self.zygote = Zygote(self.server, library, self._pidfd, prefix, environment)
            except (ServerUnavailable, StepRefused, OSError):
                self._zygote_refused = True
                return None
        if self.zygote.prefix != prefix or self.zygote.environment != environment:
            return None
        return self.zygote

    def _build_next(self, prepared: Prepared, args: Sequence[str], limits: Limits, key: StepKey) -> None:
        """Build the next step while this one's program starts (its exec overlaps the
        build; a build in another thread would contend with this step's I/O loop)."""
        try:
            self._next = self._build(prepared, args, limits, key)
        except Exception:            # only a head start: the next step builds its own
            self._next = None

    def _take_next(self, key: StepKey) -> ReadyStep | None:
        """The step built ahead, when it is for `key` and still waits; else None (and it is
        removed)."""
        ready, self._next = self._next, None
        if ready is None:
            return None
        try:
            waits = ready.started.process.poll() is None
        except StepRefused:
            waits = False
        if not waits or ready.key != key:
            warm.dispose_waiting(ready.sandbox, ready.started.process)
            return None
        return ready

    def _reap_exited(self) -> None:
        """Forget the earlier steps that have ended since their report."""
        self._exiting = [process for process in self._exiting if process.poll() is None]

    def _await_exiting(self) -> None:
        """Wait for the earlier steps' ends (STOP_GRACE each at most, then killed)."""
        for process in self._exiting:
            try:
                process.wait(STOP_GRACE)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                process.wait()
        self._exiting = []

    def _drop_next(self) -> None:
        ready, self._next = self._next, None
        if ready is not None:
            warm.dispose_waiting(ready.sandbox, ready.started.process)

    def _step_cgroup(self, memory: int, processes: int) -> RunCgroup:
        """The next step's cgroup: the server's own group, kept from step to step, else
        (where the peak memory cannot be reset) a new group for the step."""
        setup = self.isolation.cgroups
        assert setup is not None
        if self._group is None and not self._fresh_groups:
            try:
                self._group = KeptCgroup(setup, memory, processes)
            except OSError:
                self._fresh_groups = True
        if self._group is None:
            return create_run_cgroup(setup, memory, processes)
        try:
            return self._group.step(memory, processes)
        except OSError as error:
            raise RunCgroupFailed(f"cannot use the fork server's cgroup: {error.strerror or error}") from None

    def close(self) -> None:
        """Kill the sandbox (its PID 1, hence everything in it) and remove what it held."""
        self._drop_next()
        self._await_exiting()
        for maker in (self.zygote, self.maker):
            if maker is not None:
                maker.close()
        self.zygote = self.maker = None
        self._sandbox.kill_leftovers()
        if self._process is not None:
            try:
                os.killpg(self._process.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
            self._process.wait()
            if self._process.stdout is not None:
                self._process.stdout.close()
            self._process = None
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        if self._group is not None:
            self._group.remove()
            self._group = None
        self._sandbox.cleanup()


class StepSandbox(Sandbox):
    """A step's side of the sandbox: its own uid, report pipe, cgroup and seccomp
    descriptor, and a request to the fork server's step maker instead of bwrap."""

    def __init__(self, workdir: Path, *, isolation: Isolation, server: str, keep: Sequence[str],
                 cgroup_for: Callable[[int, int], RunCgroup]) -> None:
        super().__init__(workdir, isolation=isolation)
        self.server = server
        self.cgroup_for = cgroup_for
        self.keep = list(keep)
        self.maker: StepMaker | None = None  # what makes the step (a Zygote: its program's process is forked from it)
        self._request: list[str] | None = None   # the step's arguments, once wrapped
        self.process: RunProcess | None = None     # the step, once handed
        self.went = False                  # go was given: the program may have started
        self.cut_short = False             # verify stopped it (else it ended by itself)
        self._init_fd: int | None = None   # a pidfd of its verify-init, once verify stops it

    def __enter__(self) -> StepSandbox:
        isolation = self.isolation
        self.uid = secrets.randbelow(UID_RANGE[1] - UID_RANGE[0]) + UID_RANGE[0]
        self.visible_workdir = self.workdir
        self._token = reaper.track(self.abort)
        try:
            self.report_fd, self._report_write = os.pipe()
            self._go_read, self._go_write = os.pipe()      # verify-init waits for go (ForkServer.step)
            if isolation.seccomp is not None:
                self._seccomp_fd = os.open(isolation.seccomp, os.O_RDONLY | os.O_CLOEXEC)
        except BaseException:
            self.cleanup()
            raise
        return self

    def wrap(self, argv: Sequence[str], limits: Limits, memory_kind: str = "data", memory_extra: int = 0,
             processes: int | None = None) -> list[str]:
        isolation = self.isolation
        helper = isolation.helper
        assert helper is not None
        processes = limits.processes if processes is None else processes
        # (only the program joins it, at go: verify-init is not counted, so no + 1 for it)
        self.cgroup = self.cgroup_for(limits.memory, processes) if isolation.cgroups is not None else None
        options = self._helper_options(limits, memory_kind, memory_extra, processes)
        if self._seccomp_fd is not None:
            options += ["--seccomp", str(self._seccomp_fd)]     # (bubblewrap's part in a run of its own)
        self._request = [str(self.workdir), str(TMPFS_SIZE), str(len(self.keep)), *self.keep, helper, *options,
                         "--", *argv]
        return [self.server, "step", *self._request]

    def launch(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> RunProcess:
        """Hand the step to its maker (`argv` is what `wrap` made of the request): its
        descriptors keep their numbers in the step."""
        assert self.maker is not None and self._request is not None
        return self.maker.hand(self._request, self.environment(env), {fd: fd for fd in self.pass_fds})

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        # PWD as bubblewrap sets it for a run of its own (its --chdir folder): the step's folder
        return {**super().environment(extra), "PWD": str(self.workdir)}

    def go(self) -> bool:
        self.went = True
        return super().go()

    @property
    def ends_at_report(self) -> bool:
        return True

    def stop(self, pid: int, pidfd: int) -> None:
        """Ask the step's verify-init to end the run, as in a run of its own (it then reports the
        program's end and the CPU time of all it reaped); the step, `pid`, ends after it. Where it
        cannot be asked (not forked yet), the step is killed, which ends the run too."""
        if self.cut_short:
            return
        self.cut_short = True
        self._init_fd = _child_pidfd(pid)         # (found through its parent, the step)
        if self._init_fd is not None:
            try:
                signal.pidfd_send_signal(self._init_fd, STOP_SIGNAL)
                self._stop_requested = True       # (await_end gives it STOP_GRACE)
                return
            except OSError:
                pass
        kill_group(pid)

    def kill_leftovers(self) -> None:
        """Nothing is left of a step that ended by itself: its verify-init, the PID namespace's
        init, reports only once it has reaped the program and killed and reaped every process
        left (orphans all come back to it), and its verify-forkserver ends only after reaping
        verify-init. Nor of one never given go (its program never started; verify-init and the
        program's process, waiting, end at the go pipe's EOF). One that verify stopped is
        swept: verify-init killed and waited for (which ends the namespace), then its cgroup,
        else its uid."""
        report = self.read_report()
        exited = self.process is not None and self.process.returncode is not None
        ended = (exited or (report is not None and report.started)) and not self.cut_short
        if not self.went or ended:
            self._swept = True
            return
        if self._init_fd is not None:
            try:
                signal.pidfd_send_signal(self._init_fd, signal.SIGKILL)
                select.select([self._init_fd], [], [], STOP_GRACE)
            except OSError:
                pass
            os.close(self._init_fd)
            self._init_fd = None
        super().kill_leftovers()

    def cleanup(self) -> None:
        super().cleanup()
        if self._init_fd is not None:
            os.close(self._init_fd)
            self._init_fd = None


class StepMaker:
    """A process in a fork server's sandbox that makes its steps (forkserver.c's serving loop):
    `hand` sends it a step, which it forks. `argv`: its command line, where SOCKET_WORD
    stands for the number of its end of the socket; started as root with `environment`,
    from the thread that lives as long as verify (its parent-death signal follows the thread
    that started it), it joins the sandbox (`sandbox_pidfd`) and writes "r" on stdout once
    it serves."""

    def __init__(self, argv: Sequence[str], environment: Mapping[str, str], sandbox_pidfd: int, *,
                 stdio_pipes: bool = False) -> None:
        self.socket, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._process: subprocess.Popen[bytes] | None = None
        try:
            argv = [str(theirs.fileno()) if word == SOCKET_WORD else word for word in argv]
            # (a zygote's stdin and stderr are pipes, as a step's are when its interpreter
            # starts: their buffers are sized then)
            other = subprocess.PIPE if stdio_pipes else subprocess.DEVNULL
            self._process = _spawner.submit(
                subprocess.Popen, argv, stdin=other, stdout=subprocess.PIPE, stderr=other,
                env=dict(environment), start_new_session=True, close_fds=True,
                pass_fds=(sandbox_pidfd, theirs.fileno())).result()
            stdout = self._process.stdout
            assert stdout is not None
            ready, _, _ = select.select([stdout], [], [], READY_TIMEOUT)
            if not ready or os.read(stdout.fileno(), 1) != b"r":
                raise ServerUnavailable("the fork server's step maker did not start")
        except BaseException:
            self.close()
            raise
        finally:
            theirs.close()
        for pipe in (self._process.stdin, self._process.stdout, self._process.stderr):
            if pipe is not None:
                pipe.close()

    def hand(self, command: Sequence[str], environment: Mapping[str, str],
             descriptors: Mapping[int, int]) -> HandedStep:
        """A step of `command` (the arguments of forkserver.c's `step` after its PIDFD), with
        `environment` and `descriptors` (number in the step -> descriptor here)."""
        return HandedStep(self.socket, command, environment, descriptors)

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def close(self) -> None:
        """End it (the steps still forked from it end with it) and wait for it."""
        self.socket.close()
        process, self._process = self._process, None
        if process is None:
            return
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()
        for pipe in (process.stdin, process.stdout, process.stderr):
            if pipe is not None and not pipe.closed:
                pipe.close()


SOCKET_WORD = "{socket}"      # in a step maker's command line: the number of its end of the socket


class Zygote(StepMaker):
    """An interpreter started once in a fork server's sandbox, as root, with nothing of the
    entry run (zygote_main.py), that makes the steps of the programs it serves: each is a
    process forked from it and made as any step is, which runs the program's script in the
    interpreter forked with it instead of starting one."""

    def __init__(self, server: str, library: str, sandbox_pidfd: int, prefix: tuple[str, ...],
                 environment: dict[str, str]) -> None:
        self.prefix = prefix
        self.environment = environment
        super().__init__([server, "zygote", str(sandbox_pidfd), "--", *prefix, "-c", ZYGOTE_CODE.read_text(),
                          SOCKET_WORD, str(sandbox_pidfd), library], environment, sandbox_pidfd, stdio_pipes=True)


StepKey = tuple[Hashable, ...]       # what a step built ahead must have been built for


def _stdin_ahead(process: RunProcess, stdin: bytes) -> bytes:
    """Write what the pipe takes of `stdin` before go (verify-init reads none of it), and close
    it when that is all, so that the program finds its input and its end at once; the rest is
    left for the I/O loop."""
    pipe = process.stdin
    if pipe is None:
        return stdin
    rest = stdin
    if stdin:
        os.set_blocking(pipe.fileno(), False)
        try:
            rest = stdin[os.write(pipe.fileno(), stdin):]
        except BlockingIOError:
            return stdin
        except OSError:          # (its end closed: the I/O loop would drop it too)
            rest = b""
    if not rest:
        pipe.close()
    return rest


def _child_pidfd(pid: int) -> int | None:
    """A pidfd of the only child of `pid` (a step's verify-forkserver: its verify-init), checked
    to be that child once pinned; None when there is none."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as listing:
            children = listing.read().split()
        if len(children) != 1:
            return None
        child = int(children[0])
        fd = os.pidfd_open(child)
    except (OSError, ValueError):
        return None
    try:
        with open(f"/proc/{child}/stat", "rb") as status:
            if int(status.read().rsplit(b")", 1)[1].split()[1]) == pid:
                return fd
    except (OSError, ValueError, IndexError):
        pass
    os.close(fd)
    return None


@dataclass
class ReadyStep:
    """A step built ahead: verify-init waits in it for go."""

    key: StepKey
    sandbox: StepSandbox
    started: Started


def _step_key(prepared: Prepared, args: Sequence[str], limits: Limits) -> StepKey:
    language = prepared.language
    return (tuple(prepared.argv(args, limits)), limits, language.memory, language.memory_extra,
            tuple(sorted(language.env.items())))


def _key(prepared: Prepared, isolation: Isolation) -> Key:
    return (str(prepared.program.folder), tuple(map(str, prepared.readonly)), isolation)


class ForkServerPool:
    """Idle fork servers (at most MAX_IDLE, each used by one step at a time), and the
    program folders that got none; its owner closes it (`close`), which removes them.
    `enabled` False (VERIFY_FORKSERVER=off): it serves no run. Its servers are built in
    `cache` (None: cache_root(), read when it is made)."""

    def __init__(self, *, enabled: bool = True, zygotes: bool = True, cache: Path | None = None) -> None:
        self.enabled = enabled
        self.zygotes = zygotes
        self.cache = cache if cache is not None else cache_root()
        self._lock = threading.Lock()
        self._idle: IdleBoxes[ForkServer] = IdleBoxes(MAX_IDLE)
        self._unsuitable: OrderedDict[Key, warm.Signature] = OrderedDict()   # folders that got none, as they were

    def possible(self, isolation: Isolation) -> bool:
        return self.enabled and possible(isolation, self.cache)

    def run(self, prepared: Prepared, *, args: Sequence[str], limits: Limits, stdin: bytes,
            on_stdout: StdoutConsumer | None, isolation: Isolation) -> RunResult | None:
        """Run `prepared` as one step of a fork server (an idle one of this program, else a
        new one); None when it cannot have one (then run it the usual way).
        `possible(isolation)` must hold."""
        server_binary = binary(self.cache)
        if server_binary is None:
            return None
        key = _key(prepared, isolation)
        signature = warm.folder_signature(prepared.program.folder)
        with self._lock:
            if self._unsuitable.get(key) == signature:
                return None
        server = self._take(key, signature)
        if server is None:
            try:
                server = ForkServer(prepared, isolation, server_binary, zygotes=self.zygotes)
            except (ServerUnavailable, OSError):
                self._refuse(key, signature)
                return None
        try:
            result = server.step(prepared, args=args, limits=limits, stdin=stdin, on_stdout=on_stdout)
        except StepRefused:                  # (before the step began: it runs the usual way)
            server.close()
            self._refuse(key, signature)
            return None
        except BaseException:
            server.close()
            raise
        if server.alive():
            self._give_back(key, server)
        else:
            server.close()
        return result

    def _refuse(self, key: Key, signature: warm.Signature) -> None:
        """Not tried again for this folder as it is."""
        with self._lock:
            self._unsuitable[key] = signature
            while len(self._unsuitable) > MAX_UNSUITABLE:
                self._unsuitable.popitem(last=False)

    def _take(self, key: Key, signature: warm.Signature) -> ForkServer | None:
        found = self._idle.take(key)
        if found is not None and (not found.alive() or found.signature != signature):
            found.close()
            return None
        return found

    def _give_back(self, key: Key, server: ForkServer) -> None:
        for old in self._idle.keep(key, server):
            old.close()

    def idle(self) -> int:
        """How many fork servers wait now."""
        return self._idle.count()

    def servers(self) -> list[ForkServer]:
        return self._idle.boxes()

    def close(self) -> None:
        """Remove every idle fork server."""
        with self._lock:
            self._unsuitable.clear()
        for server in self._idle.drain():
            server.close()
