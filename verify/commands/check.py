"""``verify check``: run the entries, report, keep each whole check for ``verify rank``."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from verify.commands.cache import ResultCache, check_key
from verify.commands.cache_admin import max_bytes, prune_cache
from verify.commands.changes import changed_files, repository_root, touched
from verify.commands.jobs import EntryCheck, load_checks, run_checks
from verify.commands.progress import Progress
from verify.entries import find_entries
from verify.errors import VerifyError
from verify.files import make_output_folder, write_output
from verify.grading import Runner
from verify.grading.executor import Executor
from verify.reports.checks import check_report
from verify.runner import Limits
from verify.settings import Settings


def results_cache(settings: Settings) -> ResultCache:
    """Where whole checks are kept for ``verify rank``: the settings' cache."""
    return ResultCache(settings.cache / "results")


def run_with_progress(runner: Runner, checks: list[EntryCheck], limits: Limits, jobs: int | None,
                      executor: Executor | None = None, testcases: Path | None = None,
                      cases: Sequence[str] = ()) -> list[EntryCheck]:
    progress = Progress(workers=executor.workers if executor is not None else None)
    try:
        return run_checks(runner, checks, limits, jobs, on_result=progress, executor=executor,
                          testcases=testcases, case_patterns=cases)
    finally:
        progress.close()


def changed_entries(paths: Sequence[Path], ref: str) -> list[Path]:
    """The entries among ``paths`` (none: every entry under ./submissions) that a change since
    ``ref`` touched (:mod:`verify.commands.changes`)."""
    candidates = list(paths) or find_entries(Path("submissions"))
    changed = changed_files(repository_root(Path.cwd()), ref)
    return [path for path in candidates if touched(Path(path), changed)]


def check(runner: Runner, paths: Sequence[Path], *, settings: Settings, jobs: int | None, fmt: str,
          testcases: Path | None, limits: Limits, cases: Sequence[str] = (), writes: Sequence[tuple[str, Path]] = (),
          results_dir: Path | None = None, failures_only: bool = False, compact: bool = False,
          width: int | None = None, colour: bool = False, executor: Executor | None = None,
          html: Path | None = None, fuzz: int = 0) -> tuple[str, int]:
    """The report, and the exit code: 0 when every case of every entry is accepted.

    ``settings``: where the cache is, and its bound (settings.py). ``writes``: (format, path)
    pairs, more reports written to files (in the formats machines read). ``results_dir``: each
    whole check is also stored there (a shard for ``verify results merge`` / ``rank
    --results``). ``failures_only``, ``compact``, ``width``, ``colour``: how the printed report
    looks (:func:`verify.reports.checks.check_report`). ``executor``: where the runs go (None:
    threads here; a cluster: see docs/cluster.md). ``html``: also write the static site there
    (:mod:`verify.commands.site`). ``fuzz``: that many generated inputs more per entry
    (:mod:`verify.fuzz.cases`; run here only, not on a cluster's workers)."""
    bound = max_bytes(settings.cache_max_mb)    # a bad $VERIFY_CACHE_MAX_MB: one line before anything runs
    if results_dir is not None:
        make_output_folder(results_dir, "results")
    if html is not None:
        from verify.commands.site import capture_outputs, prepare_site
        prepare_site(html)
    if fuzz and executor is not None:
        raise VerifyError("--fuzz runs on this machine only: the workers of a cluster cannot re-create fuzzed cases")
    checks = load_checks(paths, testcases, cases, fuzz)
    # outputs are kept where they are judged: here, not on a cluster's workers (no replays then)
    captures = capture_outputs(checks) if html is not None and executor is None else {}
    isolation = runner.isolation if executor is None else executor.isolation(runner.isolation)
    kept = isolation if not cases and not fuzz else None     # a whole check is what `verify rank` needs
    before = {id(c): check_key(c, limits, kept, testcases) for c in checks} if kept is not None else {}
    run_with_progress(runner, checks, limits, jobs, executor, testcases, cases)
    if kept is not None:
        stores = [results_cache(settings)] + ([ResultCache(results_dir)] if results_dir is not None else [])
        for entry_check in checks:
            key = check_key(entry_check, limits, kept, testcases)
            if key is not None and key == before[id(entry_check)]:    # files changed during the runs: not kept
                for store in stores:
                    store.store(key, entry_check)
        prune_cache(bound, settings.cache)
    named = isolation or runner.isolation       # the workers' differ: each result names its own
    for write_format, path in writes:
        write_output(path, check_report(checks, write_format, isolation=named) + "\n", f"{write_format} report")
    if html is not None:
        from verify.commands.site import write_site
        write_site(html, checks, captures, isolation=named)
    report = check_report(checks, fmt, failures_only=failures_only, compact=compact, width=width, colour=colour,
                          isolation=named)
    return report, 0 if checks and all(c.passed for c in checks) else 1
