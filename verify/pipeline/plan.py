"""The plan of a check: for each entry, what it runs, frozen before anything runs.

An :class:`EntryCheck` is one entry's part of the plan: the entry (None when it did not
load), its tasks (its program on each case, or its contest's tasks for entries with roles)
and the cases they run on, or the one-line error that keeps it from running. A
:class:`CheckPlan` is every entry's, with the limits and the test-case folder. Its jobs
(:mod:`verify.pipeline.execute`) are plain data: a worker elsewhere re-creates each task
from them. The results are a separate thing (:class:`verify.pipeline.outcome.CheckedEntry`):
nothing in a plan changes while it runs.
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verify.contests.contract import BatchTask, Options, Payload, Task, TestCase
from verify.entries import Entry
from verify.errors import InputError, VerifyError
from verify.grading.batch import case_task
from verify.runner import Limits
from verify.verdict import Verdict


@dataclass(frozen=True)
class Blocked:
    """A case that cannot run for this entry (too long to pass as an argument...): its verdict."""

    name: str
    verdict: Verdict


Job = Task | Blocked


@dataclass(frozen=True)
class EntryCheck:
    """One entry's part of a check's plan: what it runs, or why it cannot run at all."""

    label: str
    entry: Entry[Any, Any] | None = None
    tasks: tuple[Job, ...] = ()
    cases: tuple[TestCase[Any], ...] = ()     # the cases its program runs on (code golf)
    error: str | None = None             # broken entry.toml, no cases, ...


@dataclass(frozen=True)
class CheckPlan:
    """Every entry's part, in the order given, and what their runs share."""

    entries: tuple[EntryCheck, ...]
    limits: Limits
    testcases: Path | None = None           # --testcases (None: each contest's default folder)
    patterns: tuple[str, ...] = ()          # --case patterns (a worker re-creates the tasks with them)


class CaseFileError(InputError):
    """A malformed test-case file: the command's input, not the entry's fault (exit 2)."""


def default_testcases_root(entry: Entry[Any, Any], explicit: Path | None) -> Path | None:
    """--testcases DIR, else testcases/<contest> in the current folder, else next to submissions/."""
    name = entry.contest.name
    candidates = [explicit] if explicit else [
        Path.cwd() / "testcases" / name, entry.folder.parent.parent.parent / "testcases" / name]
    return next((c for c in candidates if c is not None and c.is_dir()), None)


def cases_for(entry: Entry[Options, Payload], testcases: Path | None) -> list[TestCase[Payload]]:
    """The contest's cases (from ``testcases`` or its default folder) and those the entry brings."""
    root = default_testcases_root(entry, testcases)
    if testcases is not None and root is None:
        raise VerifyError(f"no test case folder {str(testcases)!r}")
    try:
        cases = entry.contest.testcases(root) if root is not None else []
    except InputError as error:         # names the file; the entry's own demo map stays the entry's fault
        raise CaseFileError(str(error)) from None
    return [*cases, *entry.contest.entry_cases(entry.options, entry.folder)]


def plan_tasks(entry: Entry[Options, Payload], testcases: Path | None, patterns: Sequence[str],
               generated_cases: Sequence[TestCase[Payload]] = (),
               generated_tasks: Sequence[Task] = ()) -> tuple[list[Job], list[TestCase[Payload]]]:
    """What ``verify check`` runs for ``entry``: its program on each case (and on
    ``generated_cases``), or its contest's tasks (and ``generated_tasks``); with the cases
    they run on. ``patterns`` keep only the tasks they name; a VerifyError when none is left."""
    named: list[Job]
    cases: list[TestCase[Payload]] = []
    if entry.program is None:
        named = [*entry.contest.entry_tasks(entry.options), *generated_tasks]
        if not named:
            raise VerifyError(f"{entry.contest.name} entries are not checked on cases "
                              f"(see `verify koth {entry.contest.name}`)")
    else:
        named = []
        cases = [*cases_for(entry, testcases), *generated_cases]
        for case in cases:
            task = case_task(entry, case)
            named.append(Blocked(case.name, task) if isinstance(task, Verdict) else task)
    if patterns:
        named = [t for t in named if any(fnmatch.fnmatchcase(t.name, p) for p in patterns)]
        if not named:
            if entry.program is not None and default_testcases_root(entry, testcases) is None:
                raise VerifyError(f"no test case folder found for {entry.contest.name} (give --testcases DIR)")
            raise VerifyError(f"no case matches {', '.join(patterns)}")
    if not named:
        raise VerifyError("no test cases found (give --testcases DIR)")
    return named, cases


def task_digest(task: Job) -> str:
    """What a task runs: its name, and its input and arguments (a batch run) or mode (a match)."""
    if isinstance(task, Blocked):
        parts = [task.name, json.dumps(task.verdict.to_dict())]
    elif isinstance(task, BatchTask):
        parts = [task.name, hashlib.sha256(task.stdin).hexdigest(), json.dumps(task.args), repr(task.limits)]
    else:
        parts = [task.name, str(task.persistent), repr(task.limits), repr(task.step_timeout)]
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def runnable(plan: CheckPlan) -> list[tuple[int, EntryCheck]]:
    """The entries of ``plan`` that loaded, with their places in it."""
    return [(position, check) for position, check in enumerate(plan.entries)
            if check.error is None and check.entry is not None]
