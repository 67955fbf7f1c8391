"""What a check's run gives: each entry's result beside its part of the plan, and the figures
the report adds (the slowest accepted case against its time limit)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from verify.contests.contract import BatchTask, TestCase
from verify.entries import Entry
from verify.pipeline.plan import EntryCheck, Job
from verify.reports.checks import SlowestCase
from verify.results import CheckResult
from verify.runner import Limits


@dataclass
class CheckedEntry(CheckResult):
    """One entry's result (what is reported and stored), with the part of the plan it ran and
    the cases it did not run (``--fail-fast`` stopped it: never part of a stored check)."""

    planned: EntryCheck | None = None
    skipped: list[str] = field(default_factory=list)

    @property
    def entry(self) -> Entry[Any, Any] | None:
        return self.planned.entry if self.planned is not None else None

    @property
    def tasks(self) -> tuple[Job, ...]:
        return self.planned.tasks if self.planned is not None else ()

    @property
    def cases(self) -> tuple[TestCase[Any], ...]:
        return self.planned.cases if self.planned is not None else ()


def slowest_accepted(checked: Sequence[CheckedEntry], limits: Limits) -> SlowestCase | None:
    """The accepted batch run that came closest to its wall-time limit (its task's own limits,
    else the check's), or None when no batch run was accepted."""
    found: SlowestCase | None = None
    for check in checked:
        tasks = {task.name: task for task in check.tasks if isinstance(task, BatchTask)}
        for result in check.results:
            task = tasks.get(result.case)
            if task is None or not result.passed:
                continue
            limit = (task.limits or limits).wall_time
            if found is None or result.time / limit > found.time / found.limit:
                found = SlowestCase(check.label, result.case, result.time, limit)
    return found
