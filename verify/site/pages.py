"""The site's pages: the index (leaderboards), a page per entry, a replay page per case or match.

The site is generic: what a contest shows beyond its verdicts (a case's replay, a tournament's
board and its match pages) comes from the contest's presenter
(:class:`~verify.contests.contract.Presenter`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify.contests.contract import Page, Presenter, TestCase
from verify.golf import Standing
from verify.results import CaseResult
from verify.runner.languages import languages
from verify.site.ahead import done
from verify.site.capture import OutputCapture
from verify.site.render import Site, slug


@dataclass
class CaseRun:
    """One case of an entry: its result, the case, and the output kept (None: not captured)."""

    result: CaseResult
    case: TestCase | None = None
    capture: OutputCapture | None = None


@dataclass
class EntryPage:
    label: str
    name: str
    contest: str
    options: Any = None
    presenter: Presenter | None = None      # the contest's: its replay pages
    language: str = ""
    score: str = ""
    source_name: str = ""
    source: str | None = None
    source_bytes: int = 0
    passed: bool = False
    why_not: str = ""
    error: str | None = None
    runs: list[CaseRun] = field(default_factory=list)
    isolation: str = ""             # what its runs had (or would have had)
    differences: str = ""           # which of its verdicts may differ from a judge with a cgroup per run


@dataclass
class GolfBoard:
    name: str
    title: str
    standings: list[Standing]


def _golf_rows(board: GolfBoard, pages: dict[str, str]) -> list[dict[str, Any]]:
    names = {key: language.name for key, language in languages().items()}
    rows = []
    for standing in board.standings:
        score = standing.score
        rows.append({"rank": standing.rank, "name": standing.name,
                     "language": names.get(standing.language, standing.language),
                     "bytes": score.source_bytes if score else "", "flags": " ".join(score.flags) if score else "",
                     "score": score.total if score else "", "cases": standing.cases,
                     "why_not": standing.why_not, "page": pages.get(standing.label, "#")})
    return rows


def write_check_site(folder: Path, boards: list[GolfBoard], entries: list[EntryPage],
                     tournament: tuple[Presenter, Any] | None = None, *, isolation: str = "",
                     differences: str = "") -> Site:
    """The site of a check or a rank: leaderboards, entry pages, replays of the captured cases.
    The index names `isolation` (the runs') and, when there are some, its `differences` (which
    verdicts may differ from a judge with a cgroup per run)."""
    presenters = [e.presenter for e in entries if e.presenter is not None] + ([tournament[0]] if tournament else [])
    site = Site(folder, presenters)
    pages = {entry.label: _write_entry(site, entry) for entry in entries}
    golf = [{"name": b.name, "title": b.title, "rows": _golf_rows(b, pages)} for b in boards]
    ranked = {standing.label for board in boards for standing in board.standings}
    others = [{"name": e.name, "contest": e.contest, "page": pages[e.label], "passed": e.passed,
               "why_not": e.error or e.why_not} for e in entries if e.label not in ranked]
    koth = [board for board in [_tournament_board(site, *tournament)] if board is not None] if tournament else []
    site.write("index.html", "index.html", golf=golf, koth=koth, others=others, isolation=isolation,
               differences=differences)
    return site


def write_koth_site(folder: Path, presenter: Presenter, tournament: Any, *, isolation: str = "",
                    differences: str = "") -> Site:
    """The site of a tournament: its board (by the contest's ``presenter``) and its match pages."""
    return write_check_site(folder, [], [], (presenter, tournament), isolation=isolation, differences=differences)


# ------------------------------------------------------------------ entries and cases

def _write_entry(site: Site, entry: EntryPage) -> str:
    entry_slug = slug(entry.label)
    cases = []
    for run in entry.runs:
        result = run.result
        page = _write_replay(site, entry, run, entry_slug)
        cases.append({"name": result.case, "passed": result.passed, "status": str(result.verdict.status),
                      "message": result.verdict.message, "time": result.time, "memory": result.memory,
                      "page": f"../{page}" if page else None})
    values = {"label": entry.label, "name": entry.name, "contest": entry.contest, "language": entry.language,
              "score": entry.score, "source": entry.source, "source_name": entry.source_name,
              "source_bytes": entry.source_bytes, "passed": entry.passed, "why_not": entry.why_not,
              "error": entry.error, "cases": cases, "isolation": entry.isolation, "differences": entry.differences}
    return site.write(f"entries/{entry_slug}.html", "entry.html", entry=values)


def _verdict_values(result: CaseResult, title: str, back: str, back_name: str) -> dict[str, Any]:
    verdict = result.verdict
    return {"title": title, "back": back, "back_name": back_name, "passed": result.passed,
            "status": str(verdict.status), "message": verdict.message, "detail": verdict.detail}


def _write_replay(site: Site, entry: EntryPage, run: CaseRun, entry_slug: str) -> str | None:
    presenter = entry.presenter
    if presenter is None or run.capture is None or run.case is None:
        return None
    verdict = run.result.verdict
    job = presenter.case_job(entry.options, run.case, verdict)
    built = done(run.capture, job) if job is not None else None
    page = presenter.case_page(entry.options, run.case, verdict, run.capture, built)
    if page is None:
        return None
    relative = f"replays/{entry_slug}/{slug(run.result.case)}.html"
    values = _verdict_values(run.result, f"{entry.name}: {run.result.case}", f"../../entries/{entry_slug}.html",
                             entry.name)
    return site.write(relative, page.template, **{**page.values, **values})


# ------------------------------------------------------------------ tournaments

class _Places:
    """Where a presenter's extra pages go: ``folder/<slug of name>.html``."""

    def __init__(self, site: Site):
        self.site = site

    def place(self, folder: str, name: str, page: Page) -> str:
        return self.site.write(f"{folder}/{slug(name)}.html", page.template, **page.values)


def _tournament_board(site: Site, presenter: Presenter, result: Any) -> Page | None:
    return presenter.tournament_board(result, _Places(site))
