"""What the driver fuzzes: an entry's role, with its contest's generators, run through the core.

A :class:`Target` makes inputs (from a seeded ``random.Random``), proposes smaller
variants of one, runs the entry on one through the grading core (the runner the
command was given) and names the class of a failure. The contests' pure parts live
in ``verify/contests/<name>/fuzzing.py``; this module joins them to an entry.
"""
from __future__ import annotations

import random
from collections.abc import Hashable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from verify.contests.contract import FuzzBudget, Fuzzer, InteractiveTask, StreamJudge, TestCase
from verify.entries import Entry
from verify.errors import VerifyError
from verify.grading import Runner, grade_batch, grade_interactive
from verify.grading.batch import case_task
from verify.runner import Limits, Program
from verify.verdict import Verdict


class Target(Protocol):
    """One thing to fuzz: a program of an entry, on one contest's inputs."""

    label: str            # "<contest>/<entry>", or "<contest>/<entry> (<role>)" for a role's program
    budget: str           # what is generated, one line for the report

    def programs(self) -> list[Program]: ...
    def generate(self, rng: random.Random) -> Hashable: ...
    def steps(self, value: Any) -> Iterable[Hashable]: ...
    def run(self, value: Any) -> Verdict: ...
    def kind(self, verdict: Verdict) -> str: ...
    def slug(self, kind: str) -> str: ...
    def show(self, value: Any) -> str: ...
    def size(self, value: Any) -> dict[str, int]: ...
    def file_text(self, value: Any) -> str: ...
    def parse(self, data: bytes, source: str) -> Hashable: ...


def contest_fuzzer(entry: Entry, budget: FuzzBudget | None = None) -> Fuzzer:
    """The entry's contest's generated inputs (within ``budget``, by default the contest's own),
    or a VerifyError when the contest has none."""
    fuzzer = entry.contest.fuzzer(entry.options, budget or FuzzBudget())
    if fuzzer is None:
        raise VerifyError(f"{entry.contest.name} generates no inputs: its entries cannot be fuzzed")
    return fuzzer


class EntryTarget:
    """An entry on its contest's generated inputs, graded by the core: a generated case as
    the entry's own cases are (judged by the fuzzer's judge when it has one, which names the
    failure class more precisely), a generated task as it is."""

    def __init__(self, entry: Entry, runner: Runner, limits: Limits, fuzzer: Fuzzer):
        self.entry, self.runner, self.limits, self.fuzzer = entry, runner, limits, fuzzer
        self.label = f"{entry.label} ({fuzzer.subject})" if fuzzer.subject else entry.label
        self.budget = fuzzer.budget

    def programs(self) -> list[Program]:
        return self.entry.programs()

    def generate(self, rng: random.Random) -> Hashable:
        return self.fuzzer.generate(rng)

    def steps(self, value: Any) -> Iterable[Hashable]:
        return self.fuzzer.shrink_steps(value)

    def run(self, value: Any) -> Verdict:
        work = self.fuzzer.work(value, "fuzz")
        if isinstance(work, InteractiveTask):
            return grade_interactive(self.runner, work, self.entry.label).verdict
        if isinstance(work, TestCase):
            task = case_task(self.entry, work)
            if isinstance(task, Verdict):
                return task
            case, fuzzer, contest_judge = work, self.fuzzer, task.judge

            def judge() -> StreamJudge:
                own = fuzzer.judge(case)
                return own if own is not None else contest_judge()
            work = replace(task, judge=judge)
        return grade_batch(self.runner, work, self.limits, self.entry.label).verdict

    def kind(self, verdict: Verdict) -> str:
        return self.fuzzer.failure_kind(verdict)

    def slug(self, kind: str) -> str:
        return self.fuzzer.kind_slug(kind)

    def show(self, value: Any) -> str:
        return self.fuzzer.show(value)

    def size(self, value: Any) -> dict[str, int]:
        return self.fuzzer.size(value)

    def file_text(self, value: Any) -> str:
        return self.fuzzer.file_text(value)

    def parse(self, data: bytes, source: str) -> Hashable:
        return self.fuzzer.parse(data, source)


def target_for(entry: Entry, runner: Runner, limits: Limits, max_size: int | None = None,
               step_timeout: float | None = None) -> Target:
    """The entry on its contest's generated inputs (of at most ``max_size``)."""
    return EntryTarget(entry, runner, limits, contest_fuzzer(entry, FuzzBudget(max_size, step_timeout)))


def save_case(target: Target, value: Any, kind: str, folder: Path) -> Path:
    """Write ``value`` into ``folder`` as ``fuzz-<failure>.txt`` (``-2``, ``-3``... when taken)."""
    from verify.files import make_output_folder, write_output
    make_output_folder(folder, "test case")
    stem = f"fuzz-{target.slug(kind)}"
    path, number = folder / f"{stem}.txt", 1
    while path.exists():
        number += 1
        path = folder / f"{stem}-{number}.txt"
    write_output(path, target.file_text(value), "test case")
    return path
