"""One persistent interactive process: write a request, read one line back.

Started like any run (`Prepared.sandbox`, `Prepared.start`: process.spawn), then
spoken to line by line until it is closed.
"""
from __future__ import annotations

import os
import resource
import select
import time
from collections.abc import Sequence
from pathlib import Path

from verify.errors import VerifyError
from verify.runner.build import Prepared, Program, prepare
from verify.runner.isolation import Isolation
from verify.runner.limits import DEFAULT_LIMITS, Limits
from verify.runner.process import STDERR_TAIL, kill_group
from verify.runner.sandbox import RunProcess, Sandbox


class SessionError(VerifyError):
    """The interactive program failed; ``reason`` is "timeout", "eof", "crash" or "output"."""

    def __init__(self, reason: str, message: str, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.stderr_tail = stderr_tail


class Session:
    """A program kept running between exchanges (a match's players in persistent mode).

    The limits apply to the whole session: cpu_time and memory as rlimits, wall_time
    as the session's total lifetime, output as the longest line accepted. It runs under
    `isolation` a Prepared program, or a Program prepared when it starts (built in `cache`,
    None: cache_root()); `.isolation` is that isolation's name.
    Started by `with Session(...) as session:` (or `__enter__()`), ended by `close()`.
    """

    def __init__(self, program: Program | Prepared, limits: Limits = DEFAULT_LIMITS, args: Sequence[str] = (), *,
                 isolation: Isolation, cache: Path | None = None) -> None:
        self._prepared = program if isinstance(program, Prepared) else None   # (else prepared when it starts)
        self.program = program.program if isinstance(program, Prepared) else program
        self.limits = limits
        self.args = tuple(args)
        self._isolation = isolation
        self._cache = cache
        self.isolation = self._isolation.name
        self._process: RunProcess | None = None
        self._sandbox: Sandbox | None = None
        self._buffer = bytearray()
        self._stderr = bytearray()
        self._rusage: resource.struct_rusage | None = None
        # What the session's processes used, known once it is closed, counted as a run's
        # are (process._result): its cgroup's counts, else verify-init's report, else wait4's
        self.peak_memory = 0
        self.cpu_time = 0.0

    def __enter__(self) -> Session:
        prepared = self._prepared or prepare(self.program, isolation=self._isolation, cache=self._cache)
        self._sandbox = prepared.sandbox(self._isolation).__enter__()
        try:
            process = prepared.start(self._sandbox, self.args, self.limits).process
        except BaseException:
            self._sandbox.cleanup()
            raise
        self._process = process
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        self._deadline = time.monotonic() + self.limits.wall_time
        self._stdin_fd = process.stdin.fileno()
        self._stdout_fd = process.stdout.fileno()
        self._stderr_fd = process.stderr.fileno()
        os.set_blocking(self._stdout_fd, False)
        os.set_blocking(self._stderr_fd, False)
        self._poll = select.poll()     # poll, not selectors: this is a persistent match's hot loop
        self._poll.register(self._stdout_fd, select.POLLIN)
        self._poll.register(self._stderr_fd, select.POLLIN)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def stderr_tail(self) -> str:
        return bytes(self._stderr[-STDERR_TAIL:]).decode("utf-8", "replace")

    def close(self) -> None:
        """End the program and everything it started (and every process of the session's uid)."""
        if self._process is not None:
            if self._sandbox is not None:
                self._sandbox.end(self._process)
            else:
                kill_group(self._process.pid)
            for stream in (self._process.stdin, self._process.stdout, self._process.stderr):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
            self._reap(None)
            if self._sandbox is not None:
                self._sandbox.kill_leftovers()
                self._measure(self._sandbox)
            self._process = None
        if self._sandbox is not None:
            self._sandbox.cleanup()
            self._sandbox = None

    def _reap(self, timeout: float | None) -> int | None:
        """Wait for the process verify started (at most `timeout` seconds; None: until it
        ends), keeping its rusage; its exit code, None while it runs."""
        process = self._process
        assert process is not None
        if process.returncode is None:
            if timeout is not None:
                pidfd = os.pidfd_open(process.pid)
                try:
                    if not select.select([pidfd], [], [], timeout)[0]:
                        return None
                finally:
                    os.close(pidfd)
            _, status, self._rusage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
        return process.returncode

    def _measure(self, sandbox: Sandbox) -> None:
        """The session's CPU time and peak memory, once every process of it has ended."""
        rusage = self._rusage
        if rusage is not None:
            self.cpu_time, self.peak_memory = rusage.ru_utime + rusage.ru_stime, rusage.ru_maxrss * 1024
        report = sandbox.read_report()
        if report is not None:
            self.cpu_time, self.peak_memory = report.cpu_time, report.peak_memory
        if sandbox.cgroup is not None:
            usage = sandbox.cgroup.usage()
            self.cpu_time, self.peak_memory = usage.cpu_time, usage.peak_memory

    def exchange(self, text: bytes, timeout: float) -> bytes:
        """Write `text`, return the next line the program prints (without its newline)."""
        if self._process is None:
            raise SessionError("eof", "the session is closed")
        try:
            view = memoryview(text)
            while view:   # blocking writes straight to the pipe: no buffer to flush
                view = view[os.write(self._stdin_fd, view):]
        except OSError:
            raise self._ended() from None
        return self.read_line(timeout)

    def read_line(self, timeout: float) -> bytes:
        """The next line of output (without its newline, nor a CR before it)."""
        if self._process is None:
            raise SessionError("eof", "the session is closed")
        buffer = self._buffer
        searched = 0
        newline = buffer.find(b"\n")
        if newline < 0:
            deadline = min(time.monotonic() + timeout, self._deadline)
            while newline < 0:
                if len(buffer) > self.limits.output:
                    raise SessionError("output", f"a line longer than {self.limits.output} bytes",
                                       self.stderr_tail)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise SessionError("timeout", f"no answer within {timeout:g} s", self.stderr_tail)
                for fd, _ in self._poll.poll(remaining * 1000):
                    try:
                        chunk = os.read(fd, 1 << 16)
                    except BlockingIOError:
                        continue
                    if fd == self._stderr_fd:
                        if chunk:
                            self._stderr += chunk
                            del self._stderr[:-STDERR_TAIL]
                        else:
                            self._poll.unregister(fd)
                        continue
                    if not chunk:
                        raise self._ended()
                    searched = len(buffer)
                    buffer += chunk
                    newline = buffer.find(b"\n", searched)
        line = bytes(buffer[:newline])
        del buffer[:newline + 1]
        return line[:-1] if line.endswith(b"\r") else line

    def _ended(self) -> SessionError:
        code = self._reap(1.0)
        if code is None:
            return SessionError("eof", "the program closed its output", self.stderr_tail)
        if code == 0:
            return SessionError("eof", "the program exited", self.stderr_tail)
        what = f"exit code {code}" if code > 0 else f"signal {-code}"
        return SessionError("crash", f"the program crashed ({what})", self.stderr_tail)
