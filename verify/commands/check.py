"""``verify check``: plan the entries' checks, execute the plan watched by observers (the
progress line, the site's capture, ``--fail-fast``), report, and keep each whole check for
``verify rank``."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from verify.commands.cache import ResultCache, check_key
from verify.commands.cache_admin import max_bytes, prune_cache
from verify.commands.changes import changed_files, repository_root, touched
from verify.commands.jobs import CheckedEntry, EntryCheck, load_checks, run_checks
from verify.commands.progress import Progress
from verify.entries import find_entries
from verify.errors import VerifyError
from verify.files import make_output_folder, write_output
from verify.grading import Runner
from verify.grading.executor import Executor
from verify.pipeline.observe import FailFast, Observer
from verify.pipeline.outcome import slowest_accepted
from verify.reports.checks import CheckView, check_report
from verify.runner import Limits
from verify.settings import Settings


@dataclass(frozen=True)
class CheckOptions:
    """What ``verify check`` is asked for, beyond the entries.

    ``fmt``: the printed report's format; ``writes``: (format, path) pairs, more reports written
    to files. ``cases``: shell patterns keeping only the cases they name. ``results_dir``: each
    whole check is also stored there (a shard for ``verify results merge`` / ``rank
    --results``). ``failures_only``, ``compact``, ``width``, ``colour``: how the printed report
    looks (:func:`verify.reports.checks.check_report`). ``html``: also write the static site
    there (:mod:`verify.commands.site`). ``fuzz``: that many generated inputs more per entry
    (:mod:`verify.fuzz.cases`; run here only, not on a cluster's workers). ``fail_fast``: an
    entry's cases not started when one of its cases fails are not run (reported as skipped)."""

    limits: Limits = Limits()
    jobs: int | None = None
    fmt: str = "table"
    testcases: Path | None = None
    cases: tuple[str, ...] = ()
    writes: tuple[tuple[str, Path], ...] = ()
    results_dir: Path | None = None
    failures_only: bool = False
    compact: bool = False
    width: int | None = None
    colour: bool = False
    html: Path | None = None
    fuzz: int = 0
    fail_fast: bool = False

    @property
    def whole(self) -> bool:
        """Whether each entry's check is whole (every case, run to the end): what `verify rank` needs."""
        return not self.cases and not self.fuzz and not self.fail_fast


def results_cache(settings: Settings) -> ResultCache:
    """Where whole checks are kept for ``verify rank``: the settings' cache."""
    return ResultCache(settings.cache / "results")


def run_with_progress(runner: Runner, checks: Sequence[EntryCheck], limits: Limits, jobs: int | None,
                      executor: Executor | None = None, testcases: Path | None = None,
                      cases: Sequence[str] = (), observers: Sequence[Observer] = ()) -> list[CheckedEntry]:
    """The checks run with the progress line on a terminal, and ``observers`` watching too."""
    progress = Progress(workers=executor.workers if executor is not None else None)
    try:
        return run_checks(runner, checks, limits, jobs, observers=[progress, *observers], executor=executor,
                          testcases=testcases, case_patterns=cases)
    finally:
        progress.close()


def _keep(checks: Sequence[EntryCheck], checked: Sequence[CheckedEntry], before: Sequence[str | None], kept: str,
          options: CheckOptions, settings: Settings) -> None:
    """Each whole check kept for ``verify rank`` (and in ``--results-dir``), under its key as
    it was before the runs: files changed during the runs, it is not kept."""
    stores = [results_cache(settings)] + ([ResultCache(options.results_dir)] if options.results_dir else [])
    for planned, outcome, key_before in zip(checks, checked, before, strict=True):
        key = check_key(planned, options.limits, kept, options.testcases)
        if key is not None and key == key_before:
            for store in stores:
                store.store(key, outcome)


def changed_entries(paths: Sequence[Path], ref: str) -> list[Path]:
    """The entries among ``paths`` (none: every entry under ./submissions) that a change since
    ``ref`` touched (:mod:`verify.commands.changes`)."""
    candidates = list(paths) or find_entries(Path("submissions"))
    changed = changed_files(repository_root(Path.cwd()), ref)
    return [path for path in candidates if touched(Path(path), changed)]


def check(runner: Runner, paths: Sequence[Path], options: CheckOptions, *, settings: Settings,
          executor: Executor | None = None) -> tuple[str, int]:
    """The report, and the exit code: 0 when every case of every entry is accepted.

    ``settings``: where the cache is, and its bound (settings.py). ``executor``: where the runs
    go (None: threads here; a cluster: see docs/cluster.md)."""
    bound = max_bytes(settings.cache_max_mb)    # a bad $VERIFY_CACHE_MAX_MB: one line before anything runs
    if options.results_dir is not None:
        make_output_folder(options.results_dir, "results")
    if options.html is not None:
        from verify.commands.site import prepare_site
        prepare_site(options.html)
    if options.fuzz and executor is not None:
        raise VerifyError("--fuzz runs on this machine only: the workers of a cluster cannot re-create fuzzed cases")
    if options.fail_fast and executor is not None:
        raise VerifyError("--fail-fast runs on this machine only: a cluster's workers cannot see an entry's "
                          "failure in time to skip its other cases")
    limits, testcases = options.limits, options.testcases
    checks = load_checks(paths, testcases, options.cases, options.fuzz)
    observers: list[Observer] = [FailFast()] if options.fail_fast else []
    capture = None
    # outputs are kept where they are judged: here, not on a cluster's workers (no replays then)
    if options.html is not None and executor is None:
        from verify.commands.site import SiteCapture
        capture = SiteCapture()
        observers.append(capture)
    isolation = runner.isolation if executor is None else executor.isolation(runner.isolation)
    kept = isolation if options.whole else None
    before = [check_key(c, limits, kept, testcases) if kept is not None else None for c in checks]
    checked = run_with_progress(runner, checks, limits, options.jobs, executor, testcases, options.cases,
                                observers)
    if kept is not None:
        _keep(checks, checked, before, kept, options, settings)
        prune_cache(bound, settings.cache)
    named = isolation or runner.isolation       # the workers' differ: each result names its own
    skipped = [c.skipped for c in checked] if options.fail_fast else None
    slowest = slowest_accepted(checked, limits)
    for write_format, path in options.writes:
        write_output(path, check_report(checked, write_format, CheckView(isolation=named, skipped=skipped,
                                                                          slowest=slowest)) + "\n",
                     f"{write_format} report")
    if options.html is not None:
        from verify.commands.site import write_site
        write_site(options.html, checks, checked, capture, isolation=named)
    view = CheckView(failures_only=options.failures_only, compact=options.compact, width=options.width,
                     colour=options.colour, isolation=named, skipped=skipped, slowest=slowest)
    report = check_report(checked, options.fmt, view)
    return report, 0 if checked and all(c.passed for c in checked) else 1
