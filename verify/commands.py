"""What the generic commands (check, rank, langs) do; cli.py only parses options."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Sequence

import click
from tabulate import tabulate

from verify import challenges
from verify.checking import EntryCheck, load_checks, run_checks
from verify.entries import Entry, find_entries
from verify.errors import VerifyError
from verify.judging import CaseResult
from verify.report import check_report, rank_report
from verify.report_escape import one_line
from verify.runner import Limits, cache_root, isolation_name, languages
from verify.scoring import (Score, Standing, check_digest, first_added, load_cached, rank_standings,
                            score_entry, store_cached)


def make_limits(wall_time: float, cpu_time: float | None, memory_mb: int, output_mb: int,
                processes: int) -> Limits:
    return Limits(wall_time=wall_time, cpu_time=cpu_time or wall_time, memory=memory_mb << 20,
                  output=output_mb << 20, processes=processes)


class Progress:
    """One self-erasing line on stderr, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()

    def __call__(self, result: CaseResult, done: int, total: int) -> None:
        if self.enabled:
            mark = "ok" if result.passed else result.verdict.status.short
            line = f"[{done}/{total}] {one_line(result.entry)} {one_line(result.case)}: {mark}"
            sys.stderr.write("\r\x1b[K" + line[:150])
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _run_with_progress(checks: list[EntryCheck], limits: Limits, jobs: int | None) -> list[EntryCheck]:
    progress = Progress()
    try:
        return run_checks(checks, limits, jobs, on_result=progress)
    finally:
        progress.close()


def check(paths: Sequence[Path], *, jobs: int | None, fmt: str, testcases: Path | None, limits: Limits,
          cases: Sequence[str] = ()) -> int:
    checks = load_checks(paths, testcases, cases)
    _run_with_progress(checks, limits, jobs)
    if not cases:                  # a whole check is what `verify rank` needs: keep it for rank
        for entry_check in checks:
            key = _outcome_key(entry_check, limits)
            if key is not None:
                store_cached(_results_dir(), key, _outcome(entry_check))
    click.echo(check_report(checks, fmt))
    return 0 if checks and all(c.passed for c in checks) else 1


def rank(challenge: str | None, *, submissions: Path, testcases: Path | None, jobs: int | None, fmt: str,
         fresh: bool, limits: Limits) -> None:
    names = [challenge] if challenge else [n for n in challenges.names() if challenges.get(n).scoring == "bytes"]
    for name in names:
        if challenges.get(name).scoring != "bytes":
            raise VerifyError(f"{name} is not a code-golf contest (its leaderboard: verify koth {name})")
    outputs = []
    for name in names:
        standings = leaderboard(name, submissions, testcases, jobs, fresh, limits)
        language_names = {key: lang.name for key, lang in languages().items()}
        outputs.append(rank_report(name, standings, fmt, language_names))
    click.echo("\n\n".join(outputs))


def leaderboard(challenge: str, submissions: Path, testcases: Path | None, jobs: int | None, fresh: bool,
                limits: Limits) -> list[Standing]:
    """Check (or reuse the cached check of) every entry of `challenge`, then rank them.

    A check is cached under the digest of everything its outcome depends on (the entry's
    files, the cases, the contest's code, the runner, the limits): an unchanged entry
    is not re-run; --fresh re-runs all."""
    checks = load_checks(find_entries(submissions, challenge), testcases)
    results_dir = _results_dir()
    keys: dict[int, str] = {}
    cached: dict[int, dict] = {}
    for check in checks:
        key = _outcome_key(check, limits)
        if key is not None:
            keys[id(check)] = key
            hit = None if fresh else load_cached(results_dir, key)
            if hit is not None:
                cached[id(check)] = hit
    _run_with_progress([c for c in checks if id(c) not in cached], limits, jobs)
    standings = []
    for check in checks:
        entry = check.entry
        if id(check) in cached:
            outcome = cached[id(check)]
        else:
            outcome = _outcome(check)
            if id(check) in keys:
                store_cached(results_dir, keys[id(check)], outcome)
        score, why_not = _score(entry, outcome["why_not"])
        standings.append(Standing(
            label=check.label, name=entry.name if entry else check.label,
            language=entry.language or "" if entry else "", score=score, passed=outcome["passed"],
            why_not=why_not, added=first_added(entry.folder) if entry else None,
            cases=outcome["cases"], entry=entry))
    return rank_standings(standings)


def _score(entry: Entry | None, why_not: str) -> tuple[Score | None, str]:
    """The entry's score, or None and why (a source changed since the entry loaded)."""
    if entry is None or entry.source is None:
        return None, why_not
    try:
        return score_entry(entry), why_not
    except VerifyError as error:
        return None, str(error)


def _results_dir() -> Path:
    return cache_root() / "results"


def _outcome_key(check: EntryCheck, limits: Limits) -> str | None:
    """The cache key of a whole check: everything its outcome depends on (see check_digest)."""
    if check.error is not None or check.entry is None:
        return None
    try:
        return check_digest(check.entry, [(c.name, c.input) for c in check.cases], repr(limits))
    except VerifyError:             # the folder changed since it was loaded: nothing cached
        return None


def _outcome(check: EntryCheck) -> dict:
    return {"passed": check.passed, "why_not": "" if check.passed else check.why_not,
            "cases": len(check.results)}


def langs(keys: list[str], fmt: str) -> int:
    from verify.runner.selftest import check_languages
    statuses = check_languages(keys or None)
    if fmt == "json":
        click.echo(json.dumps({"isolation": isolation_name(), "languages": [s.__dict__ for s in statuses]},
                              indent=2))
    else:
        rows = [[s.key, s.name, "found" if s.found else "missing", one_line(s.version), one_line(s.selftest)]
                for s in statuses]
        click.echo(tabulate(rows, ["language", "name", "status", "version", "self-test"], tablefmt="simple"))
        click.echo(f"\nisolation: {isolation_name()}")
    return 0 if all(s.ok for s in statuses) else 1
