"""What the core offers a contest's tournament (:class:`~verify.contests.contract.Grader`): runs over a runner."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from verify.contests.contract import Ask, BatchTask
from verify.errors import JudgeFailure, VerifyError
from verify.grading.batch import grade_batch
from verify.grading.executor import Executor, LocalExecutor
from verify.grading.interactive import asker
from verify.grading.runners import Runner
from verify.grading.verdicts import start_failure
from verify.runner import Limits, Program
from verify.verdict import Verdict

T = TypeVar("T")
R = TypeVar("R")


def build_failure(runner: Runner, program: Program) -> Verdict | None:
    """None when ``program`` is ready to run (built, cached, and kept by the runner for its runs);
    else the verdict each of its runs gets."""
    try:
        runner.prepare(program)
    except JudgeFailure:            # the judge's own sandbox failed: it stops the command, no verdict
        raise
    except (VerifyError, OSError) as error:
        return start_failure(error)
    return None


class Grader:
    """Batch runs and interactive matches over one runner, for a contest's own orchestration;
    jobs of many runs go to ``executor`` (threads of this process unless given one)."""

    def __init__(self, runner: Runner, executor: Executor | None = None):
        self.runner = runner
        self.executor: Executor = executor or LocalExecutor()

    def broken(self, program: Program) -> str | None:
        failure = build_failure(self.runner, program)
        return None if failure is None else f"could not run: {failure.summary()}"

    def run_batch(self, task: BatchTask) -> tuple[Verdict, float]:
        assert task.limits is not None, "a tournament's batch task carries its limits"
        result = grade_batch(self.runner, task, task.limits)
        return result.verdict, result.time

    @contextmanager
    def interactive(self, program: Program, persistent: bool, limits: Limits,
                    step_timeout: float) -> Iterator[Ask]:
        with asker(self.runner, program, persistent, limits, step_timeout) as ask:
            yield ask

    def map(self, job: Callable[[Grader, T], R], items: Sequence[T], parallel: int,
            on_done: Callable[[int, R], None] | None = None) -> list[R]:
        return self.executor.map(job, items, grader=self, parallel=parallel, on_done=on_done)
