"""Reports of checks: table, JSON, JUnit XML, Markdown (the registry: :mod:`verify.reports.formats`).

Two tables: the full one (one row per case, byte-stable: what a pipe or a script reads) and,
on a terminal (``compact=True``), one line per entry with its failing cases in full below it,
details wrapped to the terminal's width and verdicts coloured when asked. ``failures_only``
keeps only what failed, and the summary line. A compile error is shown once per entry in the
terminal table and in Markdown (people read them); JSON and JUnit keep every case.

Every format names the isolation of the runs (the one they would have had when none ran), and
says which verdicts may differ from a judge with a cgroup per run where some may
(:mod:`verify.reports.isolation`): the summary line and a line below it, JSON's ``isolation``
and ``differences`` fields, JUnit properties of each suite.

A ``--fail-fast`` check lists the cases it did not run in every format (a row marked
skipped in the tables, JSON's ``fail_fast`` and each entry's ``skipped``, JUnit's
``<skipped>`` cases and the suite's ``skipped`` count); the table and Markdown end with
the accepted run that came closest to its time limit.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from verify.report_escape import markdown, one_line, xml_text
from verify.reports.colour import paint_status
from verify.reports.formats import CHECK, render
from verify.reports.isolation import differences_line, isolation_fields, isolation_named
from verify.reports.text_table import padded, table, width, wrap
from verify.results import CaseResult, CheckResult
from verify.sizes import size
from verify.verdict import Status

DETAIL_WIDTH = 90
WRAPPED_DETAIL = 600          # a terminal's detail, wrapped: at most this many characters
HEADERS = ["entry", "case", "verdict", "time", "memory", "detail"]
COMPACT_HEADERS = ["entry", "verdict", "cases", "time", "memory", "detail"]


def _detail(result: CaseResult, limit: int = DETAIL_WIDTH) -> str:
    verdict = result.verdict
    text = verdict.message or ""
    if verdict.warnings:
        text = "; ".join(filter(None, [text, *("warning: " + w for w in verdict.warnings)]))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _verdict_cell(result: CaseResult) -> str:
    return result.verdict.status.short + " " + str(result.verdict.status) if not result.passed else "AC"


def _entry_error(check: CheckResult) -> str:
    """The entry's error without its label in front (the row already names the entry)."""
    error = check.error or ""
    return error[len(check.label) + 2:] if error.startswith(check.label + ": ") else error


def _grouped(check: CheckResult, collapse: bool) -> Iterator[tuple[CaseResult, int]]:
    """The check's results, each with how many cases it stands for: with ``collapse``, the cases
    that failed with one same compile error are one, at the place of the first."""
    if not collapse:
        yield from ((r, 1) for r in check.results)
        return
    errors: dict[str, int] = {}
    for result in check.results:
        if result.verdict.status is Status.COMPILE_ERROR:
            errors[result.verdict.message] = errors.get(result.verdict.message, 0) + 1
    shown: set[str] = set()
    for result in check.results:
        message = result.verdict.message
        if result.verdict.status is not Status.COMPILE_ERROR or errors[message] == 1:
            yield result, 1
        elif message not in shown:
            shown.add(message)
            yield result, errors[message]


def _cases_covered(count: int, total: int) -> str:
    return f"all {count} cases" if count == total else f"{count} cases"


def _rows(checks: Sequence[tuple[int, CheckResult]], cell: Callable[[str], str], view: CheckView, *,
          collapse: bool = False) -> list[list[str]]:
    """The check table's rows (each check with its index among the report's); ``cell`` escapes
    the text an entry controls for the format; ``collapse``: one row per entry for a compile
    error; the view's ``failures_only``: failing rows only; its ``skipped``: a row per case not run."""
    rows = []
    for index, check in checks:
        if check.error and not check.results:
            rows.append([cell(check.label), "-", paint_status("error", None, view.colour), "", "", cell(check.error)])
        for result, count in _grouped(check, collapse):
            if view.failures_only and result.passed:
                continue
            verdict = paint_status(_verdict_cell(result), result.verdict.status, view.colour)
            if count > 1:
                rows.append([cell(check.label), cell(_cases_covered(count, len(check.results))), verdict, "", "",
                             cell(_detail(result))])
                continue
            rows.append([cell(check.label), cell(result.case), verdict,
                         f"{result.time:.2f}s", size(result.memory) if result.memory else "", cell(_detail(result))])
        rows.extend([cell(check.label), cell(name), "skipped", "", "", SKIPPED] for name in view.skipped_of(index))
    return rows


def report_isolation(checks: Sequence[CheckResult], isolation: str = "") -> str:
    """The isolations the results name, else `isolation` (the one the runs would have had)."""
    return isolation_named((r.isolation for c in checks for r in c.results), isolation)


def summary(checks: Sequence[CheckResult], isolation: str = "") -> str:
    """``N/M entries passed; a/b cases accepted (isolation: NAME)``; `isolation`: the one the
    runs would have had, named when no result names one (nothing ran)."""
    results = [r for c in checks for r in c.results]
    passed = sum(r.passed for r in results)
    entries_ok = sum(c.passed for c in checks)
    named = report_isolation(checks, isolation)
    line = (f"{entries_ok}/{len(checks)} entries passed; {passed}/{len(results)} cases accepted")
    return line + (f" (isolation: {named})" if named else "")


def _footer(checks: Sequence[CheckResult], view: CheckView) -> list[str]:
    """The summary line, below it which verdicts may differ where some may, how many cases
    --fail-fast skipped, and the slowest accepted case."""
    isolation = view.isolation
    return [one_line(summary(checks, isolation)),
            *map(one_line, [*differences_line(report_isolation(checks, isolation)), *view.skipped_line(),
                            *view.slowest_line()])]


def _table(rows: list, layout: str) -> str:
    return table(rows, HEADERS, layout)


@dataclass(frozen=True)
class SlowestCase:
    """The accepted run that came closest to its wall-time limit."""

    label: str
    case: str
    time: float
    limit: float

    def line(self) -> str:
        return (f"slowest accepted case: {self.label} {self.case} {self.time:.2f} s of {self.limit:g} s "
                f"({100 * self.time / self.limit:.0f} %)")


@dataclass(frozen=True)
class CheckView:
    """How a check's report is written (each format reads what it shows).

    ``isolation``: the one the runs had or would have had (named when no result names one).
    ``compact`` (stdout is a terminal): the table is one line per entry, failing cases below
    their entry, details wrapped to ``width`` columns; ``failures_only``: the table and Markdown
    show only what failed, and the summary line; ``colour``: verdicts coloured in the table.
    ``skipped`` (``--fail-fast``: None otherwise): for each check, the cases it did not run.
    ``slowest``: the table and Markdown end with how close it came to its time limit."""

    failures_only: bool = False
    compact: bool = False
    width: int | None = None
    colour: bool = False
    isolation: str = ""
    skipped: Sequence[Sequence[str]] | None = None
    slowest: SlowestCase | None = None

    def skipped_of(self, index: int) -> Sequence[str]:
        return self.skipped[index] if self.skipped is not None else ()

    def skipped_line(self) -> list[str]:
        """The line saying how many cases ``--fail-fast`` did not run (none without it)."""
        if self.skipped is None:
            return []
        count = sum(len(names) for names in self.skipped)
        return [f"--fail-fast: {count} case{'' if count == 1 else 's'} skipped (not run after "
                "their entry's first failing case)"]

    def slowest_line(self) -> list[str]:
        return [self.slowest.line()] if self.slowest is not None else []


SKIPPED = "not run: --fail-fast stopped the entry at its first failing case"


def check_report(checks: Sequence[CheckResult], fmt: str, view: CheckView | None = None) -> str:
    """The report of ``checks`` in ``fmt``, a format of the registry (:mod:`verify.reports.formats`),
    as ``view`` shows it (None: the default view). JSON and JUnit ignore its ``failures_only``,
    ``compact``, ``colour`` and ``slowest``."""
    return render(CHECK, fmt, checks, view if view is not None else CheckView())


def json_report(checks: Sequence[CheckResult], view: CheckView) -> str:
    entries = []
    for index, check in enumerate(checks):
        data = check.to_dict()
        if view.skipped is not None:
            data["skipped"] = list(view.skipped_of(index))
        entries.append(data)
    fail_fast = {"fail_fast": True} if view.skipped is not None else {}
    return json.dumps({"passed": all(c.passed for c in checks), "summary": summary(checks, view.isolation),
                       **fail_fast, **isolation_fields(report_isolation(checks, view.isolation)),
                       "entries": entries}, indent=2)


def markdown_report(checks: Sequence[CheckResult], view: CheckView) -> str:
    named = report_isolation(checks, view.isolation)
    shown = [(i, c) for i, c in enumerate(checks) if not view.failures_only or not c.passed]
    rows = _rows(shown, markdown, replace(view, colour=False), collapse=True)
    line = "\n\n".join([f"**{markdown(summary(checks, view.isolation))}**",
                         *map(markdown, [*differences_line(named), *view.skipped_line(), *view.slowest_line()])])
    if view.failures_only and not rows:
        return line
    return f"{_table(rows, 'github')}\n\n{line}"


def table_report(checks: Sequence[CheckResult], view: CheckView) -> str:
    if view.compact:
        return _compact(checks, view)
    footer = _footer(checks, view)
    if view.failures_only:
        rows = _rows([(i, c) for i, c in enumerate(checks) if not c.passed], one_line, view)
        table = _table(rows, "simple") + "\n\n" if rows else ""
        return table + "\n".join(footer)
    failing = [f"  {one_line(c.error)}" if c.error and c.error.startswith(c.label)
               else f"  {one_line(c.label)}: {one_line(c.why_not)}" for c in checks if not c.passed]
    lines = footer + (["failed:", *failing] if failing else [])
    table = _table(_rows(list(enumerate(checks)), one_line, view), "simple")
    return f"{table}\n\n" + "\n".join(lines)


def _memory(value: int) -> str:
    return size(value) if value else "-"


def _compact_rows(checks: Sequence[CheckResult], view: CheckView,
                  detail_limit: int) -> list[tuple[list[str], Status | None, bool]]:
    """(cells, status of the verdict cell, is an entry line) for the terminal table."""
    rows: list[tuple[list[str], Status | None, bool]] = []
    for index, check in enumerate(checks):
        if view.failures_only and check.passed:
            continue
        if check.error and not check.results:
            rows.append(([one_line(check.label), "error", "-", "-", "-", one_line(_entry_error(check))], None, True))
            continue
        results = check.results
        failed = [r for r in results if not r.passed]
        status = failed[0].verdict.status if failed else Status.ACCEPTED
        detail = one_line(_entry_error(check)) if check.error else ""
        rows.append(([one_line(check.label), status.short, f"{len(results) - len(failed)}/{len(results)}",
                      f"{sum(r.time for r in results):.2f}s", _memory(max((r.memory for r in results), default=0)),
                      detail], status, True))
        for result, count in _grouped(check, collapse=True):
            if result.passed:
                continue
            if count > 1:
                rows.append(([f"  {_cases_covered(count, len(results))}", result.verdict.status.short, "", "", "",
                              one_line("compile error: " + result.verdict.message)], result.verdict.status, False))
                continue
            rows.append(([f"  {one_line(result.case)}", result.verdict.status.short, "", f"{result.time:.2f}s",
                          _memory(result.memory), one_line(_detail(result, detail_limit))],
                         result.verdict.status, False))
        skipped = view.skipped_of(index)
        if skipped:
            rows.append(([f"  {len(skipped)} case{'' if len(skipped) == 1 else 's'} skipped", "-", "", "", "",
                          SKIPPED], None, False))
    return rows


def _compact(checks: Sequence[CheckResult], view: CheckView) -> str:
    """One line per entry (cases passed/total, total time, worst memory), its failing cases below."""
    terminal, colour = view.width, view.colour
    rows = _compact_rows(checks, view, WRAPPED_DETAIL if terminal else DETAIL_WIDTH)
    footer = "\n".join(_footer(checks, view))
    if not rows:
        return footer
    grid = [COMPACT_HEADERS, *(cells for cells, _, _ in rows)]
    widths = [max(width(cells[i]) for cells in grid) for i in range(len(COMPACT_HEADERS) - 1)]
    indent = sum(widths) + 2 * len(widths)
    room = max(24, terminal - indent) if terminal else None
    lines = []
    for index, cells in enumerate(grid):
        status = rows[index - 1][1] if index else Status.ACCEPTED
        shown = [padded(cell, w) for cell, w in zip(cells, widths, strict=False)]
        if index:
            shown[1] = paint_status(shown[1], status, colour)
        detail = cells[-1]
        parts = wrap(detail, room) if room and detail else [detail]
        lines.append(("  ".join([*shown, parts[0]])).rstrip())
        lines.extend(" " * indent + part for part in parts[1:])
        if not index:
            lines.append("  ".join("-" * w for w in [*widths, max(len(COMPACT_HEADERS[-1]), 6)]))
    return "\n".join(lines) + "\n\n" + footer


def junit_report(checks: Sequence[CheckResult], view: CheckView) -> str:
    """JUnit XML, valid whatever the entries printed: every text goes through ``xml_text``.
    Each suite's properties name the isolation, and which verdicts may differ where some may;
    a case --fail-fast did not run is a test case marked skipped."""
    from xml.etree import ElementTree  # only for this format: the others start faster
    isolation = report_isolation(checks, view.isolation)
    suites = ElementTree.Element("testsuites")
    properties = {name: value for name, value in isolation_fields(isolation).items() if value}
    for index, check in enumerate(checks):
        failures = sum(not r.passed for r in check.results) + (1 if check.error else 0)
        skipped = view.skipped_of(index)
        label = xml_text(check.label)
        attributes = {"name": label, "tests": str(len(check.results) + len(skipped) or 1), "failures": str(failures)}
        if view.skipped is not None:
            attributes["skipped"] = str(len(skipped))
        attributes["time"] = f"{sum(r.time for r in check.results):.3f}"
        suite = ElementTree.SubElement(suites, "testsuite", attributes)
        if properties:
            listed = ElementTree.SubElement(suite, "properties")
            for name, value in properties.items():
                ElementTree.SubElement(listed, "property", name=name, value=xml_text(value))
        if check.error:
            case = ElementTree.SubElement(suite, "testcase", classname=label, name="entry")
            ElementTree.SubElement(case, "failure", message=xml_text(check.error), type="error")
        for result in check.results:
            case = ElementTree.SubElement(suite, "testcase", classname=label, name=xml_text(result.case),
                                          time=f"{result.time:.3f}")
            if not result.passed:
                failure = ElementTree.SubElement(case, "failure", message=xml_text(result.verdict.message),
                                                 type=str(result.verdict.status))
                failure.text = xml_text(result.verdict.detail)
        for name in skipped:
            case = ElementTree.SubElement(suite, "testcase", classname=label, name=xml_text(name), time="0.000")
            ElementTree.SubElement(case, "skipped", message=SKIPPED)
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode")
