"""One persistent interactive process: write a request, read one line back."""
from __future__ import annotations

import os
import selectors
import subprocess
import time
from typing import Sequence

from verify.errors import VerifyError
from verify.runner.build import Program, prepare
from verify.runner.limits import Limits
from verify.runner.run import _kill_group, _processes_of_current_user
from verify.runner.sandbox import Sandbox, isolation_name, running_as_root

STDERR_TAIL = 2048


class SessionError(VerifyError):
    """The interactive program failed; ``reason`` is "timeout", "eof", "crash" or "output"."""

    def __init__(self, reason: str, message: str, stderr_tail: str = ""):
        super().__init__(message)
        self.reason = reason
        self.stderr_tail = stderr_tail


class Session:
    """A program kept running between exchanges (maze solvers in persistent mode).

    The limits apply to the whole session: cpu_time and memory as rlimits, wall_time
    as the session's total lifetime, output as the longest line accepted.
    """

    def __init__(self, program: Program, limits: Limits = Limits(), args: Sequence[str] = ()) -> None:
        self.program = program
        self.limits = limits
        self.args = tuple(args)
        self.isolation = isolation_name()
        self._process: subprocess.Popen | None = None
        self._sandbox: Sandbox | None = None
        self._buffer = bytearray()
        self._stderr = bytearray()
        self._selector: selectors.BaseSelector | None = None

    def __enter__(self) -> "Session":
        prepared = prepare(self.program)
        self._sandbox = Sandbox(self.program.folder, readonly=list(prepared.readonly)).__enter__()
        try:
            argv = prepared.argv(self.args, self.limits, self._sandbox.path)
            processes = self.limits.processes + 1 if self._sandbox.uid is not None else (
                None if running_as_root() else _processes_of_current_user() + self.limits.processes)
            full = self._sandbox.wrap(argv, self.limits, prepared.language.memory,
                                      prepared.language.memory_extra, processes)
            self._process = subprocess.Popen(
                full, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=str(self._sandbox.visible_workdir), env=self._sandbox.environment(dict(prepared.language.env)),
                start_new_session=True, user=self._sandbox.popen_user(), close_fds=True,
                pass_fds=self._sandbox.pass_fds)
            self._sandbox.spawned()
        except BaseException:
            self._sandbox.cleanup()
            raise
        self._deadline = time.monotonic() + self.limits.wall_time
        os.set_blocking(self._process.stdout.fileno(), False)
        os.set_blocking(self._process.stderr.fileno(), False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._process.stdout, selectors.EVENT_READ, "stdout")
        self._selector.register(self._process.stderr, selectors.EVENT_READ, "stderr")
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def stderr_tail(self) -> str:
        return bytes(self._stderr[-STDERR_TAIL:]).decode("utf-8", "replace")

    def close(self) -> None:
        """Kill the whole process group (and every process of the session's uid)."""
        if self._process is not None:
            _kill_group(self._process.pid)
            for stream in (self._process.stdin, self._process.stdout, self._process.stderr):
                try:
                    stream.close()
                except OSError:
                    pass
            self._process.wait()
            self._process = None
        if self._selector is not None:
            self._selector.close()
            self._selector = None
        if self._sandbox is not None:
            self._sandbox.cleanup()
            self._sandbox = None

    def exchange(self, text: bytes, timeout: float) -> bytes:
        """Write `text`, return the next line the program prints (without its newline)."""
        if self._process is None:
            raise SessionError("eof", "the session is closed")
        try:
            self._process.stdin.write(text)
            self._process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._ended() from None
        return self.read_line(timeout)

    def read_line(self, timeout: float) -> bytes:
        assert self._process is not None and self._selector is not None
        deadline = min(time.monotonic() + timeout, self._deadline)
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[:newline + 1]
                return line[:-1] if line.endswith(b"\r") else line
            if len(self._buffer) > self.limits.output:
                raise SessionError("output", f"a line longer than {self.limits.output} bytes",
                                   self.stderr_tail)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SessionError("timeout", f"no answer within {timeout:g} s", self.stderr_tail)
            for key, _ in self._selector.select(timeout=remaining):
                try:
                    chunk = os.read(key.fd, 1 << 16)
                except BlockingIOError:
                    continue
                if key.data == "stderr":
                    if chunk:
                        self._stderr += chunk
                        del self._stderr[:-STDERR_TAIL]
                    else:
                        self._selector.unregister(key.fileobj)
                    continue
                if not chunk:
                    raise self._ended()
                self._buffer += chunk

    def _ended(self) -> SessionError:
        assert self._process is not None
        try:
            code = self._process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return SessionError("eof", "the program closed its output", self.stderr_tail)
        if code == 0:
            return SessionError("eof", "the program exited", self.stderr_tail)
        what = f"exit code {code}" if code > 0 else f"signal {-code}"
        return SessionError("crash", f"the program crashed ({what})", self.stderr_tail)
