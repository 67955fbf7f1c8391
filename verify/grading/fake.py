"""A runner that starts no process: each program answers from a script (for tests).

    runner = FakeRunner({"sum.py": lambda stdin, args: FakeRun(b"3\\n")})
    grade_case(runner, entry, case, limits)      # the entry's source is sum.py

A script gets the run's standard input and arguments and returns a :class:`FakeRun`:
what the program printed, how it ended, what it cost. Programs are named by their
source file's name. A program named in ``broken`` fails to build with that error.
Persistent sessions ask the script once per request.
"""
from __future__ import annotations

import signal as signals
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from verify.errors import VerifyError
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


class FakeRunner:
    isolation = "fake"

    def __init__(self, scripts: Mapping[str, Script], broken: Mapping[str, VerifyError] | None = None):
        self.scripts = dict(scripts)
        self.broken = dict(broken or {})
        self.runs: list[tuple[str, bytes, tuple[str, ...]]] = []   # (program, stdin, args), in order

    def _script(self, program: Program) -> Script:
        name = program.source.name
        if name in self.broken:
            raise self.broken[name]
        try:
            return self.scripts[name]
        except KeyError:
            raise VerifyError(f"the fake runner has no script for {name!r}") from None

    def prepare(self, program: Program) -> None:
        self._script(program)

    def run(self, program: Program, *, stdin: bytes, args: Sequence[str], limits: Limits,
            on_stdout: Callable[[bytes], bool] | None = None, repeated: bool = False) -> RunResult:
        script = self._script(program)
        self.runs.append((program.source.name, stdin, tuple(args)))
        fake = script(stdin, tuple(args))
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

    def session(self, program: Program, limits: Limits) -> FakeSession:
        script = self._script(program)
        return FakeSession(self, program.source.name, script)


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
