"""The one place where a run becomes a verdict.

In this order (docs/runner.md):
1. the program cannot be built: compile error; its interpreter is missing or it
   cannot be started: judge error (:func:`start_failure`);
2. the judge rejected the output while it streamed: the judge's verdict;
3. a limit stopped it: output limit, time limit, memory limit, process limit;
4. it was killed by a signal: runtime error naming the signal;
5. otherwise the judge's final verdict; a non-zero exit code is a runtime error,
   unless the output was accepted and the exit is lenient (code golf: a program may
   exit with an error once its output is complete): then it is a warning.

Which limit was hit comes from the kernel's counters (``verify.runner.process.limit_hit``),
never from what the program printed.
"""
from __future__ import annotations

import traceback
from collections.abc import Callable

from verify.errors import VerifyError
from verify.runner import CompileError, Limits, MissingInterpreter, RunResult
from verify.runner.languages import error_line_of, languages
from verify.sizes import size
from verify.verdict import Status, Verdict


def judge_crash(error: BaseException) -> Verdict:
    """A contest's own code failed (judge, match, options): never the entry's fault."""
    if isinstance(error, VerifyError):
        return Verdict(Status.JUDGE_ERROR, str(error))
    return Verdict(Status.JUDGE_ERROR, f"the judge failed: {type(error).__name__}: {error}",
                   "".join(traceback.format_exception(error, limit=-3)))


def start_failure(error: Exception) -> Verdict:
    """Why a program did not start: it does not build (the entry's fault), or the judge
    cannot run it (a missing interpreter, a failure to start a process: not the entry's)."""
    if isinstance(error, CompileError):
        return Verdict(Status.COMPILE_ERROR, str(error), error.log)
    if isinstance(error, MissingInterpreter | VerifyError):
        return Verdict(Status.JUDGE_ERROR, str(error))
    if isinstance(error, OSError):
        return Verdict(Status.JUDGE_ERROR, f"cannot start the program: {error.strerror or error}")
    raise error


def quoted_error(language: str, head: str, tail: str) -> str:
    """``": <the line of stderr saying what went wrong>"``, where the language's ``error_line``
    (languages.toml) says it is, or "" when stderr is blank. ``head`` and ``tail``: the first
    and last bytes of stderr kept ("" for a head not kept)."""
    known = languages().get(language)
    found = known.find_error_line(head, tail) if known is not None else error_line_of("last", head, tail)
    return f": {found}" if found else ""


def limit_verdict(result: RunResult, limits: Limits, language: str = "") -> Verdict | None:
    """The verdict of a run stopped by a limit or a signal, or None when it ended by itself;
    ``language``: the program's (its error line is quoted; "": the last line of stderr)."""
    tail = result.stderr_tail.strip()
    quoted = quoted_error(language, result.stderr_head, result.stderr_tail)
    if result.limit == "output":
        return Verdict(Status.OUTPUT_LIMIT, f"printed more than {size(limits.output)}")
    if result.limit == "time":
        if result.wall_time >= limits.wall_time:
            return Verdict(Status.TIME_LIMIT, f"still running after {limits.wall_time:g} s (wall time)")
        return Verdict(Status.TIME_LIMIT, f"used more than {limits.cpu_time:g} s of CPU time")
    if result.limit == "memory":
        # The kernel's counter says the limit stopped it; the peak is only the largest sample
        # taken, which can be far below the limit when one allocation was refused or reclaimed.
        seen = f" (largest sample seen {size(result.peak_memory)})" if result.peak_memory else ""
        return Verdict(Status.MEMORY_LIMIT, f"the memory limit ({size(limits.memory)}) stopped it: "
                       f"the kernel refused or reclaimed memory beyond it{seen}", tail)
    if result.limit == "processes":
        return Verdict(Status.RUNTIME_ERROR, f"hit the process limit ({limits.processes} processes)" + quoted,
                       tail)
    if result.signal is not None:
        return Verdict(Status.RUNTIME_ERROR, f"killed by {result.signal_name}" + quoted, tail)
    return None


def run_verdict(result: RunResult, limits: Limits, early: Verdict | None, finish: Callable[[], Verdict],
                strict_exit: bool = False, *, language: str = "") -> Verdict:
    """Combine a finished run with its judge: ``early`` is the judge's verdict while the output
    streamed (None if it did not stop it), ``finish`` asks the judge for its final one;
    ``language``: the program's, whose error line a runtime error quotes ("": the last line)."""
    if early is not None:
        return early
    stopped = limit_verdict(result, limits, language)
    if stopped is not None:
        return stopped
    final = finish()
    if not result.exit_code:
        return final
    tail = result.stderr_tail.strip()
    if final.accepted and not strict_exit:
        final.warnings.append(f"exited with code {result.exit_code} after a complete output")
        return final
    judged = f"judge: {final.status}: {final.message}" if not final.accepted or not strict_exit else ""
    quoted = quoted_error(language, result.stderr_head, result.stderr_tail)
    return Verdict(Status.RUNTIME_ERROR, f"exit code {result.exit_code}" + quoted,
                   "\n".join(filter(None, [tail, judged])))
