"""A runner that starts no process: each program answers from a script (for tests).

    runner = FakeRunner({"sum.py": lambda stdin, args: FakeRun(b"3\\n")})
    grade_case(runner, entry, case, limits)      # the entry's source is sum.py

A script gets the run's standard input and arguments and returns a :class:`FakeRun`:
what the program printed, how it ended, what it cost. Programs are named by their
source file's name. A program named in ``broken`` fails to build with that error.
Persistent sessions ask the script once per request. ``prepared`` lists the programs
prepared, one name per ``prepare`` call (a caller that prepares once and runs many times
shows it there); ``runs`` every run.
"""
from __future__ import annotations

import signal as signals
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from verify.errors import VerifyError
from verify.grading.runners import PreparedProgram
from verify.runner import Limits, Program, RunResult, SessionError

CHUNK = 1 << 16


@dataclass(frozen=True)
class FakeRun:
    """How a scripted run ends. ``limit``: "time", "memory", "output" or "processes"."""

    stdout: bytes = b""
    exit_code: int = 0
    signal: int | None = None
    limit: str | None = None
    stderr: str = ""
    wall_time: float = 0.01
    cpu_time: float = 0.0
    peak_memory: int = 1 << 20


Script = Callable[[bytes, tuple[str, ...]], FakeRun]


@dataclass(frozen=True)
class FakePrepared:
    """A program the fake runner prepared: its script found."""

    program: Program
    script: Script


class FakeRunner:
    isolation = "fake"

    def __init__(self, scripts: Mapping[str, Script], broken: Mapping[str, VerifyError] | None = None):
        self.scripts = dict(scripts)
        self.broken = dict(broken or {})
        self.prepared: list[str] = []                               # one program name per prepare()
        self.runs: list[tuple[str, bytes, tuple[str, ...]]] = []   # (program, stdin, args), in order

    def prepare(self, program: Program) -> FakePrepared:
        name = program.source.name
        self.prepared.append(name)
        if name in self.broken:
            raise self.broken[name]
        try:
            return FakePrepared(program, self.scripts[name])
        except KeyError:
            raise VerifyError(f"the fake runner has no script for {name!r}") from None

    def run(self, prepared: PreparedProgram, *, stdin: bytes, args: Sequence[str], limits: Limits,
            on_stdout: Callable[[bytes], bool] | None = None, repeated: bool = False) -> RunResult:
        made = _made_here(prepared)
        self.runs.append((made.program.source.name, stdin, tuple(args)))
        fake = made.script(stdin, tuple(args))
        stdout, limit, stopped = fake.stdout, fake.limit, False
        if len(stdout) > limits.output:
            stdout, limit = stdout[:limits.output], "output"
        if on_stdout is not None:
            for start in range(0, len(stdout), CHUNK):
                if on_stdout(stdout[start:start + CHUNK]):
                    stopped = True
                    break
        ended_by_signal = fake.signal is not None or limit is not None or stopped
        return RunResult(
            exit_code=None if ended_by_signal else fake.exit_code,
            signal=fake.signal if fake.signal is not None else (signals.SIGKILL if ended_by_signal else None),
            limit=limit, stopped_early=stopped, wall_time=fake.wall_time, cpu_time=fake.cpu_time,
            peak_memory=fake.peak_memory, stdout_bytes=len(stdout),
            stdout=None if on_stdout is not None else stdout, stderr_tail=fake.stderr,
            isolation=self.isolation, accounting="fake")

    def session(self, prepared: PreparedProgram, limits: Limits) -> FakeSession:
        made = _made_here(prepared)
        return FakeSession(self, made.program.source.name, made.script)


def _made_here(prepared: PreparedProgram) -> FakePrepared:
    if not isinstance(prepared, FakePrepared):
        raise TypeError(f"a FakeRunner runs what it prepared, not a {type(prepared).__name__}")
    return prepared


class FakeSession:
    peak_memory = 0       # a fake process uses nothing (a subclass may say otherwise)
    cpu_time = 0.0
    def __init__(self, runner: FakeRunner, name: str, script: Script):
        self.runner, self.name, self.script = runner, name, script
        self.closed = False

    def exchange(self, text: bytes, timeout: float) -> bytes:
        if self.closed:
            raise SessionError("eof", "the session is closed")
        self.runner.runs.append((self.name, text, ()))
        fake = self.script(text, ())
        if fake.limit == "time":
            raise SessionError("timeout", f"no answer within {timeout:g} s", fake.stderr)
        if fake.signal is not None or fake.exit_code:
            what = f"exit code {fake.exit_code}" if fake.signal is None else f"signal {fake.signal}"
            raise SessionError("crash", f"the program crashed ({what})", fake.stderr)
        line, newline, _ = fake.stdout.partition(b"\n")
        if not newline:
            raise SessionError("eof", "the program closed its output", fake.stderr)
        return line[:-1] if line.endswith(b"\r") else line

    def close(self) -> None:
        self.closed = True
