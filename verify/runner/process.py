"""One sandboxed process: started, driven to its end, and its end classified.

Every program verify starts (a run, a build, a session, a sandbox built ahead) is
started by `spawn`. `drive` then takes a run to its end in two steps: `_pump`, the I/O
loop, writes its stdin, streams its stdout to a consumer, stops it at the wall time, at
the CPU time of all its processes (its cgroup's count, else its live process tree's:
proctree.py), or at the output limit, and returns what happened
(`Ending`); `_result` then reads what verify-init and the kernel counted, and
`limit_hit` decides from those counts which limit, if any, the run hit.
"""
from __future__ import annotations

import collections
import fcntl
import os
import resource
import selectors
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from verify.runner import machine
from verify.runner.cgroup import CgroupUsage
from verify.runner.handed import HandedStep, no_rusage
from verify.runner.limits import Limits
from verify.runner.mode import Isolation, SandboxUnavailable
from verify.runner.proctree import tree_cpu_time
from verify.runner.sandbox import Report, RunProcess, Sandbox, kill_group

CHUNK = 64 << 10
MEMORY_FAILURE_SHARE = 0.9
CPU_CHECK_FIRST = 0.05   # seconds of wall time before the run's total CPU time is first read
CPU_CHECK_MIN = 0.01     # and never more often than this
CORES = os.cpu_count() or 1   # a run cannot burn more CPU seconds than this per second
STDOUT_PIPE = 1 << 20    # a 1 MiB stdout pipe, read 1 MiB at a time: the program and a
                         # judge working on another core wait on each other less
STDERR_TAIL = 2048
DRAIN_GRACE = 0.2        # seconds to drain the pipes after the program's main process exited

READ_BUDGET = 8 << 20    # bytes a judge reading the pipe itself reads before the limits are looked at again

StdoutConsumer = Callable[[bytes], bool | None]   # returns True to stop the program
# a consumer may also read the pipe itself: its pipe_reader() is None or a PipeReader
PipeReader = Callable[[int, int], tuple[int, bool, bool]]   # (fd, budget) -> (bytes read, closed, stop it)


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
    stderr_tail: str              # the last STDERR_TAIL bytes of stderr
    isolation: str
    accounting: str = "rlimits"   # what counted memory, processes and CPU time (isolation.py)
    stderr_head: str = ""         # the first STDERR_TAIL bytes (a language's error may be on its first line)

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


@dataclass(frozen=True)
class Started:
    """A program started in its sandbox."""

    process: RunProcess
    argv: list[str]               # the whole command line: verify-init (or prlimit), bubblewrap, the program
    at: float                     # time.monotonic() when it started: its wall time counts from here


def spawn(sandbox: Sandbox, command: Sequence[str], limits: Limits, *, memory_kind: str = "data",
          memory_extra: int = 0, env: Mapping[str, str] | None = None) -> Started:
    """Start `command` (the program's own argv, with paths as `sandbox.path` shows them)
    in `sandbox` (entered, and used for nothing else) under `limits`: its stdin, stdout
    and stderr are pipes, it leads a new session, its environment is the sandbox's plus
    `env`. The caller cleans the sandbox up (it owns it), also when this raises."""
    argv = sandbox.wrap(command, limits, memory_kind, memory_extra)
    at = time.monotonic()
    process = sandbox.launch(argv, env)
    sandbox.spawned()
    return Started(process, argv, at)


def open_pidfd(process: RunProcess) -> int:
    """A pidfd of the run's main process (the caller's to close)."""
    if isinstance(process, HandedStep):
        return process.pidfd_copy()
    return os.pidfd_open(process.pid)


def reap(process: RunProcess) -> tuple[int, resource.struct_rusage]:
    """Wait for the run's main process: its wait status and resource usage."""
    if isinstance(process, HandedStep):
        return process.reap()
    _, status, rusage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return status, rusage


def run_command(argv: Sequence[str], *, workdir: Path, limits: Limits, isolation: Isolation,
                readonly: Sequence[Path] = (), copy_workdir: bool = True,
                on_stdout: StdoutConsumer | None = None, env: Mapping[str, str] | None = None) -> RunResult:
    """Run the command line `argv` (no stdin, its memory counted as data) in a fresh Sandbox
    of `isolation` and wait for it.

    copy_workdir=False: the program works in `workdir` itself (a build in its private
    build folder). A prepared program is run by `verify.runner.run.run_prepared`."""
    with Sandbox(Path(workdir), readonly=list(readonly), copy_workdir=copy_workdir, isolation=isolation) as sandbox:
        started = spawn(sandbox, argv, limits, env=env)
        return drive(started, sandbox, limits, on_stdout=on_stdout)


def drive(started: Started, sandbox: Sandbox, limits: Limits, *, stdin: bytes = b"",
          on_stdout: StdoutConsumer | None = None) -> RunResult:
    """Take a started run to its end (nothing of it is alive afterwards) and classify it.
    With no `on_stdout` consumer its stdout is collected into the result."""
    ending = _pump(started, sandbox, limits, stdin, on_stdout)
    return _result(ending, sandbox, limits)


@dataclass(frozen=True)
class Ending:
    """What the I/O loop saw of a run."""

    status: int                     # the main process's wait status, as wait4 gave it
    rusage: resource.struct_rusage  # and its resource usage (the outer process's, under bubblewrap)
    wall_time: float
    stopped_for: str | None         # the limit at which verify stopped it: "time" | "output" | None
    stopped_early: bool             # the stdout consumer asked to stop
    stdout_bytes: int
    stdout: bytes | None            # collected only when there was no consumer
    stderr_tail: str
    stderr_head: str


def _widen_pipe(fd: int) -> None:
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, STDOUT_PIPE)
    except OSError:
        pass                     # over /proc/sys/fs/pipe-max-size for a user: keep the default size


def _pipe_reader_of(consumer: StdoutConsumer | None) -> PipeReader | None:
    make = getattr(consumer, "pipe_reader", None)
    reader: PipeReader | None = make() if make is not None else None
    return reader


def _pump(started: Started, sandbox: Sandbox, limits: Limits, stdin: bytes,
          on_stdout: StdoutConsumer | None) -> Ending:
    """The I/O loop: stdin in, stdout to the consumer (counted against the output limit),
    the last bytes of stderr kept; stopped at the wall time or at the CPU time the run's
    cgroup counted. Kills every process of the run before it returns."""
    pump = _Pump(started, sandbox, limits, stdin, on_stdout)
    try:
        pump.loop()
    finally:
        pump.finish()
    return pump.ending()


class _Pump:
    """The state of one run's I/O loop: its pipes, what it read, and why it stopped."""

    def __init__(self, started: Started, sandbox: Sandbox, limits: Limits, stdin: bytes,
                 on_stdout: StdoutConsumer | None) -> None:
        self.process, self.start = started.process, started.at
        self.sandbox, self.limits, self.on_stdout = sandbox, limits, on_stdout
        process = self.process
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        self.stdin_pipe, self.stdout_pipe, self.stderr_pipe = process.stdin, process.stdout, process.stderr
        self.deadline = self.start + limits.wall_time
        self.collected = bytearray() if on_stdout is None else None
        self.pipe_reader = _pipe_reader_of(on_stdout)
        self.stderr_tail: collections.deque[bytes] = collections.deque()
        self.stderr_head = bytearray()
        self.stderr_size = 0
        self.stdout_bytes = 0
        self.limit: str | None = None
        self.stopped_early = False
        self.status: int | None = None
        self.rusage: resource.struct_rusage | None = None
        self.exited_at: float | None = None
        self.stopped_at: float | None = None
        self.reported = False              # verify-init reported the end: nothing of the run is alive
        self.open_streams = 2
        self.pending_input = memoryview(stdin)
        self.pidfd = open_pidfd(process)
        self.selector = selectors.DefaultSelector()
        self._register()
        cgroup = sandbox.cgroup
        # the CPU time of every process of the run, reaped or not: its cgroup's count, else
        # the sum over its live process tree (children spinning while the program sleeps)
        self.run_cpu_time = cgroup.cpu_time if cgroup is not None else lambda: tree_cpu_time(process.pid)
        self.next_cpu_check = self.start + CPU_CHECK_FIRST

    def _register(self) -> None:
        selector = self.selector
        for stream in (self.stdout_pipe, self.stderr_pipe):
            os.set_blocking(stream.fileno(), False)
        _widen_pipe(self.stdout_pipe.fileno())
        selector.register(self.stdout_pipe, selectors.EVENT_READ, "stdout")
        selector.register(self.stderr_pipe, selectors.EVENT_READ, "stderr")
        selector.register(self.pidfd, selectors.EVENT_READ, "exit")
        if self.sandbox.ends_at_report and self.sandbox.report_fd is not None:
            selector.register(self.sandbox.report_fd, selectors.EVENT_READ, "report")
        if self.pending_input:
            os.set_blocking(self.stdin_pipe.fileno(), False)
            selector.register(self.stdin_pipe, selectors.EVENT_WRITE, "stdin")
        else:
            self.stdin_pipe.close()

    def stop(self) -> None:
        if self.reported:
            return                         # nothing is left to stop; what is still exiting is verify's own
        if self.status is None:
            self.stopped_at = self.stopped_at or time.monotonic()
            self.sandbox.stop(self.process.pid, self.pidfd)
        elif not self.sandbox.ends_by_request:
            kill_group(self.process.pid)   # what bubblewrap's init left in the group dies with the run

    def loop(self) -> None:
        while self.open_streams or self.exited_at is None:   # (a program may close stdout and go on)
            now = time.monotonic()
            if self.exited_at is not None and now > self.exited_at + DRAIN_GRACE:
                break                      # something still holds the pipes: it is killed below
            if self._out_of_time(now):
                self.limit = self.limit or "time"
                self.stop()
                break
            if now >= self.deadline:       # ended in time, still draining its pipes
                self.stop()
                break
            timeout = self.deadline - now if self.exited_at is None else self.exited_at + DRAIN_GRACE - now
            timeout = min(timeout, max(0.0, self.next_cpu_check - now))
            for key, _ in self.selector.select(timeout=max(0.0, timeout)):
                self._handle(key)
            if self.reported:
                self._drain()
                break

    def _out_of_time(self, now: float) -> bool:
        """Whether the running program passed its wall time or the CPU time of all its
        processes (read at most every CPU_CHECK_MIN seconds; one that ended in time is not
        late for its pipes)."""
        if self.exited_at is not None:
            return False
        if now >= self.deadline:
            return True
        if now >= self.next_cpu_check:
            left = self.limits.cpu_time - self.run_cpu_time()
            if left < 0:
                return True
            self.next_cpu_check = now + max(CPU_CHECK_MIN, left / CORES)
        return False

    def _handle(self, key: selectors.SelectorKey) -> None:
        what = key.data
        if what == "exit":
            self._reap_main()
        elif what == "report":
            self._take_report(key)
        elif what == "stdin":
            self._write_stdin()
        else:
            self._read(key)

    def _read(self, key: selectors.SelectorKey) -> bool:
        """Read what stdout or stderr has now; False when there was nothing (yet)."""
        what = key.data
        if what == "stdout":
            judged = self._judged_in_place(key)
            if judged is not None:
                return judged
        try:
            chunk = os.read(key.fd, STDOUT_PIPE if what == "stdout" else CHUNK)
        except BlockingIOError:
            return False
        if not chunk:
            self.selector.unregister(key.fileobj)
            self.open_streams -= 1
            return False
        if what == "stderr":
            self._keep_stderr(chunk)
        else:
            self._take_stdout(chunk)
        return True

    def _take_report(self, key: selectors.SelectorKey) -> None:
        """A step's verify-init reported (`Sandbox.ends_at_report`): the program and every
        process it left were reaped before, so all they wrote is in the pipes and the run is
        over, although verify-init and its parent may not have exited yet. A report after
        verify stopped the run, or none (its set-up failed), leaves the end to the exit."""
        self.selector.unregister(key.fileobj)
        report = self.sandbox.read_report()
        if report is None or not report.started or self.status is not None or self.stopped_at is not None:
            return
        self.status, self.rusage = report.status, no_rusage()
        self.exited_at = time.monotonic()
        self.reported = True

    def _drain(self) -> None:
        """Read what is left in the pipes without waiting: nothing can write to them any more."""
        for stream in (self.stdout_pipe, self.stderr_pipe):
            while stream in self.selector.get_map() and self._read(self.selector.get_key(stream)):
                pass

    def _reap_main(self) -> None:
        self.selector.unregister(self.pidfd)
        self.status, self.rusage = reap(self.process)
        self.exited_at = time.monotonic()
        self.stop()                        # background children die with the main process

    def _write_stdin(self) -> None:
        try:
            written = os.write(self.stdin_pipe.fileno(), self.pending_input[:CHUNK])
            self.pending_input = self.pending_input[written:]
        except OSError:                    # (BrokenPipeError included)
            self.pending_input = self.pending_input[:0]
        if not self.pending_input:
            self.selector.unregister(self.stdin_pipe)
            self.stdin_pipe.close()

    def _judged_in_place(self, key: selectors.SelectorKey) -> bool | None:
        """The consumer reads the pipe itself (a judge's compiled loop, in this thread), as much
        as it can now and as the output limit allows: whether it read anything. None when it
        cannot: no such consumer, the run is stopping, or the limit is reached (the next plain
        read decides it)."""
        reader = self.pipe_reader
        room = self.limits.output - self.stdout_bytes
        if reader is None or self.limit or self.stopped_early or room <= 0:
            return None
        read, closed, stop = reader(key.fd, min(READ_BUDGET, room))
        self.stdout_bytes += read
        if closed:
            self.selector.unregister(key.fileobj)
            self.open_streams -= 1
        if stop:
            self.stopped_early = True
            self.stop()
        return read > 0 and not closed and not stop

    def _keep_stderr(self, chunk: bytes) -> None:
        head = self.stderr_head
        if len(head) < STDERR_TAIL:
            head += chunk[:STDERR_TAIL - len(head)]
        tail = self.stderr_tail
        tail.append(chunk)
        self.stderr_size += len(chunk)
        while self.stderr_size - len(tail[0]) >= STDERR_TAIL:
            self.stderr_size -= len(tail.popleft())

    def _take_stdout(self, chunk: bytes) -> None:
        if self.limit or self.stopped_early:
            return                         # already stopping: ignore the rest
        room = self.limits.output - self.stdout_bytes
        self.stdout_bytes += len(chunk)
        if len(chunk) > room:
            chunk = chunk[:room]
            self.limit = "output"
            self.stop()
        if self.collected is not None:
            self.collected += chunk
        elif self.on_stdout is not None and chunk and self.on_stdout(chunk):
            self.stopped_early = True
            self.stop()

    def finish(self) -> None:
        """Kill and reap every process of the run and close its pipes."""
        self.stop()
        pid = self.process.pid
        if self.status is None:
            self.sandbox.await_end(pid, self.pidfd)
        self.sandbox.kill_leftovers()
        if self.status is None:
            self.status, self.rusage = reap(self.process)
        self.selector.close()
        os.close(self.pidfd)
        for stream in (self.stdin_pipe, self.stdout_pipe, self.stderr_pipe):
            try:
                stream.close()
            except OSError:
                pass

    def ending(self) -> Ending:
        assert self.status is not None and self.rusage is not None
        ended = self.exited_at if self.exited_at is not None else self.stopped_at or time.monotonic()
        return Ending(status=self.status, rusage=self.rusage, wall_time=ended - self.start,
                      stopped_for=self.limit, stopped_early=self.stopped_early, stdout_bytes=self.stdout_bytes,
                      stdout=bytes(self.collected) if self.collected is not None else None,
                      stderr_tail=b"".join(self.stderr_tail)[-STDERR_TAIL:].decode("utf-8", "replace"),
                      stderr_head=bytes(self.stderr_head).decode("utf-8", "replace"))


def _result(ending: Ending, sandbox: Sandbox, limits: Limits) -> RunResult:
    """The run's result: its exit, CPU time and memory as verify-init and the run's cgroup
    counted them (else as wait4 saw them), and the limit it hit."""
    cpu = ending.rusage.ru_utime + ending.rusage.ru_stime
    peak = ending.rusage.ru_maxrss * 1024
    status = ending.status
    measured = sandbox.read_report()
    cgroup = sandbox.cgroup
    usage = cgroup.usage() if cgroup is not None else None
    if sandbox.expects_report:
        _check_set_up(ending, sandbox, measured, usage)
    if measured is not None:
        # verify-init saw the program itself: its usage (the outer processes' is the judge's)
        # and its exact wait status (bwrap would turn a signal N into an exit code 128+N)
        cpu, peak, status = measured.cpu_time, measured.peak_memory, measured.status
    code = os.waitstatus_to_exitcode(status)
    signal_number = -code if code < 0 else None
    exit_code = None if code < 0 else code
    if measured is None and exit_code is not None and exit_code > 128 and sandbox.backend.namespaced:
        # without verify-init, bwrap reports its child's death by signal N as exit code 128+N
        signal_number, exit_code = exit_code - 128, None
    if usage is not None:
        cpu, peak = usage.cpu_time, usage.peak_memory
    limit = ending.stopped_for if ending.stopped_early else \
        limit_hit(ending.stopped_for, usage, limits, cpu, peak, exit_code, signal_number,
                  refused=measured.refused if measured is not None else -1)
    return RunResult(exit_code=exit_code, signal=signal_number, limit=limit, stopped_early=ending.stopped_early,
                     wall_time=ending.wall_time, cpu_time=cpu, peak_memory=peak, stdout_bytes=ending.stdout_bytes,
                     stdout=ending.stdout, stderr_tail=ending.stderr_tail, stderr_head=ending.stderr_head,
                     isolation=sandbox.isolation.name,
                     accounting=sandbox.isolation.accounting if cgroup is not None else "rlimits")


SET_UP_WORDS = ("verify-init:", "bwrap:", "verify-forkserver:")


def _check_set_up(ending: Ending, sandbox: Sandbox, measured: Report | None, usage: CgroupUsage | None) -> None:
    """SandboxUnavailable when the run's set-up failed before its program started: verify-init
    said so, or (bubblewrap or verify-init failing before the fork) nothing reported at all
    although verify neither stopped the run nor did the kernel kill inside it at the memory limit."""
    if measured is not None and measured.started:
        return
    if measured is None and (ending.stopped_for or ending.stopped_early or (usage is not None and usage.oom_kills)):
        return
    said = [line.strip() for line in ending.stderr_head.splitlines() if line.startswith(SET_UP_WORDS)]
    code = os.waitstatus_to_exitcode(ending.status)
    why = said[0][:200] if said else f"no report from verify-init, exit code {code}"
    fix = (EXEC_FIX if said and said[0].startswith("verify-init: cannot run ") else machine.sandbox_fix())
    raise SandboxUnavailable(f"the sandbox could not start the program ({why}); fix: {fix}")


# The command line is verify's own (an interpreter, a compiler, an artefact it built): what
# the run's uid cannot execute is a toolchain out of its reach, such as one under /root.
EXEC_FIX = ("install that tool where every user can run it (a system package, e.g. apt-get install), "
            "or make its folders readable and searchable by all")


def limit_hit(stopped_for: str | None, usage: CgroupUsage | None, limits: Limits, cpu: float, peak: int,
              exit_code: int | None, signal_number: int | None, *, refused: int = -1) -> str | None:
    """Which limit the run hit, from what the kernel counted (never from what the program
    printed). `stopped_for`: the limit at which verify itself stopped it (time, output).
    `refused`: how many requests for memory the kernel refused at the memory rlimit, as
    verify-init saw them (-1: not watched; with a cgroup there is no such rlimit).

    With a cgroup the counts are exact: a fork refused at pids.max is the process limit,
    an out-of-memory kill is the memory limit. With rlimits only, a peak resident set
    above the limit is the memory limit too, and so is a failure (non-zero exit or a
    signal) after a refusal at the limit, whatever the language made of the refusal (a
    write through NULL, MemoryError). Either way a failure while holding
    MEMORY_FAILURE_SHARE of the limit is one: a runtime that refuses an allocation itself
    (the JVM at -Xmx) fails just short of the limit."""
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
    if failed and (peak >= limits.memory * MEMORY_FAILURE_SHARE or (usage is None and refused > 0)):
        return "memory"
    return None
