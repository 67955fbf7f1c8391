"""``verify check``: run the entries, report, keep each whole check for ``verify rank``."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from verify.commands.cache import ResultCache, check_key
from verify.commands.jobs import EntryCheck, load_checks, run_checks
from verify.commands.progress import Progress
from verify.grading import Runner
from verify.reports.checks import check_report
from verify.runner import Limits, cache_root


def results_cache() -> ResultCache:
    return ResultCache(cache_root() / "results")


def run_with_progress(runner: Runner, checks: list[EntryCheck], limits: Limits,
                      jobs: int | None) -> list[EntryCheck]:
    progress = Progress()
    try:
        return run_checks(runner, checks, limits, jobs, on_result=progress)
    finally:
        progress.close()


def check(runner: Runner, paths: Sequence[Path], *, jobs: int | None, fmt: str, testcases: Path | None,
          limits: Limits, cases: Sequence[str] = ()) -> tuple[str, int]:
    """The report, and the exit code: 0 when every case of every entry is accepted."""
    checks = load_checks(paths, testcases, cases)
    run_with_progress(runner, checks, limits, jobs)
    if not cases:                  # a whole check is what `verify rank` needs: keep it for rank
        cache = results_cache()
        for entry_check in checks:
            key = check_key(entry_check, limits, runner.isolation)
            if key is not None:
                cache.store(key, entry_check)
    return check_report(checks, fmt), 0 if checks and all(c.passed for c in checks) else 1
