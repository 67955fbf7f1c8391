"""The jobs of `verify check`: every entry on every case of its contest (or every task of its roles), in parallel.

The work is a flat list of (entry, task) jobs handed to the grader's executor
(:mod:`verify.grading.executor`): threads of this process by default (each only waits
on its subprocess, so the programs use the cores), or the workers of a cluster. Every
program is built once, before its tasks start; a program that does not build gives
each of its tasks that verdict.

A job is plain data (:class:`CaseJob`): where the entry is, the digest of its files,
which task and the digest of that task's input. In this process it also holds the task
itself; a worker elsewhere loads the entry from the same path (a shared filesystem) and
refuses to run when the files or the task it finds differ from the ones loaded here.
What comes back is the JSON form of the case's result.
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from verify.challenges.contract import BatchTask, InteractiveTask, Task, TestCase
from verify.entries import Entry, entry_label, load_entry
from verify.errors import EntryError, InputError, JudgeFailure, VerifyError
from verify.grading import Grader, Runner, build_failure, grade_batch, grade_interactive
from verify.grading.batch import case_task
from verify.grading.executor import Executor
from verify.grading.verdicts import judge_crash
from verify.pipeline.guard import WorkerMismatch, check_same_files, loaded_digest
from verify.results import CaseResult, CheckResult
from verify.runner import Limits, Program
from verify.verdict import Verdict

Progress = Callable[[CaseResult, int, int], None]


@dataclass(frozen=True)
class Blocked:
    """A case that cannot run for this entry (too long to pass as an argument...): its verdict."""

    name: str
    verdict: Verdict


Job = Task | Blocked


@dataclass
class EntryCheck(CheckResult):
    """A check being run: the entry (None when it did not load) and what it runs."""

    entry: Entry | None = None
    tasks: list[Job] = field(default_factory=list)
    cases: list[TestCase] = field(default_factory=list)   # the cases its program runs on (code golf)


def default_testcases_root(entry: Entry, explicit: Path | None) -> Path | None:
    """--testcases DIR, else testcases/<challenge> in the current folder, else next to submissions/."""
    name = entry.challenge.name
    candidates = [explicit] if explicit else [
        Path.cwd() / "testcases" / name, entry.folder.parent.parent.parent / "testcases" / name]
    return next((c for c in candidates if c is not None and c.is_dir()), None)


class CaseFileError(InputError):
    """A malformed test-case file: the command's input, not the entry's fault (exit 2)."""


def cases_for(entry: Entry, testcases: Path | None) -> list[TestCase]:
    root = default_testcases_root(entry, testcases)
    if testcases is not None and root is None:
        raise VerifyError(f"no test case folder {str(testcases)!r}")
    try:
        cases = entry.challenge.testcases(root) if root is not None else []
    except InputError as error:         # names the file; the entry's own demo map stays the entry's fault
        raise CaseFileError(str(error)) from None
    return [*cases, *entry.challenge.entry_cases(entry.options, entry.folder)]


def _fuzz_cases(entry: Entry, count: int) -> list[TestCase]:
    if count <= 0:
        return []
    from verify.fuzz.cases import fuzz_cases  # the fuzzer's modules only for `check --fuzz N`
    return fuzz_cases(entry, count)


def _fuzz_tasks(entry: Entry, count: int) -> list[Task]:
    if count <= 0:
        return []
    from verify.fuzz.cases import fuzz_tasks  # the fuzzer's modules only for `check --fuzz N`
    return fuzz_tasks(entry, count)


def _entry_tasks(entry: Entry, testcases: Path | None, patterns: Sequence[str],
                 fuzz: int = 0) -> tuple[list[Job], list[TestCase]]:
    """What ``verify check`` runs for ``entry``: its program on each case, or its contest's tasks;
    and ``fuzz`` generated ones (:mod:`verify.fuzz.cases`). With the cases they run on."""
    named: list[Job]
    cases: list[TestCase] = []
    if entry.program is None:
        named = [*entry.challenge.entry_tasks(entry.options), *_fuzz_tasks(entry, fuzz)]
        if not named:
            raise VerifyError(f"{entry.challenge.name} entries are not checked on cases "
                              f"(see `verify koth {entry.challenge.name}`)")
    else:
        named = []
        cases = [*cases_for(entry, testcases), *_fuzz_cases(entry, fuzz)]
        for case in cases:
            task = case_task(entry, case)
            named.append(Blocked(case.name, task) if isinstance(task, Verdict) else task)
    if patterns:
        named = [t for t in named if any(fnmatch.fnmatchcase(t.name, p) for p in patterns)]
        if not named:
            if entry.program is not None and default_testcases_root(entry, testcases) is None:
                raise VerifyError(f"no test case folder found for {entry.challenge.name} (give --testcases DIR)")
            raise VerifyError(f"no case matches {', '.join(patterns)}")
    if not named:
        raise VerifyError("no test cases found (give --testcases DIR)")
    return named, cases


def load_checks(paths: Iterable[Path], testcases: Path | None,
                case_patterns: Sequence[str] = (), fuzz: int = 0) -> list[EntryCheck]:
    """Load each entry and what it runs; a broken one becomes a failed check with its one-line error
    (a contest that does not load is a VerifyError for the whole command).
    `case_patterns` (shell patterns such as ``one-row-*``) keep only the cases they name."""
    checks = []
    for path in paths:
        label = entry_label(Path(path))
        try:
            entry = load_entry(path)
        except EntryError as error:    # this entry's fault; a contest that does not load is everyone's
            checks.append(EntryCheck(label, error=str(error)))
            continue
        check = EntryCheck(entry.label, entry=entry)
        try:
            check.tasks, check.cases = _entry_tasks(entry, testcases, case_patterns, fuzz)
        except CaseFileError:           # a bad test-case file stops the command: one line, exit 2
            raise
        except VerifyError as error:
            check.error = str(error)
        checks.append(check)
    return checks


def task_digest(task: Job) -> str:
    """What a task runs: its name, and its input and arguments (a batch run) or mode (a match)."""
    if isinstance(task, Blocked):
        parts = [task.name, json.dumps(task.verdict.to_dict())]
    elif isinstance(task, BatchTask):
        parts = [task.name, hashlib.sha256(task.stdin).hexdigest(), json.dumps(task.args), repr(task.limits)]
    else:
        parts = [task.name, str(task.persistent), repr(task.limits), repr(task.step_timeout)]
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


@dataclass(frozen=True)
class CaseJob:
    """One (entry, task) job as plain data; ``task`` travels only within this process."""

    label: str
    folder: Path
    digest: str                         # folder_digest as loaded here
    testcases: Path | None              # the test-case folder found here (absolute)
    patterns: tuple[str, ...]
    index: int
    task_digest: str
    limits: Limits
    broken: Verdict | None              # the verdict of its program's build, when it failed
    task: Job | None = field(default=None, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "task": None}     # a worker re-creates it from the folder

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


@lru_cache(maxsize=8)       # jobs come entry after entry; a few entries' cases at most stay in memory
def _tasks_at(folder: Path, digest: str, testcases: Path | None, patterns: tuple[str, ...]) -> list[Job]:
    """The tasks of the entry at ``folder`` as a worker finds it (once per worker and entry)."""
    try:
        entry = load_entry(folder)
    except VerifyError as error:
        raise WorkerMismatch(f"{folder}: {error} (is it on a filesystem the workers share?)") from None
    check_same_files(entry.folder, digest, "the check")
    return _entry_tasks(entry, testcases, patterns)[0]


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


def run_case(grader: Grader, job: CaseJob) -> dict[str, Any]:
    """A job: the case's result, in its JSON form."""
    task = job_task(job)
    try:
        result = _run_task(grader.runner, job.label, task, job.limits, job.broken)
    except JudgeFailure:         # the judge's own sandbox failed: the whole command stops (exit 2)
        raise
    except Exception as error:   # a bug of the core in one job: that job's verdict, not a lost check
        result = CaseResult(job.label, task.name, judge_crash(error))
    return result.to_dict()


def build_program(grader: Grader, program: Program) -> dict[str, Any] | None:
    """A job: None when ``program`` builds (cached), else the verdict each of its runs gets."""
    failure = build_failure(grader.runner, program)
    return None if failure is None else failure.to_dict()


def case_jobs(checks: list[EntryCheck], testcases: Path | None, patterns: Sequence[str],
              limits: Limits) -> list[CaseJob]:
    """The jobs of the checks that loaded, in the checks' and tasks' order."""
    jobs = []
    for check in checks:
        entry = check.entry
        if check.error is not None or entry is None:
            continue
        digest = loaded_digest(entry.folder)
        root = default_testcases_root(entry, testcases) if entry.program is not None else None
        for index, task in enumerate(check.tasks):
            jobs.append(CaseJob(check.label, entry.folder, digest, root.absolute() if root else None,
                                tuple(patterns), index, task_digest(task), limits, None, task))
    return jobs


def run_checks(runner: Runner, checks: list[EntryCheck], limits: Limits, jobs: int | None = None,
               on_result: Progress | None = None, executor: Executor | None = None,
               testcases: Path | None = None, case_patterns: Sequence[str] = ()) -> list[EntryCheck]:
    """Run every (entry, task) job, ``jobs`` at once here (default: one per core) or on the
    executor's workers; results keep the tasks' order. ``testcases`` and ``case_patterns``:
    as given to :func:`load_checks` (a worker re-creates the tasks with them)."""
    parallel = jobs or os.cpu_count() or 1
    grader = Grader(runner, executor)
    live = [c for c in checks if c.error is None and c.entry is not None]
    # Build first (once per program): the tasks then share the cached artefact.
    programs = sorted({p for c in live if c.entry is not None for p in c.entry.programs()}, key=str)
    builds = grader.map(build_program, programs, parallel)
    broken = {program: Verdict.from_dict(failure) for program, failure in zip(programs, builds, strict=True)
              if failure is not None}
    todo = [replace(job, broken=broken.get(job.task.program) if isinstance(job.task, Task) else None)
            for job in case_jobs(live, testcases, case_patterns, limits)]
    places = [(check, index) for check in live for index in range(len(check.tasks))]   # the jobs' order
    done = 0

    def finished(index: int, record: dict[str, Any]) -> None:
        nonlocal done
        done += 1
        if on_result:
            on_result(CaseResult.from_dict(record), done, len(todo))

    records = grader.map(run_case, todo, parallel, finished)
    for check in live:
        check.results = []
    for (check, _), record in zip(places, records, strict=True):
        check.results.append(CaseResult.from_dict(record))
    return checks
