"""The interactive grader: the contest's pure match asks, a program answers, one request at a time.

Two protocols give the match its ``ask`` function:

- per step (:class:`PerStepAsker`): a fresh process per request, given the request on
  standard input; its answer is the first line it prints, and it must exit with code 0;
- persistent (:class:`PersistentAsker`): one process reads request after request and
  answers one line each; if it crashes, times out or closes its output, that request
  fails and a fresh process is started for the next one.

Either way a failure is a :class:`~verify.contests.contract.Reply` with its reason
(the shared verdict wording, :meth:`~verify.verdict.Verdict.summary`): the match
decides what a failed request costs.

Either asker prepares its program at its first request (and at the next while that
fails: the runner keeps a build's error) and every request after that only runs what it
gave back: a step reads no file to know what it runs, checks no flag, hashes nothing.

Either asker also keeps what its processes cost, for the case's result: the largest peak
memory and the summed CPU time of its runs (a persistent session's own figures when the
runner reports them; 0 when it does not).
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from verify.contests.contract import Ask, InteractiveTask, Reply
from verify.errors import JudgeFailure, VerifyError
from verify.grading.runners import PreparedProgram, ProgramSession, Runner
from verify.grading.verdicts import judge_crash, quoted_error, run_verdict, start_failure
from verify.results import CaseResult
from verify.runner import Limits, Program, SessionError
from verify.verdict import Verdict


class PerStepAsker:
    """The contest protocol: a new process per request."""

    def __init__(self, runner: Runner, program: Program, limits: Limits):
        self.runner, self.program, self.limits = runner, program, limits
        self._prepared: PreparedProgram | None = None
        self.peak_memory, self.cpu_time = 0, 0.0

    def __call__(self, request: bytes) -> Reply:
        try:
            if self._prepared is None:
                self._prepared = self.runner.prepare(self.program)
            result = self.runner.run(self._prepared, stdin=request, args=(), limits=self.limits, repeated=True)
        except JudgeFailure:        # the judge's own sandbox failed: it stops the command, no verdict
            raise
        except (VerifyError, OSError) as error:
            return Reply(failure=start_failure(error).summary())
        self.peak_memory = max(self.peak_memory, result.peak_memory)
        self.cpu_time += result.cpu_time
        verdict = run_verdict(result, self.limits, None, Verdict.accept, strict_exit=True,
                              language=self.program.language)
        if not verdict.accepted:
            return Reply(failure=verdict.summary())
        output = result.stdout or b""
        if not output.strip():
            return Reply(failure="no answer (empty output)")
        return Reply(output.split(b"\n", 1)[0].decode("ascii", "replace"))

    def close(self) -> None:
        pass


class PersistentAsker:
    """One process per match, restarted after a crash, a timeout or the end of its output."""

    def __init__(self, runner: Runner, program: Program, limits: Limits, step_timeout: float):
        self.runner, self.program, self.limits, self.step_timeout = runner, program, limits, step_timeout
        self._prepared: PreparedProgram | None = None
        self._session: ProgramSession | None = None
        self.restarts = 0
        self.peak_memory, self.cpu_time = 0, 0.0

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._account(self._session)
            self._session = None

    def _account(self, session: ProgramSession) -> None:
        """A session's figures (read once it is closed; 0 where its runner does not measure them)."""
        self.peak_memory = max(self.peak_memory, session.peak_memory)
        self.cpu_time += session.cpu_time

    def __call__(self, request: bytes) -> Reply:
        if self._session is None:
            try:
                if self._prepared is None:
                    self._prepared = self.runner.prepare(self.program)
                self._session = self.runner.session(self._prepared, self.limits)
            except JudgeFailure:
                raise
            except (VerifyError, OSError) as error:
                return Reply(failure=start_failure(error).summary())
        try:
            line = self._session.exchange(request, self.step_timeout)
        except SessionError as error:
            self.close()
            self.restarts += 1
            quoted = quoted_error(self.program.language, "", error.stderr_tail)
            return Reply(failure=f"{error.reason}: {error}{quoted}")
        return Reply(line.decode("ascii", "replace"))


@contextmanager
def asker(runner: Runner, program: Program, persistent: bool, limits: Limits,
          step_timeout: float) -> Iterator[PerStepAsker | PersistentAsker]:
    """The ``ask`` function of one match; every process it started has ended when the context ends."""
    chosen: PerStepAsker | PersistentAsker = (
        PersistentAsker(runner, program, limits, step_timeout) if persistent else PerStepAsker(runner, program, limits))
    try:
        yield chosen
    finally:
        chosen.close()


def grade_interactive(runner: Runner, task: InteractiveTask, entry: str = "") -> CaseResult:
    """Play ``task``'s match against its program; the match's verdict, with the time it took, the
    largest peak memory and the CPU time of the program's runs, and the isolation."""
    started = time.perf_counter()
    chosen: PerStepAsker | PersistentAsker
    with asker(runner, task.program, task.persistent, task.limits, task.step_timeout) as chosen:
        ask: Ask = chosen
        try:
            verdict = task.play(ask)
        except JudgeFailure:            # the judge's own sandbox failed: it stops the command
            raise
        except Exception as error:      # the contest's match failed: never the entry's fault
            verdict = judge_crash(error)
    return CaseResult(entry, task.name, verdict, time=time.perf_counter() - started, memory=chosen.peak_memory,
                      cpu_time=chosen.cpu_time, isolation=runner.isolation)
