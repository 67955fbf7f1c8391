"""`verify check`: every entry on every case of its contest, in parallel.

The work is a flat list of (entry, case) jobs driven by a thread pool: each thread
only waits on its subprocess, so threads are enough and the programs use the cores.
Compiled entries are built once, before their cases start.
"""
from __future__ import annotations

import fnmatch
import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from verify.challenges.base import TestCase
from verify.entries import Entry, entry_label, load_entry
from verify.errors import VerifyError
from verify.judging import CaseResult, judge_run
from verify.runner import CompileError, Limits, MissingInterpreter, prepare
from verify.verdict import Status, Verdict


@dataclass
class EntryCheck:
    """One entry's check: its results, or why it could not be checked at all."""

    label: str
    entry: Entry | None
    cases: list[TestCase] = field(default_factory=list)
    results: list[CaseResult] = field(default_factory=list)
    error: str | None = None             # broken entry.toml, no cases...
    note: str | None = None              # e.g. a KotH entry delegated to its contest

    @property
    def passed(self) -> bool:
        return self.error is None and bool(self.results) and all(r.passed for r in self.results)

    @property
    def why_not(self) -> str:
        if self.error:
            return self.error
        failed = [r for r in self.results if not r.passed]
        if not failed:
            return "no cases"
        first = failed[0]
        return f"{first.case}: {first.verdict.status}" + (f": {first.verdict.message}" if first.verdict.message else "") + (
            f" (and {len(failed) - 1} more failed)" if len(failed) > 1 else "")


def default_testcases_root(entry: Entry, explicit: Path | None) -> Path | None:
    """--testcases DIR, else testcases/<challenge> in the current folder, else next to submissions/."""
    name = entry.challenge.name
    candidates = [explicit] if explicit else [
        Path.cwd() / "testcases" / name, entry.folder.parent.parent.parent / "testcases" / name]
    return next((c for c in candidates if c is not None and c.is_dir()), None)


def cases_for(entry: Entry, testcases: Path | None) -> list[TestCase]:
    root = default_testcases_root(entry, testcases)
    if testcases is not None and root is None:
        raise VerifyError(f"no test case folder {str(testcases)!r}")
    cases = entry.challenge.testcases(root) if root is not None else []
    return [*cases, *entry.challenge.entry_cases(entry.options, entry.folder)]


def load_checks(paths: Iterable[Path], testcases: Path | None,
                case_patterns: Sequence[str] = ()) -> list[EntryCheck]:
    """Load each entry; a broken one becomes a failed check with its one-line error.
    `case_patterns` (shell patterns such as ``one-row-*``) keep only the cases they name."""
    checks = []
    for path in paths:
        label = entry_label(Path(path))
        try:
            entry = load_entry(path)
        except VerifyError as error:
            checks.append(EntryCheck(label, None, error=str(error)))
            continue
        check = EntryCheck(entry.label, entry)
        if entry.program is None:
            check.note = f"a {entry.challenge.scoring} entry: judged by its contest's own command"
            delegate = getattr(entry.challenge, "check_entry", None)
            if delegate is None:
                check.error = (f"{entry.challenge.name} entries are not checked on cases "
                               f"(see `verify koth {entry.challenge.name}`)")
            checks.append(check)
            continue
        try:
            check.cases = cases_for(entry, testcases)
        except VerifyError as error:
            check.error = str(error)
        if case_patterns:
            check.cases = [c for c in check.cases if any(fnmatch.fnmatchcase(c.name, p) for p in case_patterns)]
            if not check.cases and check.error is None:
                check.error = f"no case matches {', '.join(case_patterns)}"
        if not check.cases and check.error is None:
            check.error = "no test cases found (give --testcases DIR)"
        checks.append(check)
    return checks


def run_checks(checks: list[EntryCheck], limits: Limits, jobs: int | None = None,
               on_result: Callable[[CaseResult, int, int], None] | None = None) -> list[EntryCheck]:
    """Run every (entry, case) job on `jobs` threads; results keep the cases' order."""
    jobs = jobs or os.cpu_count() or 1
    todo = [(check, index, case) for check in checks if check.error is None and check.entry is not None
            and check.entry.program is not None for index, case in enumerate(check.cases)]
    total = len(todo) + sum(1 for c in checks if c.error is None and c.entry is not None and c.entry.program is None)
    done = 0
    slots: dict[int, list[CaseResult | None]] = {id(c): [None] * len(c.cases) for c in checks}
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        # Build first (once per entry): the cases then share the cached artefact.
        builds = {id(c): pool.submit(_build, c.entry) for c in checks
                  if c.error is None and c.entry is not None and c.entry.program is not None}
        failed_builds = {key: future.result() for key, future in builds.items()}
        futures = {}
        for check, index, case in todo:
            failure = failed_builds[id(check)]
            if failure is not None:
                slots[id(check)][index] = CaseResult(check.label, case.name, failure)
                done += 1
                if on_result:
                    on_result(slots[id(check)][index], done, total)
                continue
            futures[pool.submit(judge_run, check.entry, case, limits)] = (check, index)
        delegated = {pool.submit(check.entry.challenge.check_entry, check.entry, limits): check
                     for check in checks if check.error is None and check.entry is not None
                     and check.entry.program is None}
        for future in as_completed([*futures, *delegated]):
            if future in delegated:
                check = delegated[future]
                try:
                    check.results = list(future.result())
                except VerifyError as error:
                    check.error = str(error)
                done += 1
                if on_result:
                    for result in check.results:
                        on_result(result, done, total)
                continue
            check, index = futures[future]
            result = future.result()
            slots[id(check)][index] = result
            done += 1
            if on_result:
                on_result(result, done, total)
    except BaseException:
        # Ctrl-C: start nothing more; the runs in flight end within their limits.
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    for check in checks:
        if check.entry is not None and check.entry.program is not None:
            check.results = [r for r in slots[id(check)] if r is not None]
    return checks


def _build(entry: Entry) -> Verdict | None:
    """None when the program is ready; else the verdict every case of it gets."""
    try:
        prepare(entry.program)
    except CompileError as error:
        return Verdict(Status.COMPILE_ERROR, str(error), error.log)
    except MissingInterpreter as error:
        return Verdict(Status.JUDGE_ERROR, str(error))
    except VerifyError as error:
        return Verdict(Status.JUDGE_ERROR, str(error))
    return None
