"""``verify fuzz``: one entry on generated inputs; the first failure shrunk, shown, saved."""
from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from verify.entries import Entry, load_entry
from verify.errors import VerifyError
from verify.files import read_input
from verify.fuzz import FuzzResult, Target, fuzz, save_case, target_for
from verify.grading import Runner, build_failure
from verify.report_escape import visible
from verify.runner import Limits

MAX_REPLAY_BYTES = 4 << 20


@dataclass(frozen=True)
class FuzzOptions:
    seed: int = 0
    runs: int | None = None
    seconds: float | None = None
    jobs: int = 1
    save: Path | None = None
    max_size: int | None = None
    limits: Limits = Limits(wall_time=5.0, cpu_time=5.0)
    step_timeout: float | None = None
    ignore: tuple[str, ...] = ()


class CannotRun(VerifyError):
    """The entry's program does not build or start: rejected (exit 1), nothing to fuzz."""

    exit_code = 1


def prepared_target(runner: Runner, path: Path, options: FuzzOptions) -> tuple[Entry, Target]:
    """The entry's target, its programs built; a program that does not build is :class:`CannotRun`."""
    entry = load_entry(path)
    target = target_for(entry, runner, options.limits, options.max_size, options.step_timeout)
    for program in target.programs():
        failure = build_failure(runner, program)
        if failure is not None:
            raise CannotRun(f"{entry.label}: cannot run {program.source.name}: {failure.summary()}")
    return entry, target


def fuzz_entry(runner: Runner, path: Path, options: FuzzOptions) -> tuple[str, int]:
    """The report, and the exit code: 0 when nothing failed, 1 when a failure was found."""
    entry, target = prepared_target(runner, path, options)
    result = fuzz(target, seed=options.seed, runs=options.runs, seconds=options.seconds, jobs=options.jobs,
                  ignore=options.ignore)
    saved = None
    if result.finding is not None and options.save is not None:
        saved = save_case(target, result.finding.minimal, result.finding.kind, options.save)
    checkable = saved is not None and entry.program is not None and _read_as_a_case(entry, saved)
    return report(target, path, options, result, saved, checkable), int(result.failed)


def _read_as_a_case(entry: Entry, saved: Path) -> bool:
    """Whether the contest reads the saved file, in its folder, as a test case of that name (a
    contest whose case is several files, an input and its expected output, does not)."""
    try:
        return any(case.name == saved.stem for case in entry.contest.testcases(saved.parent))
    except (VerifyError, OSError, ValueError):
        return False


def replay(runner: Runner, path: Path, case_file: Path, options: FuzzOptions) -> tuple[str, int]:
    """Run the entry once on a saved input (``--replay``): its verdict, exit 1 when it fails."""
    _, target = prepared_target(runner, path, options)
    value = target.parse(read_input(str(case_file), MAX_REPLAY_BYTES, "input"), str(case_file))
    verdict = target.run(value)
    lines = [target.show(value).rstrip("\n"), f"verdict: {visible(verdict.summary())}"]
    if not verdict.accepted:
        lines.append(f"failure class: {target.kind(verdict)}")
    return "\n".join(lines), int(not verdict.accepted)


def report(target: Target, path: Path, options: FuzzOptions, result: FuzzResult, saved: Path | None,
           checkable: bool) -> str:
    head = f"fuzz {target.label}: {target.budget}"
    finding = result.finding
    if finding is None:
        return (f"{head}\nnothing failed in {result.runs} input{'s' if result.runs != 1 else ''} "
                f"(seed {options.seed}, {result.elapsed:.1f} s)")
    entry = shlex.quote(str(path))
    shrunk = finding.shrunk
    lines = [
        head,
        f"input {finding.index + 1} (seed {options.seed}) failed: {finding.kind}",
        f"shrunk in {shrunk.steps} step{'s' if shrunk.steps != 1 else ''} ({shrunk.tries} runs"
        + (", stopped by the budget of runs" if shrunk.exhausted else "") + f", {result.elapsed:.1f} s "
        f"in all) from ({_size(target, finding.original)}) to ({_size(target, finding.minimal)}):",
        target.show(finding.minimal).rstrip("\n"),
        f"verdict: {visible(finding.verdict.summary())}",
        "reproduce:",
        f"  verify fuzz {entry} --seed {options.seed} --runs {finding.index + 1}"
        + (f" --max-size {options.max_size}" if options.max_size is not None else "")
        + "".join(f" --ignore {shlex.quote(kind)}" for kind in options.ignore),
    ]
    if saved is not None:
        lines.insert(-2, f"saved: {visible(str(saved))}")
        lines.append(f"  verify fuzz {entry} --replay {shlex.quote(str(saved))}")
        if checkable:
            lines.append(f"  verify check {entry} --testcases {shlex.quote(str(saved.parent))} "
                         f"--case {shlex.quote(saved.stem)}")
    return "\n".join(lines)


def _size(target: Target, value: object) -> str:
    return ", ".join(f"{name} {number}" for name, number in target.size(value).items())
