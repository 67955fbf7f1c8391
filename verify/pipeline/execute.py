"""A check's plan, executed: every (entry, task) job over the grader's executor, watched by
observers (:mod:`verify.pipeline.observe`), into each entry's result.

Every program is built once, before its tasks start; a program that does not build gives
each of its tasks that verdict. The jobs go to the executor (threads of this process by
default: each only waits on its subprocess, so the programs use the cores; or the workers of
a cluster); a job is a module-level function over plain data (:class:`CaseJob`) returning
a :class:`~verify.results.CaseResult`. In this process a job holds its task; a worker
elsewhere loads the entry from the same path (a shared filesystem) and refuses to run when
the files or the task it finds differ from the ones the plan was made of.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from verify.contests.contract import BatchTask, InteractiveTask, Task
from verify.entries import load_entry
from verify.errors import JudgeFailure, VerifyError
from verify.grading import Grader, Runner, build_failure, grade_batch, grade_interactive
from verify.grading.verdicts import judge_crash
from verify.pipeline.guard import WorkerMismatch, check_same_files, loaded_digest
from verify.pipeline.observe import Observer, Observers
from verify.pipeline.outcome import CheckedEntry
from verify.pipeline.plan import (
    Blocked,
    CheckPlan,
    Job,
    default_testcases_root,
    plan_tasks,
    runnable,
    task_digest,
)
from verify.results import CaseResult
from verify.runner import Limits, Program
from verify.verdict import Verdict


@dataclass(frozen=True)
class CaseJob:
    """One (entry, task) job as plain data. ``task`` and ``observers`` travel only within this
    process: a worker elsewhere re-creates the task from the folder, and nothing observes it there."""

    label: str
    folder: Path
    digest: str                         # folder_digest as loaded here
    testcases: Path | None              # the test-case folder found here (absolute)
    patterns: tuple[str, ...]
    index: int                          # the task's place among its entry's
    task_digest: str
    limits: Limits
    broken: Verdict | None              # the verdict of its program's build, when it failed
    task: Job | None = field(default=None, compare=False)
    position: int = 0                   # its entry's place in the plan
    observers: Observers | None = field(default=None, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "task": None, "observers": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


def case_jobs(plan: CheckPlan) -> list[CaseJob]:
    """The jobs of the entries that loaded, in the plan's and the tasks' order."""
    jobs = []
    for position, check in runnable(plan):
        entry = check.entry
        assert entry is not None
        digest = loaded_digest(entry.folder)
        root = default_testcases_root(entry, plan.testcases) if entry.program is not None else None
        for index, task in enumerate(check.tasks):
            jobs.append(CaseJob(check.label, entry.folder, digest, root.absolute() if root else None,
                                plan.patterns, index, task_digest(task), plan.limits, None, task, position))
    return jobs


class CaseGrader(Protocol):
    """What a check's jobs use of the grader they are given (this process's, or a worker's)."""

    @property
    def runner(self) -> Runner: ...


@lru_cache(maxsize=8)       # jobs come entry after entry; a few entries' cases at most stay in memory
def _tasks_at(folder: Path, digest: str, testcases: Path | None, patterns: tuple[str, ...]) -> list[Job]:
    """The tasks of the entry at ``folder`` as a worker finds it (once per worker and entry)."""
    try:
        entry = load_entry(folder)
    except VerifyError as error:
        raise WorkerMismatch(f"{folder}: {error} (is it on a filesystem the workers share?)") from None
    check_same_files(entry.folder, digest, "the check")
    return plan_tasks(entry, testcases, patterns)[0]


def job_task(job: CaseJob) -> Job:
    """The job's task: its own, or re-created from the entry's folder and checked against its digest."""
    if job.task is not None:
        return job.task
    tasks = _tasks_at(job.folder, job.digest, job.testcases, job.patterns)
    if job.index >= len(tasks) or task_digest(tasks[job.index]) != job.task_digest:
        raise WorkerMismatch(f"{job.label}: the cases a worker finds differ from the ones the check loaded "
                             f"(the test-case folder {job.testcases} must be shared and unchanged)")
    return tasks[job.index]


def _run_task(runner: Runner, label: str, task: Job, limits: Limits, broken: Verdict | None) -> CaseResult:
    if isinstance(task, Blocked):
        return CaseResult(label, task.name, task.verdict)
    if broken is not None:
        return CaseResult(label, task.name, broken)
    if isinstance(task, BatchTask):
        return grade_batch(runner, task, limits, label)
    assert isinstance(task, InteractiveTask)
    return grade_interactive(runner, task, label)


def run_case(grader: CaseGrader, job: CaseJob) -> CaseResult | None:
    """A job: the case's result; None when an observer did not admit it (it is not run)."""
    observers = job.observers
    if observers is not None and not observers.admit(job.position):
        return None
    task = job_task(job)
    try:
        result = _run_task(grader.runner, job.label, task, job.limits, job.broken)
    except JudgeFailure:         # the judge's own sandbox failed: the whole command stops (exit 2)
        raise
    except Exception as error:   # a bug of the core in one job: that job's verdict, not a lost check
        result = CaseResult(job.label, task.name, judge_crash(error))
    if observers is not None:
        observers.judged(job.position, result)
    return result


def build_program(grader: CaseGrader, program: Program) -> Verdict | None:
    """A job: None when ``program`` builds (cached), else the verdict each of its runs gets."""
    return build_failure(grader.runner, program)


def execute(plan: CheckPlan, grader: Grader, parallel: int, observers: Sequence[Observer] = ()) -> list[CheckedEntry]:
    """Run every job of ``plan``, ``parallel`` at once here (a cluster uses its workers');
    each entry's result in the plan's order, its cases in its tasks' order."""
    watching = Observers(observers)
    live = runnable(plan)
    programs = sorted({p for _, c in live if c.entry is not None for p in c.entry.programs()}, key=str)
    builds = grader.map(build_program, programs, parallel)
    broken = {program: failure for program, failure in zip(programs, builds, strict=True) if failure is not None}

    def ready(job: CaseJob) -> CaseJob:
        task = job.task
        assert task is not None
        shown = watching.task(job.position, plan.entries[job.position], task)
        failure = broken.get(task.program) if isinstance(task, Task) else None
        return replace(job, broken=failure, task=shown, observers=watching)

    todo = [ready(job) for job in case_jobs(plan)]
    done = 0

    def finished(index: int, result: CaseResult | None) -> None:
        nonlocal done
        done += 1
        watching.finished(todo[index].position, result, done, len(todo))

    results = grader.map(run_case, todo, parallel, finished)
    checked = [CheckedEntry(c.label, error=c.error, planned=c) for c in plan.entries]
    for job, result in zip(todo, results, strict=True):
        entry = checked[job.position]
        if result is None:
            entry.skipped.append(plan.entries[job.position].tasks[job.index].name)
        else:
            entry.results.append(result)
    return checked
