"""The batch grader: a program gets its input, its output streams into the contest's judge."""
from __future__ import annotations

from collections.abc import Callable

from verify.contests.contract import BatchTask, Options, Payload, StreamJudge, TestCase
from verify.entries import Entry
from verify.errors import JudgeFailure, VerifyError
from verify.grading.concurrent import ConcurrentJudge
from verify.grading.runners import Runner
from verify.grading.verdicts import judge_crash, run_verdict, start_failure
from verify.results import CaseResult
from verify.runner import Limits
from verify.sizes import size
from verify.verdict import Status, Verdict

MAX_ARGUMENT_BYTES = 128 << 10
"""The longest single command-line argument Linux passes (MAX_ARG_STRLEN)."""


class GuardedJudge:
    """Feeds the contest's judge; remembers its early verdict; turns its crashes into judge errors."""

    def __init__(self, judge: StreamJudge):
        self.judge = judge
        self.early: Verdict | None = None

    def feed(self, chunk: bytes) -> bool:
        """Whether the run should stop (the judge has its verdict)."""
        if self.early is not None:
            return True
        try:
            self.early = self.judge.feed(chunk)
        except Exception as error:  # a bug in a judge must not pass for the entry's fault
            self.early = judge_crash(error)
        return self.early is not None

    __call__ = feed     # the runner's stdout consumer

    def pipe_reader(self) -> Callable[[int, int], tuple[int, bool, bool]] | None:
        """The judge's own reader of the stdout pipe (fd, budget) -> (bytes read, pipe closed,
        stop the run), guarded as ``feed`` is; None when it is fed chunks."""
        make = getattr(self.judge, "pipe_reader", None)
        reader = make() if make is not None else None
        if reader is None:
            return None

        def read(fd: int, budget: int) -> tuple[int, bool, bool]:
            if self.early is not None:
                return 0, False, True
            try:
                read, ended, self.early = reader(fd, budget)
            except Exception as error:  # as in feed
                self.early = judge_crash(error)
                return 0, False, True
            return read, ended, self.early is not None
        return read

    def finish(self) -> Verdict:
        try:
            return self.judge.finish()
        except Exception as error:
            return judge_crash(error)


def grade_batch(runner: Runner, task: BatchTask, limits: Limits, entry: str = "") -> CaseResult:
    """Run ``task`` under ``limits`` (the task's own limits when it has them) and judge it."""
    limits = task.limits or limits
    try:
        judge = GuardedJudge(task.judge())
    except Exception as error:      # the contest's code failed on this case: never the entry's fault
        return CaseResult(entry, task.name, judge_crash(error))
    try:
        prepared = runner.prepare(task.program)     # the runner's own when it prepared this program before
        result = runner.run(prepared, stdin=task.stdin, args=task.args, limits=limits, on_stdout=judge)
    except JudgeFailure:            # the judge's own sandbox failed: it stops the command, no verdict
        raise
    except (VerifyError, OSError) as error:
        return CaseResult(entry, task.name, start_failure(error))
    verdict = run_verdict(result, limits, judge.early, judge.finish, task.strict_exit, language=task.program.language)
    return CaseResult(entry, task.name, verdict, time=result.wall_time, memory=result.peak_memory,
                      cpu_time=result.cpu_time, isolation=result.isolation, stdout_bytes=result.stdout_bytes)


def case_task(entry: Entry[Options, Payload], case: TestCase[Payload]) -> BatchTask | Verdict:
    """The run of a code-golf entry on one case: the case in the entry's own dialect, given on
    standard input or as arguments as the entry asks; or the verdict that stops it from running."""
    program = entry.program
    if program is None:
        return Verdict(Status.JUDGE_ERROR, f"{entry.label} has no program to run on cases")
    contest, options, judged = entry.contest, entry.options, case
    try:
        case = contest.input_for(options, case)
    except Exception as error:
        return judge_crash(error)
    if entry.input == "args":
        stdin, args = b"", (case.args or (case.input.decode("utf-8", "replace"),))
        too_long = argument_too_long(args)
        if too_long is not None:
            return Verdict(Status.JUDGE_ERROR, too_long)
    else:
        stdin, args = case.input, ()
    def judge() -> StreamJudge:
        made = contest.judge(options, judged)
        return ConcurrentJudge(made) if contest.judge_beside_run else made

    return BatchTask(case.name, program, stdin, judge, args, strict_exit=False)


def grade_case(runner: Runner, entry: Entry[Options, Payload], case: TestCase[Payload],
               limits: Limits = Limits()) -> CaseResult:
    """Run ``entry`` on ``case`` under ``limits`` and judge it."""
    task = case_task(entry, case)
    if isinstance(task, Verdict):
        return CaseResult(entry.label, case.name, task)
    return grade_batch(runner, task, limits, entry.label)


def argument_too_long(args: tuple[str, ...]) -> str | None:
    """Why the case cannot be given as arguments (``input = "args"``), or None."""
    longest = max((len(arg.encode("utf-8", "surrogateescape")) for arg in args), default=0)
    if longest < MAX_ARGUMENT_BYTES:
        return None
    return (f"the case is {size(longest)}, more than one command-line argument can hold "
            f"({size(MAX_ARGUMENT_BYTES)}): an entry reading it needs input = \"stdin\"")
