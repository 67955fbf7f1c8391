"""One entry on one case: run it, stream its stdout into the contest's judge, give a verdict.

How a run becomes a verdict (in this order; see docs/runner.md):
1. the program cannot be built: compile error; its interpreter is missing: judge error;
2. the judge rejected the output while it streamed: the judge's verdict (wrong, presentation);
3. a limit stopped it: output limit, time limit, memory limit;
4. it was killed by a signal: runtime error naming the signal;
5. otherwise the judge's final verdict; a non-zero exit code is a runtime error,
   unless the output was accepted (code-golf default: a program may exit with an
   error once its output is complete); then it is a warning.
"""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from verify.challenges.base import StreamJudge, TestCase
from verify.entries import Entry
from verify.errors import VerifyError
from verify.runner import CompileError, Limits, MissingInterpreter, RunResult, run_program
from verify.verdict import Status, Verdict


@dataclass
class CaseResult:
    entry: str                     # the entry's label (challenge/folder)
    case: str
    verdict: Verdict
    time: float = 0.0              # wall seconds
    memory: int = 0                # peak resident bytes
    cpu_time: float = 0.0
    isolation: str = ""
    stdout_bytes: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.verdict.accepted

    def to_dict(self) -> dict[str, Any]:
        return {"entry": self.entry, "case": self.case, "verdict": self.verdict.to_dict(),
                "time": round(self.time, 4), "cpu_time": round(self.cpu_time, 4), "memory": self.memory,
                "stdout_bytes": self.stdout_bytes, "isolation": self.isolation}


class _GuardedJudge:
    """Feeds the contest's judge; remembers its early verdict; turns its crashes into judge errors."""

    def __init__(self, judge: StreamJudge):
        self.judge = judge
        self.early: Verdict | None = None

    def feed(self, chunk: bytes) -> bool:
        if self.early is not None:
            return True
        try:
            self.early = self.judge.feed(chunk)
        except VerifyError as error:
            self.early = Verdict(Status.JUDGE_ERROR, str(error))
        except Exception as error:  # a bug in a judge must not pass for the entry's fault
            self.early = _judge_bug(error)
        return self.early is not None

    def finish(self) -> Verdict:
        try:
            return self.judge.finish()
        except VerifyError as error:
            return Verdict(Status.JUDGE_ERROR, str(error))
        except Exception as error:
            return _judge_bug(error)


def _judge_bug(error: Exception) -> Verdict:
    return Verdict(Status.JUDGE_ERROR, f"the judge failed: {type(error).__name__}: {error}",
                   traceback.format_exc(limit=-3))


def run_verdict(result: RunResult, judge: "_GuardedJudge | StreamJudge", limits: Limits) -> Verdict:
    """Combine a finished run and its judge (already fed) into the verdict."""
    guarded = judge if isinstance(judge, _GuardedJudge) else _GuardedJudge(judge)
    tail = result.stderr_tail.strip()
    if guarded.early is not None:
        return guarded.early
    if result.limit == "output":
        return Verdict(Status.OUTPUT_LIMIT, f"printed more than {_size(limits.output)}")
    if result.limit == "time":
        if result.wall_time >= limits.wall_time:
            return Verdict(Status.TIME_LIMIT, f"still running after {limits.wall_time:g} s (wall time)")
        return Verdict(Status.TIME_LIMIT, f"used more than {limits.cpu_time:g} s of CPU time")
    if result.limit == "memory":
        return Verdict(Status.MEMORY_LIMIT, f"needed more than {_size(limits.memory)} of memory"
                       f" (peak {_size(result.peak_memory)})", tail)
    if result.limit == "processes":
        return Verdict(Status.RUNTIME_ERROR, f"hit the process limit ({limits.processes} processes)"
                       + _last_line(tail), tail)
    if result.signal is not None:
        return Verdict(Status.RUNTIME_ERROR, f"killed by {result.signal_name}" + _last_line(tail), tail)
    final = guarded.finish()
    if result.exit_code:
        if final.accepted:
            final.warnings.append(f"exited with code {result.exit_code} after a complete output")
            return final
        return Verdict(Status.RUNTIME_ERROR, f"exit code {result.exit_code}" + _last_line(tail),
                       "\n".join(filter(None, [tail, f"judge: {final.status}: {final.message}"])))
    return final


def judge_run(entry: Entry, case: TestCase, limits: Limits = Limits()) -> CaseResult:
    """Run ``entry`` on ``case`` under ``limits`` and judge it."""
    started = time.monotonic()
    program = entry.program
    if program is None:
        return CaseResult(entry.label, case.name, Verdict(
            Status.JUDGE_ERROR, f"{entry.label} has no program to run on cases"))
    try:
        judge = _GuardedJudge(entry.challenge.judge(entry.options, case))
    except VerifyError as error:
        return CaseResult(entry.label, case.name, Verdict(Status.JUDGE_ERROR, str(error)))
    except Exception as error:  # a bug in the contest's code: never the entry's fault
        return CaseResult(entry.label, case.name, _judge_bug(error))
    input_for = getattr(entry.challenge, "input_for", None)  # the case in the entry's own dialect (arrows)
    if input_for is not None:
        case = input_for(entry.options, case)
    if entry.input == "args":
        stdin, args = b"", (case.args or (case.input.decode("utf-8", "replace"),))
        too_long = _argument_too_long(args)
        if too_long is not None:
            return CaseResult(entry.label, case.name, Verdict(Status.JUDGE_ERROR, too_long))
    else:
        stdin, args = case.input, ()
    try:
        result = run_program(program, stdin=stdin, args=args, limits=limits, on_stdout=judge.feed)
    except CompileError as error:
        return CaseResult(entry.label, case.name, Verdict(Status.COMPILE_ERROR, str(error), error.log),
                          time=time.monotonic() - started)
    except MissingInterpreter as error:
        return CaseResult(entry.label, case.name, Verdict(Status.JUDGE_ERROR, str(error)))
    except VerifyError as error:
        return CaseResult(entry.label, case.name, Verdict(Status.JUDGE_ERROR, str(error)))
    except OSError as error:        # the program could not be started at all: not the entry's fault
        return CaseResult(entry.label, case.name, Verdict(
            Status.JUDGE_ERROR, f"cannot start the program: {error.strerror or error}"))
    verdict = run_verdict(result, judge, limits)
    return CaseResult(entry.label, case.name, verdict, time=result.wall_time, memory=result.peak_memory,
                      cpu_time=result.cpu_time, isolation=result.isolation, stdout_bytes=result.stdout_bytes)


MAX_ARGUMENT_BYTES = 128 << 10
"""The longest single command-line argument Linux passes (MAX_ARG_STRLEN)."""


def _argument_too_long(args: tuple[str, ...]) -> str | None:
    """Why the case cannot be given as arguments (``input = "args"``), or None."""
    longest = max((len(arg.encode("utf-8", "surrogateescape")) for arg in args), default=0)
    if longest < MAX_ARGUMENT_BYTES:
        return None
    return (f"the case is {_size(longest)}, more than one command-line argument can hold "
            f"({_size(MAX_ARGUMENT_BYTES)}): an entry reading it needs input = \"stdin\"")


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return f": {lines[-1].strip()[:200]}" if lines else ""


def _size(count: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift:
            value = count / (1 << shift)
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{count} bytes"
