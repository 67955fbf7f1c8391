"""The jobs of `verify check`: every entry on every case of its contest (or every task of its roles), in parallel.

The work is a flat list of (entry, task) jobs driven by a thread pool: each thread
only waits on its subprocess, so threads are enough and the programs use the cores.
Every program is built once, before its tasks start; a program that does not build
gives each of its tasks that verdict.
"""
from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from verify.challenges.contract import BatchTask, InteractiveTask, Task, TestCase
from verify.entries import Entry, entry_label, load_entry
from verify.errors import EntryError, InputError, VerifyError
from verify.grading import Runner, build_failure, grade_batch, grade_interactive
from verify.grading.batch import case_task
from verify.grading.verdicts import judge_crash
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


def _entry_tasks(entry: Entry, testcases: Path | None, patterns: Sequence[str]) -> list[Job]:
    """What ``verify check`` runs for ``entry``: its program on each case, or its contest's tasks."""
    named: list[Job]
    if entry.program is None:
        named = list(entry.challenge.entry_tasks(entry.options))
        if not named:
            raise VerifyError(f"{entry.challenge.name} entries are not checked on cases "
                              f"(see `verify koth {entry.challenge.name}`)")
    else:
        named = []
        for case in cases_for(entry, testcases):
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
    return named


def load_checks(paths: Iterable[Path], testcases: Path | None,
                case_patterns: Sequence[str] = ()) -> list[EntryCheck]:
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
            check.tasks = _entry_tasks(entry, testcases, case_patterns)
        except CaseFileError:           # a bad test-case file stops the command: one line, exit 2
            raise
        except VerifyError as error:
            check.error = str(error)
        checks.append(check)
    return checks


def entry_programs(entry: Entry) -> list[Program]:
    return [entry.program] if entry.program is not None else list(entry.challenge.programs(entry.options))


def _run_task(runner: Runner, label: str, task: Job, limits: Limits,
              broken: dict[Program, Verdict]) -> CaseResult:
    if isinstance(task, Blocked):
        return CaseResult(label, task.name, task.verdict)
    if task.program in broken:
        return CaseResult(label, task.name, broken[task.program])
    if isinstance(task, BatchTask):
        return grade_batch(runner, task, limits, label)
    assert isinstance(task, InteractiveTask)
    return grade_interactive(runner, task, label)


def run_checks(runner: Runner, checks: list[EntryCheck], limits: Limits, jobs: int | None = None,
               on_result: Progress | None = None) -> list[EntryCheck]:
    """Run every (entry, task) job on `jobs` threads; results keep the tasks' order."""
    jobs = jobs or os.cpu_count() or 1
    live = [c for c in checks if c.error is None and c.entry is not None]
    todo = [(check, index, task) for check in live for index, task in enumerate(check.tasks)]
    slots: dict[int, list[CaseResult | None]] = {id(c): [None] * len(c.tasks) for c in live}
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        # Build first (once per program): the tasks then share the cached artefact.
        programs = {p for c in live if c.entry is not None for p in entry_programs(c.entry)}
        builds = {program: pool.submit(build_failure, runner, program) for program in programs}
        broken = {program: failure for program, future in builds.items()
                  if (failure := future.result()) is not None}
        futures: dict[Future[CaseResult], tuple[EntryCheck, int]] = {
            pool.submit(_run_task, runner, check.label, task, limits, broken): (check, index)
            for check, index, task in todo}
        for done, future in enumerate(as_completed(futures), 1):
            check, index = futures[future]
            try:
                result = future.result()
            except Exception as error:   # a bug of the core in one job: that job's verdict, not a lost check
                result = CaseResult(check.label, check.tasks[index].name, judge_crash(error))
            slots[id(check)][index] = result
            if on_result:
                on_result(result, done, len(todo))
    except BaseException:
        # Ctrl-C: start nothing more; the runs in flight end within their limits.
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    for check in live:
        check.results = [r for r in slots[id(check)] if r is not None]
    return checks
