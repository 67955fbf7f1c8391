"""``--html DIR``: the static site of a check, a rank or a tournament (:mod:`verify.site`).

A check with ``--html`` wraps each batch task so that a bounded copy of its output
(:class:`~verify.site.capture.OutputCapture`) is kept beside its judging, and the work a
case's page needs (its contest's presenter says which, such as a replay) is done as soon as
the case is judged (:mod:`verify.site.ahead`); after the runs the site is written from the
results, the cases and those copies."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat
from pathlib import Path

from verify import challenges
from verify.challenges.contract import BatchTask, Scoring, TestCase
from verify.commands.cache import ResultCache, check_key
from verify.commands.jobs import EntryCheck, load_checks, run_checks
from verify.commands.standings import entry_standing
from verify.entries import find_entries
from verify.files import FileRefused, make_output_folder, read_entry_file
from verify.golf import MAX_SOURCE_BYTES, rank_standings
from verify.grading import Runner
from verify.reports.isolation import differences_of, isolation_named
from verify.results import CheckResult
from verify.runner import Limits, cache_root
from verify.site import CaseRun, EntryPage, GolfBoard, OutputCapture, capturing, write_check_site
from verify.site.ahead import JobsAhead
from verify.verdict import Verdict

STANDING_THREADS = 4
CaptureMap = Mapping[tuple[int, str], OutputCapture]


class Captures(dict[tuple[int, str], OutputCapture]):
    """The output kept of each (check, case), and the pages' work being done from them."""

    def __init__(self) -> None:
        super().__init__()
        self.ahead = JobsAhead()


def prepare_site(folder: Path) -> Path:
    """The site folder, made before any work (one line and exit 2 when it cannot be)."""
    return make_output_folder(folder, "site")


def capture_outputs(checks: Sequence[EntryCheck]) -> Captures:
    """Wrap every batch task of ``checks`` so that its output is kept (bounded) for the site,
    and the work of a case's page is done as soon as the case is judged."""
    captures = Captures()
    for check in checks:
        judged = _replay_ahead(check, captures.ahead)
        for index, task in enumerate(check.tasks):
            if isinstance(task, BatchTask):
                capture = captures[(id(check), task.name)] = OutputCapture()
                check.tasks[index] = capturing(task, capture, judged.get(task.name))
    return captures


def _replay_ahead(check: EntryCheck, ahead: JobsAhead) -> dict[str, Callable[[OutputCapture, Verdict], None]]:
    """For each case of ``check`` (by name): what hands the work of its page to ``ahead`` once judged."""
    entry = check.entry
    presenter = entry.challenge.load_presenter() if entry is not None else None
    if entry is None or presenter is None:
        return {}
    options = entry.options

    def hand_over(case: TestCase) -> Callable[[OutputCapture, Verdict], None]:
        def judged(capture: OutputCapture, verdict: Verdict) -> None:
            job = presenter.case_job(options, case, verdict)
            if job is not None:
                ahead.submit(capture, job)
        return judged

    return {case.name: hand_over(case) for case in check.cases}


def _entry_page(check: EntryCheck, outcome: CheckResult, captures: CaptureMap, standing_score: str,
                isolation: str) -> EntryPage:
    entry = check.entry
    named = isolation_named((r.isolation for r in outcome.results), isolation)
    if entry is None:
        return EntryPage(check.label, check.label, "?", passed=False, why_not=outcome.why_not, error=outcome.error,
                         isolation=named, differences=differences_of(named))
    page = EntryPage(check.label, entry.name, entry.challenge.name, entry.options, entry.challenge.load_presenter(),
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
    page.runs = [CaseRun(result, cases.get(result.case), captures.get((id(check), result.case)))
                 for result in outcome.results]
    return page


def write_site(folder: Path, checks: Sequence[EntryCheck], captures: CaptureMap,
               outcomes: dict[int, CheckResult] | None = None, *, isolation: str) -> None:
    """Leaderboards of the code-golf contests among ``checks``, a page per entry, the replays
    (of the cases each check ran, its generated ones included); the index and every entry page
    name the isolation of the runs (``isolation`` where none ran) and which verdicts may differ."""
    outcomes = outcomes or {}
    boards, pages = [], []
    by_contest: dict[str, list[EntryCheck]] = {}
    for check in checks:
        name = check.entry.challenge.name if check.entry is not None else ""
        by_contest.setdefault(name, []).append(check)

    for name, group in by_contest.items():
        golf = bool(name) and challenges.get(name).scoring is Scoring.BYTES
        flag_rule = challenges.get(name).flag_rule if name else "penalty"
        with ThreadPoolExecutor(STANDING_THREADS) as pool:     # each asks git when the entry was added
            standings = rank_standings(list(pool.map(entry_standing, group, [outcomes.get(id(c), c) for c in group],
                                                     repeat(flag_rule))))
        scores = {s.label: (f"{s.score.total} ({s.score.source_bytes} bytes"
                            f"{' + flags ' + ' '.join(s.score.flags) if s.score.flags else ''})" if s.score else "")
                  for s in standings}
        if golf:
            boards.append(GolfBoard(name, challenges.get(name).title, standings))
        pages += [_entry_page(c, outcomes.get(id(c), c), captures, scores.get(c.label, ""), isolation)
                  for c in group]
    named = isolation_named((r.isolation for c in checks for r in outcomes.get(id(c), c).results), isolation)
    try:
        write_check_site(folder, boards, pages, isolation=named, differences=differences_of(named))
    finally:
        if isinstance(captures, Captures):
            captures.ahead.close()


def write_rank_site(folder: Path, runner: Runner, challenge: str | None, *, submissions: Path,
                    testcases: Path | None, jobs: int | None, limits: Limits, results: Path | None = None) -> None:
    """The site of ``verify rank --html``. The replays need each output, which the result cache
    does not keep: every entry runs again with its outputs captured (and its check is stored in
    the cache, so the leaderboard that follows reuses it). With ``results`` nothing runs: the
    checks come from that folder and the pages have no replays."""
    names = [challenge] if challenge is not None else [
        n for n in challenges.names() if challenges.get(n).scoring is Scoring.BYTES]
    checks = load_checks([p for name in names for p in find_entries(submissions, name)], testcases)
    outcomes: dict[int, CheckResult] = {}
    captures: CaptureMap = {}
    isolation = runner.isolation
    if results is not None:
        store = ResultCache(results)
        for check in checks:
            key = check_key(check, limits, isolation, testcases) if isolation is not None else None
            hit = store.load(key) if key is not None else None
            if hit is not None and hit.label == check.label:
                outcomes[id(check)] = hit
            elif check.error is None:
                outcomes[id(check)] = CheckResult(check.label, error=f"no result in {results} for the entry as it is")
    else:
        captures = capture_outputs(checks)
        run_checks(runner, checks, limits, jobs)
        cache = ResultCache(cache_root() / "results")
        for check in checks:
            key = check_key(check, limits, isolation, testcases) if isolation is not None else None
            if key is not None:
                cache.store(key, check)
    write_site(folder, checks, captures, outcomes, isolation=isolation)
