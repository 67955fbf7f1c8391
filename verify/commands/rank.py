"""``verify rank``: the code-golf leaderboards, from cached checks where nothing changed."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from verify import contests
from verify.commands.cache import ResultCache, check_key
from verify.commands.cache_admin import max_bytes, prune_cache
from verify.commands.check import results_cache, run_with_progress
from verify.commands.jobs import load_checks
from verify.commands.standings import entry_standing
from verify.contests.contract import Scoring
from verify.entries import find_entries
from verify.errors import VerifyError
from verify.golf import Standing, per_language, rank_standings
from verify.grading import Runner
from verify.reports.leaderboard import rank_report
from verify.results import CheckResult
from verify.runner import Limits
from verify.runner.languages import languages
from verify.settings import Settings


def code_golf_contests(contest: str | None) -> list[str]:
    if contest is None:
        return [n for n in contests.names() if contests.get(n).scoring is Scoring.BYTES]
    if contests.get(contest).scoring is not Scoring.BYTES:
        raise VerifyError(f"{contest} is not a code-golf contest (its leaderboard: verify koth {contest})")
    return [contest]


@dataclass
class Leaderboards:
    """The report of every contest ranked, and whether any entry is ranked at all."""

    report: str
    ranked: int


@dataclass(frozen=True)
class RankInputs:
    """What the entries are checked on, and how: ``results``, rank from the checks stored in
    that folder (``verify check --results-dir``, ``verify results merge``) and run nothing; an
    entry without a current result there is not ranked. ``fresh``: run every entry again."""

    submissions: Path
    testcases: Path | None
    jobs: int | None
    fresh: bool
    limits: Limits
    results: Path | None = None


def rank(runner: Runner, contest: str | None, inputs: RankInputs, *, settings: Settings, fmt: str,
         by: str = "bytes", languages_too: bool = False) -> Leaderboards:
    """``settings``: where the cache is, and its bound (settings.py).
    ``by``: "bytes" or "chars"; ``languages_too``: a board per language beside the overall one."""
    bound = max_bytes(settings.cache_max_mb)    # a bad $VERIFY_CACHE_MAX_MB: one line before anything runs
    language_names = {key: lang.name for key, lang in languages().items()}
    reports, ranked = [], 0
    for name in code_golf_contests(contest):
        standings = leaderboard(runner, name, inputs, by, settings=settings)
        ranked += sum(1 for s in standings if s.rank is not None)
        boards = per_language(standings, by) if languages_too else None
        reports.append(rank_report(name, standings, fmt, language_names, by=by, boards=boards,
                                   isolation=runner.isolation))
    if inputs.results is None:                  # checks were stored: keep the cache bounded, once
        prune_cache(bound, settings.cache)
    return Leaderboards("\n\n".join(reports), ranked)


def leaderboard(runner: Runner, contest: str, inputs: RankInputs, by: str = "bytes", *,
                settings: Settings) -> list[Standing]:
    """Check (or reuse the cached check of, in the settings' cache) every entry of `contest`, then rank them.
    An unchanged entry is not run again (see :mod:`verify.commands.cache`); --fresh runs all;
    with ``inputs.results`` nothing runs: the checks come from that folder."""
    submissions, testcases, jobs, fresh = inputs.submissions, inputs.testcases, inputs.jobs, inputs.fresh
    limits, results = inputs.limits, inputs.results
    checks = load_checks(find_entries(submissions, contest), testcases)
    cache = ResultCache(results) if results is not None else results_cache(settings)
    keys = [check_key(c, limits, runner.isolation, testcases) for c in checks]
    outcomes: dict[int, CheckResult] = {}      # by the check's place among `checks`
    for position, (check, key) in enumerate(zip(checks, keys, strict=True)):
        hit = None if (fresh and results is None) or key is None else cache.load(key)
        if hit is not None and hit.label == check.label:
            outcomes[position] = hit
        elif results is not None and check.error is None:
            outcomes[position] = CheckResult(check.label, error=f"no result in {results} for the entry as it is "
                                             "(not checked with these limits and isolation, or changed since)")
        elif results is not None:
            outcomes[position] = CheckResult(check.label, error=check.error)
    if results is None:
        todo = [position for position in range(len(checks)) if position not in outcomes]
        ran = run_with_progress(runner, [checks[p] for p in todo], limits, jobs)
        for position, outcome in zip(todo, ran, strict=True):
            key = keys[position]
            # kept only when the files it was checked from are still the ones the key names
            if key is not None and check_key(checks[position], limits, runner.isolation, testcases) == key:
                cache.store(key, outcome)
            outcomes[position] = outcome
    flag_rule = contests.get(contest).flag_rule
    standings = [entry_standing(check, outcomes[position], flag_rule) for position, check in enumerate(checks)]
    return rank_standings(standings, by)
