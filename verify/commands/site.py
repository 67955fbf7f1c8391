"""``--html DIR``: the static site of a check, a rank or a tournament (:mod:`verify.site`).

A check with ``--html`` is watched by a :class:`SiteCapture` (an observer of its jobs,
:mod:`verify.pipeline.observe`): each batch task runs with a bounded copy of its output
(:class:`~verify.site.capture.OutputCapture`) kept beside its judging, and the work a case's
page needs (its contest's presenter says which, such as a replay) is done as soon as the
case is judged (:mod:`verify.site.ahead`); after the runs the site is written from the
plan, the results and those copies."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat
from pathlib import Path

from verify import contests
from verify.commands.cache import ResultCache, check_key
from verify.commands.jobs import EntryCheck, load_checks, run_checks
from verify.commands.standings import entry_standing
from verify.contests.contract import BatchTask, Scoring, TestCase
from verify.entries import find_entries
from verify.files import FileRefused, make_output_folder, read_entry_file
from verify.golf import MAX_SOURCE_BYTES, rank_standings
from verify.grading import Runner
from verify.pipeline.observe import Observer
from verify.pipeline.plan import Job
from verify.reports.isolation import differences_of, isolation_named
from verify.results import CheckResult
from verify.runner import Limits, cache_root
from verify.site import CaseRun, EntryPage, GolfBoard, OutputCapture, capturing, write_check_site
from verify.site.ahead import JobsAhead
from verify.verdict import Verdict

STANDING_THREADS = 4
Judged = Callable[[OutputCapture, Verdict], None]


def prepare_site(folder: Path) -> Path:
    """The site folder, made before any work (one line and exit 2 when it cannot be)."""
    return make_output_folder(folder, "site")


class SiteCapture(Observer):
    """Watches a check's jobs: each batch task of an entry (at its place in the plan) runs with
    its output kept, bounded, for the site; the work of its case's page starts once judged."""

    def __init__(self) -> None:
        self.outputs: dict[tuple[int, str], OutputCapture] = {}
        self.ahead = JobsAhead()
        self._judged: dict[int, dict[str, Judged]] = {}

    def task(self, position: int, check: EntryCheck, task: Job) -> Job:
        if not isinstance(task, BatchTask):
            return task
        if position not in self._judged:
            self._judged[position] = _replay_ahead(check, self.ahead)
        capture = self.outputs[(position, task.name)] = OutputCapture()
        return capturing(task, capture, self._judged[position].get(task.name))

    def output(self, position: int, case: str) -> OutputCapture | None:
        """The output kept of that case of the entry at ``position`` in the plan."""
        return self.outputs.get((position, case))

    def close(self) -> None:
        self.ahead.close()


def _replay_ahead(check: EntryCheck, ahead: JobsAhead) -> dict[str, Judged]:
    """For each case of ``check`` (by name): what hands the work of its page to ``ahead`` once judged."""
    entry = check.entry
    presenter = entry.contest.load_presenter() if entry is not None else None
    if entry is None or presenter is None:
        return {}
    options = entry.options

    def hand_over(case: TestCase) -> Judged:
        def judged(capture: OutputCapture, verdict: Verdict) -> None:
            job = presenter.case_job(options, case, verdict)
            if job is not None:
                ahead.submit(capture, job)
        return judged

    return {case.name: hand_over(case) for case in check.cases}


def _entry_page(position: int, check: EntryCheck, outcome: CheckResult, captures: SiteCapture | None,
                standing_score: str, isolation: str) -> EntryPage:
    entry = check.entry
    named = isolation_named((r.isolation for r in outcome.results), isolation)
    if entry is None:
        return EntryPage(check.label, check.label, "?", passed=False, why_not=outcome.why_not, error=outcome.error,
                         isolation=named, differences=differences_of(named))
    page = EntryPage(check.label, entry.name, entry.contest.name, entry.options, entry.contest.load_presenter(),
                     language=entry.language or "",
                     score=standing_score, passed=outcome.passed, why_not="" if outcome.passed else outcome.why_not,
                     error=outcome.error, isolation=named, differences=differences_of(named))
    if entry.source is not None:
        try:            # as the score reads it: inside the entry's folder, bounded
            data = read_entry_file(entry.folder, str(entry.source.relative_to(entry.folder)), MAX_SOURCE_BYTES)
        except (FileRefused, ValueError) as error:
            page.error = page.error or f"the source cannot be shown: {error}"
        else:
            page.source_bytes = len(data)
            page.source = data.decode("utf-8", "replace")
            page.source_name = entry.source.name
    cases = {case.name: case for case in check.cases}
    page.runs = [CaseRun(result, cases.get(result.case),
                         captures.output(position, result.case) if captures is not None else None)
                 for result in outcome.results]
    return page


def write_site(folder: Path, checks: Sequence[EntryCheck], outcomes: Sequence[CheckResult],
               captures: SiteCapture | None, *, isolation: str) -> None:
    """Leaderboards of the code-golf contests among ``checks`` (each with its result in
    ``outcomes``: its own run or a stored one), a page per entry, the replays (of the cases each
    check ran, its generated ones included, from ``captures``); the index and every entry page
    name the isolation of the runs (``isolation`` where none ran) and which verdicts may differ."""
    boards, pages = [], []
    by_contest: dict[str, list[int]] = {}
    for position, check in enumerate(checks):
        name = check.entry.contest.name if check.entry is not None else ""
        by_contest.setdefault(name, []).append(position)

    for name, group in by_contest.items():
        golf = bool(name) and contests.get(name).scoring is Scoring.BYTES
        flag_rule = contests.get(name).flag_rule if name else "penalty"
        with ThreadPoolExecutor(STANDING_THREADS) as pool:     # each asks git when the entry was added
            standings = rank_standings(list(pool.map(entry_standing, [checks[p] for p in group],
                                                     [outcomes[p] for p in group], repeat(flag_rule))))
        scores = {s.label: (f"{s.score.total} ({s.score.source_bytes} bytes"
                            f"{' + flags ' + ' '.join(s.score.flags) if s.score.flags else ''})" if s.score else "")
                  for s in standings}
        if golf:
            boards.append(GolfBoard(name, contests.get(name).title, standings))
        pages += [_entry_page(p, checks[p], outcomes[p], captures, scores.get(checks[p].label, ""), isolation)
                  for p in group]
    named = isolation_named((r.isolation for outcome in outcomes for r in outcome.results), isolation)
    try:
        write_check_site(folder, boards, pages, isolation=named, differences=differences_of(named))
    finally:
        if captures is not None:
            captures.close()


def write_rank_site(folder: Path, runner: Runner, contest: str | None, *, submissions: Path,
                    testcases: Path | None, jobs: int | None, limits: Limits, results: Path | None = None) -> None:
    """The site of ``verify rank --html``. The replays need each output, which the result cache
    does not keep: every entry runs again with its outputs captured (and its check is stored in
    the cache, so the leaderboard that follows reuses it). With ``results`` nothing runs: the
    checks come from that folder and the pages have no replays."""
    names = [contest] if contest is not None else [
        n for n in contests.names() if contests.get(n).scoring is Scoring.BYTES]
    checks = load_checks([p for name in names for p in find_entries(submissions, name)], testcases)
    isolation = runner.isolation
    if results is not None:
        store = ResultCache(results)
        outcomes: list[CheckResult] = []
        for check in checks:
            key = check_key(check, limits, isolation, testcases) if isolation is not None else None
            hit = store.load(key) if key is not None else None
            if hit is not None and hit.label == check.label:
                outcomes.append(hit)
            elif check.error is None:
                outcomes.append(CheckResult(check.label, error=f"no result in {results} for the entry as it is"))
            else:
                outcomes.append(CheckResult(check.label, error=check.error))
        write_site(folder, checks, outcomes, None, isolation=isolation)
        return
    capture = SiteCapture()
    ran = run_checks(runner, checks, limits, jobs, observers=[capture])
    cache = ResultCache(cache_root() / "results")
    for check, outcome in zip(checks, ran, strict=True):
        key = check_key(check, limits, isolation, testcases) if isolation is not None else None
        if key is not None:
            cache.store(key, outcome)
    write_site(folder, checks, ran, capture, isolation=isolation)
