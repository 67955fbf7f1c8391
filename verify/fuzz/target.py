"""What the driver fuzzes: an entry's role, with its contest's generators, run through the core.

A :class:`Target` makes inputs (from a seeded ``random.Random``), proposes smaller
variants of one, runs the entry on one through the grading core (the runner the
command was given) and names the class of a failure. The contests' pure parts live
in ``verify/challenges/<name>/fuzzing.py``; this module joins them to an entry.
"""
from __future__ import annotations

import importlib
import random
from collections.abc import Hashable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from verify.challenges.contract import BatchTask, InteractiveTask
from verify.entries import Entry
from verify.errors import VerifyError
from verify.grading import Runner, grade_batch, grade_interactive
from verify.grading.batch import case_task
from verify.runner import Limits, Program
from verify.verdict import Verdict


class Target(Protocol):
    """One thing to fuzz: a program of an entry, on one contest's inputs."""

    label: str            # "desert/reference", "maze/theseus (solver)"
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


def fuzzing_module(contest: str) -> Any:
    """``verify.challenges.<contest>.fuzzing``, or a VerifyError when the contest has none."""
    try:
        return importlib.import_module(f"verify.challenges.{contest}.fuzzing")
    except ModuleNotFoundError:
        raise VerifyError(f"no fuzzing for {contest} entries (built in: desert, arrows, maze)") from None


class CaseTarget:
    """A code-golf entry: its program on generated cases, judged by the contest
    (or by the fuzzing module's judge, which names the failure class more precisely)."""

    def __init__(self, entry: Entry, runner: Runner, limits: Limits, max_size: int | None):
        self.entry, self.runner, self.limits = entry, runner, limits
        self.rules = fuzzing_module(entry.challenge.name)
        self.budget_limits = self.rules.for_size(max_size)
        self.label = entry.label
        self.budget = self.budget_limits.describe()

    def programs(self) -> list[Program]:
        return [self.entry.program] if self.entry.program is not None else []

    def generate(self, rng: random.Random) -> Hashable:
        value: Hashable = self.rules.random_input(rng, self.budget_limits)
        return value

    def steps(self, value: Any) -> Iterable[Hashable]:
        steps: Iterable[Hashable] = self.rules.shrink_steps(value)
        return steps

    def run(self, value: Any) -> Verdict:
        case = self.rules.to_case(value, "fuzz")
        task = case_task(self.entry, case)
        if isinstance(task, Verdict):
            return task
        judge = getattr(self.rules, "judge", None)
        if judge is not None:
            options = self.entry.options
            task = replace(task, judge=lambda: judge(options, case))
        return grade_batch(self.runner, task, self.limits, self.entry.label).verdict

    def kind(self, verdict: Verdict) -> str:
        kind: str = self.rules.failure_kind(verdict)
        return kind

    def slug(self, kind: str) -> str:
        slug: str = self.rules.kind_slug(kind)
        return slug

    def show(self, value: Any) -> str:
        text: str = self.rules.show(value)
        return text

    def size(self, value: Any) -> dict[str, int]:
        measure: dict[str, int] = self.rules.size(value)
        return measure

    def file_text(self, value: Any) -> str:
        return self.show(value)

    def parse(self, data: bytes, source: str) -> Hashable:
        value: Hashable = self.rules.parse(data, source)
        return value


class MazeTarget:
    """A maze entry: its architect asked for mazes of the contest's sizes, its solver walking
    mazes of several generator families; with both roles, each input is for one of them."""

    def __init__(self, entry: Entry, runner: Runner, max_size: int | None, step_timeout: float | None):
        self.entry, self.runner = entry, runner
        self.rules = fuzzing_module("maze")
        self.roles = entry.options
        self.settings = self.rules.MazeFuzzSettings.for_size(max_size, step_timeout)
        names = [role for role in ("architect", "solver") if getattr(self.roles, role) is not None]
        self.label = f"{entry.label} ({' and '.join(names)})"
        self.budget = self.settings.describe(names)

    def programs(self) -> list[Program]:
        return [p for p in (self.roles.architect, self.roles.solver) if p is not None]

    def generate(self, rng: random.Random) -> Hashable:
        value: Hashable = self.rules.random_input(rng, self.settings, self.roles)
        return value

    def steps(self, value: Any) -> Iterable[Hashable]:
        steps: Iterable[Hashable] = self.rules.shrink_steps(value, self.settings)
        return steps

    def run(self, value: Any) -> Verdict:
        task = self.rules.task_for(value, self.roles, self.settings)
        if isinstance(task, BatchTask):
            return grade_batch(self.runner, task, Limits(), self.entry.label).verdict
        assert isinstance(task, InteractiveTask)
        return grade_interactive(self.runner, task, self.entry.label).verdict

    def kind(self, verdict: Verdict) -> str:
        kind: str = self.rules.failure_kind(verdict)
        return kind

    def slug(self, kind: str) -> str:
        slug: str = self.rules.kind_slug(kind)
        return slug

    def show(self, value: Any) -> str:
        text: str = self.rules.show(value)
        return text

    def size(self, value: Any) -> dict[str, int]:
        measure: dict[str, int] = self.rules.size(value)
        return measure

    def file_text(self, value: Any) -> str:
        text: str = self.rules.file_text(value)
        return text

    def parse(self, data: bytes, source: str) -> Hashable:
        value: Hashable = self.rules.parse(data, source, self.roles)
        return value


def target_for(entry: Entry, runner: Runner, limits: Limits, max_size: int | None = None,
               step_timeout: float | None = None) -> Target:
    """The target of an entry: its program on cases, or its maze roles."""
    if entry.program is not None:
        return CaseTarget(entry, runner, limits, max_size)
    if entry.challenge.name == "maze":
        return MazeTarget(entry, runner, max_size, step_timeout)
    raise VerifyError(f"no fuzzing for {entry.challenge.name} entries (built in: desert, arrows, maze)")


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
