"""Run one program to completion under limits, streaming its stdout to a consumer."""
from __future__ import annotations

import collections
import fcntl
import math
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from verify.runner.build import Program, prepare
from verify.runner.cgroup import CgroupUsage
from verify.runner.limits import Limits
from verify.runner import warm
from verify.runner.isolation import Isolation, current
from verify.runner.sandbox import Sandbox

CHUNK = 64 << 10
MEMORY_FAILURE_SHARE = 0.9
CPU_CHECK_FIRST = 0.05   # seconds of wall time before the run's total CPU time is first read
CPU_CHECK_MIN = 0.01     # and never more often than this
CORES = os.cpu_count() or 1   # a run cannot burn more CPU seconds than this per second
STDOUT_PIPE = 1 << 20    # a 1 MiB stdout pipe, read 1 MiB at a time: the program and a
                         # judge working on another core wait on each other less
STDERR_TAIL = 2048
DRAIN_GRACE = 0.2        # seconds to drain the pipes after the program's main process exited

@dataclass
class RunResult:
    exit_code: int | None         # None when killed by a signal
    signal: int | None
    limit: str | None             # "time" | "memory" | "output" | "processes" | None: the limit it hit
    stopped_early: bool           # the stdout consumer asked to stop
    wall_time: float
    cpu_time: float
    peak_memory: int              # bytes (largest resident set among the processes)
    stdout_bytes: int
    stdout: bytes | None          # only when no on_stdout consumer was given
    stderr_tail: str
    isolation: str
    accounting: str = "rlimits"   # what counted memory, processes and CPU time (isolation.py)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.limit is None and not self.stopped_early

    @property
    def signal_name(self) -> str | None:
        if self.signal is None:
            return None
        try:
            return signal.Signals(self.signal).name
        except ValueError:
            return f"signal {self.signal}"


def run_program(program: Program, *, stdin: bytes = b"", args: Sequence[str] = (),
                limits: Limits = Limits(),
                on_stdout: Callable[[bytes], bool | None] | None = None) -> RunResult:
    """Compile (cached) and run `program`; raises CompileError / MissingInterpreter."""
    prepared = prepare(program)
    return execute(prepared, workdir=program.folder, readonly=prepared.readonly, limits=limits,
                   stdin=stdin, args=args, on_stdout=on_stdout,
                   memory_kind=prepared.language.memory, env=dict(prepared.language.env),
                   memory_extra=prepared.language.memory_extra, ahead=True)


def execute(command, *, workdir: Path, readonly: Sequence[Path] = (), limits: Limits,
            stdin: bytes = b"", args: Sequence[str] = (),
            on_stdout: Callable[[bytes], bool | None] | None = None,
            memory_kind: str = "data", env: dict[str, str] | None = None,
            copy_workdir: bool = True, memory_extra: int = 0,
            ahead: bool = False) -> RunResult:
    """Run `command` (a Prepared, or a plain argv) in a fresh Sandbox and wait for it.

    copy_workdir=False: the program works in `workdir` itself (a build in its private
    build folder). ahead: build the sandbox of the next identical run while this one
    runs (warm.py); this run takes one built by the previous run when there is one."""
    workdir = Path(workdir)
    isolation = current()

    def make(wait_for_go: bool) -> tuple[Sandbox, list[str]]:
        sandbox = Sandbox(workdir, readonly=list(readonly), copy_workdir=copy_workdir,
                          wait_for_go=wait_for_go, isolation=isolation).__enter__()
        try:
            argv = command.argv(args, limits, sandbox.path) if hasattr(command, "argv") else list(command)
            return sandbox, sandbox.wrap(argv, limits, memory_kind, memory_extra)
        except BaseException:
            sandbox.cleanup()
            raise

    key = signature = None
    if ahead and _can_build_ahead(isolation):
        base = command.argv(args, limits) if hasattr(command, "argv") else list(command)
        key = (tuple(base), str(workdir), tuple(map(str, readonly)), limits, memory_kind, memory_extra,
               tuple(sorted((env or {}).items())), copy_workdir, isolation)
        signature = warm.folder_signature(workdir)

    def build_next() -> None:
        try:
            for _ in range(warm.missing(key)):
                build_one()
        except Exception:    # only an optimisation: this run must go on whatever happens here
            pass

    def build_one() -> None:
        sandbox, argv = make(True)
        if sandbox.temp is not None:           # a folder too big for the tmpfs: not worth it
            sandbox.cleanup()
            return
        try:
            process = _spawn(argv, sandbox, env)
        except BaseException:
            sandbox.cleanup()
            raise
        warm.keep(key, warm.Ready(sandbox, process, argv, signature))

    ready = warm.take(key, signature) if key is not None else None
    after_start = build_next if key is not None else None
    if ready is not None:
        try:
            if ready.sandbox.go():
                return _drive(ready.argv, ready.sandbox, limits, stdin, on_stdout, env,
                              process=ready.process, after_start=after_start)
        finally:
            warm.dispose(ready)
    sandbox, full = make(False)
    try:
        return _drive(full, sandbox, limits, stdin, on_stdout, env, after_start=after_start)
    finally:
        sandbox.cleanup()


def _can_build_ahead(isolation: Isolation) -> bool:
    """Only under bubblewrap with verify-init (the one that can wait for go), and not with
    a cgroup per run (each waiting sandbox would hold one)."""
    return bool(isolation.bwrap and isolation.helper and isolation.cgroups is None
                and os.environ.get("VERIFY_AHEAD", "").lower() not in ("0", "off", "no", "none"))


def _spawn(argv: list[str], sandbox: Sandbox, env: dict[str, str] | None) -> subprocess.Popen:
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=str(sandbox.visible_workdir), env=sandbox.environment(env),
                               start_new_session=True, user=sandbox.popen_user(), close_fds=True,
                               pass_fds=sandbox.pass_fds)
    sandbox.spawned()
    return process


def _widen_pipe(fd: int) -> None:
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, STDOUT_PIPE)
    except OSError:
        pass                     # over /proc/sys/fs/pipe-max-size for a user: keep the default size


def _drive(argv: list[str], sandbox: Sandbox, limits: Limits, stdin: bytes,
           on_stdout: Callable[[bytes], bool | None] | None, env: dict[str, str] | None,
           process: subprocess.Popen | None = None, after_start: Callable[[], None] | None = None) -> RunResult:
    """Run to the end: spawn `argv`, or drive `process` (a sandbox built ahead, already let go)."""
    start = time.monotonic()
    if process is None:
        process = _spawn(argv, sandbox, env)
    if after_start is not None:
        after_start()            # (the program is starting meanwhile; its wall time counts from `start`)
    deadline = start + limits.wall_time
    collected = bytearray() if on_stdout is None else None
    stderr_tail: collections.deque[bytes] = collections.deque()
    stderr_size = 0
    stdout_bytes = 0
    limit: str | None = None
    stopped_early = False
    status = rusage = None
    exited_at: float | None = None

    selector = selectors.DefaultSelector()
    pidfd = os.pidfd_open(process.pid)
    for stream in (process.stdout, process.stderr):
        os.set_blocking(stream.fileno(), False)
    _widen_pipe(process.stdout.fileno())
    selector.register(process.stdout, selectors.EVENT_READ, "stdout")
    selector.register(process.stderr, selectors.EVENT_READ, "stderr")
    selector.register(pidfd, selectors.EVENT_READ, "exit")
    pending_input = memoryview(stdin)
    if pending_input:
        os.set_blocking(process.stdin.fileno(), False)
        selector.register(process.stdin, selectors.EVENT_WRITE, "stdin")
    else:
        process.stdin.close()

    def stop() -> None:
        _kill_group(process.pid)

    cgroup = sandbox.cgroup
    next_cpu_check = start + CPU_CHECK_FIRST if cgroup is not None else math.inf
    try:
        open_streams = 2
        while open_streams or exited_at is None:   # (a program may close stdout and go on)
            now = time.monotonic()
            if exited_at is not None and now > exited_at + DRAIN_GRACE:
                break                      # something still holds the pipes: it is killed below
            if now >= deadline:
                limit = limit or "time"
                stop()
                break
            if now >= next_cpu_check and exited_at is None and cgroup is not None:
                # the CPU time of every process of the run, reaped or not, against the limit
                left = limits.cpu_time - cgroup.cpu_time()
                if left < 0:
                    limit = limit or "time"
                    stop()
                    break
                next_cpu_check = now + max(CPU_CHECK_MIN, left / CORES)
            timeout = deadline - now if exited_at is None else exited_at + DRAIN_GRACE - now
            timeout = min(timeout, max(0.0, next_cpu_check - now))
            for key, _ in selector.select(timeout=max(0.0, timeout)):
                what = key.data
                if what == "exit":
                    selector.unregister(pidfd)
                    _, status, rusage = os.wait4(process.pid, 0)
                    process.returncode = _returncode(status)
                    exited_at = time.monotonic()
                    stop()                 # background children die with the main process
                elif what == "stdin":
                    try:
                        written = os.write(process.stdin.fileno(), pending_input[:CHUNK])
                        pending_input = pending_input[written:]
                    except (BrokenPipeError, OSError):
                        pending_input = pending_input[:0]
                    if not pending_input:
                        selector.unregister(process.stdin)
                        process.stdin.close()
                else:
                    try:
                        chunk = os.read(key.fd, STDOUT_PIPE if what == "stdout" else CHUNK)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        selector.unregister(key.fileobj)
                        open_streams -= 1
                        continue
                    if what == "stderr":
                        stderr_tail.append(chunk)
                        stderr_size += len(chunk)
                        while stderr_size - len(stderr_tail[0]) >= STDERR_TAIL:
                            stderr_size -= len(stderr_tail.popleft())
                        continue
                    if limit or stopped_early:
                        continue           # already stopping: ignore the rest
                    room = limits.output - stdout_bytes
                    stdout_bytes += len(chunk)
                    if len(chunk) > room:
                        chunk = chunk[:room]
                        limit = "output"
                        stop()
                    if collected is not None:
                        collected += chunk
                    elif chunk and on_stdout(chunk):
                        stopped_early = True
                        stop()
    finally:
        stop()
        sandbox.kill_leftovers()
        if status is None:
            _, status, rusage = os.wait4(process.pid, 0)
            process.returncode = _returncode(status)
        selector.close()
        os.close(pidfd)
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                stream.close()
            except OSError:
                pass

    wall = (exited_at or time.monotonic()) - start
    cpu = rusage.ru_utime + rusage.ru_stime
    peak = rusage.ru_maxrss * 1024
    measured = sandbox.read_report()
    if measured is not None:
        # verify-init saw the program itself: its usage (the outer processes' is the judge's)
        # and its exact wait status (bwrap would turn a signal N into an exit code 128+N)
        cpu, peak, status = measured
    exit_code = os.waitstatus_to_exitcode(status)
    signal_number = -exit_code if exit_code < 0 else None
    exit_code = None if exit_code < 0 else exit_code
    if measured is None and signal_number is None and exit_code is not None and exit_code > 128 \
            and _is_bwrap_wrapped(argv):
        # without verify-init, bwrap reports its child's death by signal N as exit code 128+N
        signal_number, exit_code = exit_code - 128, None
    usage = cgroup.usage() if cgroup is not None else None
    if usage is not None:
        cpu, peak = usage.cpu_time, usage.peak_memory
    if not stopped_early:
        limit = _limit_hit(limit, usage, limits, cpu, peak, exit_code, signal_number)
    stderr_text = b"".join(stderr_tail)[-STDERR_TAIL:].decode("utf-8", "replace")
    return RunResult(exit_code=exit_code, signal=signal_number, limit=limit, stopped_early=stopped_early,
                     wall_time=wall, cpu_time=cpu, peak_memory=peak, stdout_bytes=stdout_bytes,
                     stdout=bytes(collected) if collected is not None else None,
                     stderr_tail=stderr_text, isolation=sandbox.isolation.name,
                     accounting=sandbox.isolation.accounting if cgroup is not None else "rlimits")


def _limit_hit(stopped_for: str | None, usage: CgroupUsage | None, limits: Limits, cpu: float, peak: int,
               exit_code: int | None, signal_number: int | None) -> str | None:
    """Which limit the run hit, from what the kernel counted (never from what the program
    printed). `stopped_for`: the limit at which verify itself stopped it (time, output).

    With a cgroup the counts are exact: a fork refused at pids.max is the process limit,
    an out-of-memory kill is the memory limit. With rlimits only, a peak resident set
    above the limit is the memory limit too. Either way a failure (non-zero exit or a
    signal) while holding MEMORY_FAILURE_SHARE of the limit is one: a runtime that
    refuses an allocation itself (the JVM at -Xmx) fails just short of the limit."""
    if usage is not None:
        if usage.forks_refused:
            return "processes"
        if usage.oom_kills:
            return "memory"
    if stopped_for is not None:
        return stopped_for
    if usage is None and peak > limits.memory:
        return "memory"
    if cpu > limits.cpu_time or signal_number == signal.SIGXCPU:
        return "time"
    failed = bool(exit_code) or signal_number is not None
    if failed and peak >= limits.memory * MEMORY_FAILURE_SHARE:
        return "memory"
    return None


def _is_bwrap_wrapped(argv: Sequence[str]) -> bool:
    return any(os.path.basename(word) == "bwrap" for word in argv[:12])


def _returncode(status: int) -> int:
    return os.waitstatus_to_exitcode(status)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
