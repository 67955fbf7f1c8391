"""The jobs of ``verify check``: each entry loaded into its part of the plan (its program on
every case of its contest, or every task of its roles; and the generated cases of
``--fuzz``), then the plan executed (:mod:`verify.pipeline.execute`)."""
from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from verify.contests.contract import Task, TestCase
from verify.entries import Entry, entry_label, load_entry
from verify.errors import EntryError, VerifyError
from verify.grading import Grader, Runner
from verify.grading.executor import Executor
from verify.pipeline.execute import CaseJob, build_program, execute, run_case
from verify.pipeline.observe import Observer
from verify.pipeline.outcome import CheckedEntry
from verify.pipeline.plan import (
    Blocked,
    CaseFileError,
    CheckPlan,
    EntryCheck,
    default_testcases_root,
    plan_tasks,
)
from verify.runner import Limits

__all__ = ["Blocked", "CaseJob", "CheckedEntry", "EntryCheck", "build_program", "default_testcases_root",
           "load_checks", "run_case", "run_checks"]


def _fuzz_cases(entry: Entry, count: int) -> list[TestCase]:
    if count <= 0 or entry.program is None:
        return []
    from verify.fuzz.cases import fuzz_cases  # the fuzzer's modules only for `check --fuzz N`
    return fuzz_cases(entry, count)


def _fuzz_tasks(entry: Entry, count: int) -> list[Task]:
    if count <= 0 or entry.program is not None:
        return []
    from verify.fuzz.cases import fuzz_tasks  # the fuzzer's modules only for `check --fuzz N`
    return fuzz_tasks(entry, count)


def load_checks(paths: Iterable[Path], testcases: Path | None,
                case_patterns: Sequence[str] = (), fuzz: int = 0) -> list[EntryCheck]:
    """Load each entry and what it runs; a broken one is planned with its one-line error
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
        try:
            tasks, cases = plan_tasks(entry, testcases, case_patterns, _fuzz_cases(entry, fuzz),
                                      _fuzz_tasks(entry, fuzz))
        except CaseFileError:           # a bad test-case file stops the command: one line, exit 2
            raise
        except VerifyError as error:
            checks.append(EntryCheck(entry.label, entry, error=str(error)))
            continue
        checks.append(EntryCheck(entry.label, entry, tuple(tasks), tuple(cases)))
    return checks


def run_checks(runner: Runner, checks: Sequence[EntryCheck], limits: Limits, jobs: int | None = None,
               observers: Sequence[Observer] = (), executor: Executor | None = None,
               testcases: Path | None = None, case_patterns: Sequence[str] = ()) -> list[CheckedEntry]:
    """Each entry's result, its cases run ``jobs`` at once here (default: one per core) or on
    the executor's workers, in the tasks' order. ``testcases`` and ``case_patterns``: as given
    to :func:`load_checks` (a worker re-creates the tasks with them)."""
    plan = CheckPlan(tuple(checks), limits, testcases, tuple(case_patterns))
    return execute(plan, Grader(runner, executor), jobs or os.cpu_count() or 1, observers)
