"""A step handed to a fork server's step maker, in place of a process verify starts.

A fork server's steps are made by a process in its sandbox (forkserver.c, `serve`, or a
Python zygote): verify sends it one request per step on a SOCK_SEQPACKET socket, the
step's arguments, its environment and every descriptor it needs (SCM_RIGHTS), and the
maker forks the step. The step answers on its own reply socket with a pidfd of itself,
and with its end (verify-init's wait status) before it exits. `HandedStep` is that step
as verify drives it: the pipes, the pid, `poll`, `wait`, `reap`, as a `Popen` would give
them, without a process started by verify (a `fork` and `exec` of verify's own, most of
a short step's cost, are saved).

Verify's end of the step is the write end of a pipe whose read end the step holds: its
hang-up (closed here once the step is over, or verify's death) ends a step still running
as a parent's death ends a run of its own.
"""
from __future__ import annotations

import array
import os
import resource
import select
import socket
import subprocess
from collections.abc import Mapping, Sequence
from typing import IO

ANSWER_TIMEOUT = 10.0     # seconds for the maker to fork the step and answer
NO_WORD = 125 << 8        # the wait status of a step that ended without saying how (as exit 125)


def no_rusage() -> resource.struct_rusage:
    """The resource usage of a run whose end verify-init reported (it counted the program).
    A new one each time: CPython 3.11 fails to free a struct sequence still held by a
    module when the interpreter exits."""
    return resource.struct_rusage((0.0, 0.0) + (0,) * 14)


class StepRefused(Exception):
    """The step maker did not take the request (it has died, or did not answer)."""


class HandedStep:
    """A step made by a step maker from a request sent on `channel`: `command` (the words after
    `step PIDFD` of forkserver.c), `environment` (the program's whole environment) and
    `descriptors` (number in the step -> descriptor here, sent; the caller closes its own).
    Its stdin, stdout and stderr are pipes, as `subprocess.PIPE` would make them."""

    def __init__(self, channel: socket.socket, command: Sequence[str], environment: Mapping[str, str],
                 descriptors: Mapping[int, int]) -> None:
        self.returncode: int | None = None
        self._status: int | None = None
        self._pid = 0
        self._pidfd: int | None = None             # once answered
        self._reply: socket.socket | None = None
        self._end: int | None = None
        ours: list[int] = []             # this side's ends, kept
        theirs: list[int] = []           # the step's ends, closed here once sent
        try:
            stdin_read, stdin_write = os.pipe()
            theirs.append(stdin_read)
            ours.append(stdin_write)
            stdout_read, stdout_write = os.pipe()
            theirs.append(stdout_write)
            ours.append(stdout_read)
            stderr_read, stderr_write = os.pipe()
            theirs.append(stderr_write)
            ours.append(stderr_read)
            end_read, self._end = os.pipe()
            theirs.append(end_read)
            self._reply, reply_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            theirs.append(reply_theirs.detach())
            targets = {0: stdin_read, 1: stdout_write, 2: stderr_write, **descriptors}
            words = [str(len(targets)), *map(str, targets), str(len(environment)),
                     *(f"{name}={value}" for name, value in environment.items()), *command]
            if any("\0" in word for word in words):
                raise ValueError("a step's argument holds a NUL byte")
            payload = b"".join(os.fsencode(word) + b"\0" for word in words)
            fds = array.array("i", [end_read, theirs[-1], *targets.values()])
            try:
                channel.sendmsg([payload], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
            except OSError as error:
                raise StepRefused(f"the fork server's step maker is gone ({error.strerror or error})") from None
            for fd in theirs:
                os.close(fd)
            theirs = []
        except BaseException:
            for fd in (*ours, *theirs):
                os.close(fd)
            self._release()
            raise
        self.stdin: IO[bytes] | None = os.fdopen(stdin_write, "wb", buffering=0)
        self.stdout: IO[bytes] | None = os.fdopen(stdout_read, "rb", buffering=0)
        self.stderr: IO[bytes] | None = os.fdopen(stderr_read, "rb", buffering=0)

    @property
    def pid(self) -> int:
        """The step's pid, in verify's PID namespace (its first use waits for the answer)."""
        if not self._pid:
            self._answered()
        return self._pid

    def _answered(self) -> int:
        """The step's pidfd: read from its first answer at the first need of it, so that verify
        goes on while the maker forks (StepRefused: it did not answer)."""
        if self._pidfd is None:
            if self._reply is None:
                raise StepRefused("the step has ended")
            try:
                self._pid, self._pidfd = self._answer()
            except (StepRefused, OSError):
                self._status = NO_WORD                # (it never ran anything: ended, as exit 125)
                self.returncode = os.waitstatus_to_exitcode(NO_WORD)
                self._release()
                raise StepRefused("the fork server's step maker did not make the step") from None
        return self._pidfd

    def _answer(self) -> tuple[int, int]:
        """The pid and the pidfd the step sends first."""
        assert self._reply is not None
        ready, _, _ = select.select([self._reply], [], [], ANSWER_TIMEOUT)
        if not ready:
            raise StepRefused("the fork server's step maker did not answer")
        said, ancillary, _, _ = self._reply.recvmsg(24, socket.CMSG_SPACE(4 * 4))
        fds = array.array("i")
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
        for extra in fds[1:]:
            os.close(extra)
        if not fds:
            raise StepRefused("the fork server's step maker ended the step before it began")
        try:
            pid = int(said)
        except ValueError:
            pid = 0
        if pid <= 1:
            os.close(fds[0])
            raise StepRefused("the fork server's step maker gave no pid")
        return pid, fds[0]

    def pidfd_copy(self) -> int:
        """A pidfd of the step's process (the caller's to close)."""
        return os.dup(self._answered())

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self._answered()], [], [], 0)[0]:
            self._take_status()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not select.select([self._answered()], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(f"step {self.pid}", timeout or 0.0)
            self._take_status()
        assert self.returncode is not None
        return self.returncode

    def reap(self) -> tuple[int, resource.struct_rusage]:
        """Wait for its end: its wait status (verify-init's), and no resource usage of its own
        (what it ran is in verify-init's report)."""
        self.wait()
        assert self._status is not None
        return self._status, no_rusage()

    def _take_status(self) -> None:
        """Its process has exited: the status it sent before (none: exit 125)."""
        assert self._reply is not None
        said = b""
        try:
            said = self._reply.recv(64, socket.MSG_DONTWAIT)
        except OSError:             # (nothing sent: BlockingIOError)
            pass
        try:
            self._status = int(said.strip())
        except ValueError:
            self._status = NO_WORD
        self.returncode = os.waitstatus_to_exitcode(self._status)
        self._release()

    def _release(self) -> None:
        for fd in (self._pidfd, self._end):
            if fd is not None:
                os.close(fd)
        self._pidfd = self._end = None
        if self._reply is not None:
            self._reply.close()
            self._reply = None

