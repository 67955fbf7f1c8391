"""Reports of checks: table, JSON, JUnit XML, Markdown (see :mod:`verify.reports`)."""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from xml.etree import ElementTree

from tabulate import tabulate

from verify.report_escape import markdown, one_line, xml_text
from verify.results import CaseResult, CheckResult
from verify.sizes import size

DETAIL_WIDTH = 90


def _detail(result: CaseResult) -> str:
    verdict = result.verdict
    text = verdict.message or ""
    if verdict.warnings:
        text = "; ".join(filter(None, [text, *("warning: " + w for w in verdict.warnings)]))
    text = " ".join(text.split())
    return text if len(text) <= DETAIL_WIDTH else text[:DETAIL_WIDTH - 1] + "…"


def _rows(checks: Sequence[CheckResult], cell: Callable[[str], str]) -> list[list[str]]:
    """The check table's rows; ``cell`` escapes the text an entry controls for the format."""
    rows = []
    for check in checks:
        if check.error and not check.results:
            rows.append([cell(check.label), "-", "error", "", "", cell(check.error)])
        for result in check.results:
            rows.append([cell(check.label), cell(result.case),
                         result.verdict.status.short + " " + str(result.verdict.status) if not result.passed else "AC",
                         f"{result.time:.2f}s", size(result.memory) if result.memory else "", cell(_detail(result))])
    return rows


def summary(checks: Sequence[CheckResult]) -> str:
    results = [r for c in checks for r in c.results]
    passed = sum(r.passed for r in results)
    entries_ok = sum(c.passed for c in checks)
    isolation = next((r.isolation for r in results if r.isolation), "")
    line = (f"{entries_ok}/{len(checks)} entries passed; {passed}/{len(results)} cases accepted")
    return line + (f" (isolation: {isolation})" if isolation else "")


def check_report(checks: Sequence[CheckResult], fmt: str) -> str:
    if fmt == "json":
        return json.dumps({"passed": all(c.passed for c in checks), "summary": summary(checks),
                           "entries": [c.to_dict() for c in checks]}, indent=2)
    if fmt == "junit":
        return _junit(checks)
    headers = ["entry", "case", "verdict", "time", "memory", "detail"]
    if fmt == "markdown":
        table = tabulate(_rows(checks, markdown), headers, tablefmt="github", disable_numparse=True)
        return f"{table}\n\n**{markdown(summary(checks))}**"
    failing = [f"  {one_line(c.error)}" if c.error and c.error.startswith(c.label)
               else f"  {one_line(c.label)}: {one_line(c.why_not)}" for c in checks if not c.passed]
    lines = [one_line(summary(checks))] + (["failed:", *failing] if failing else [])
    return f"{tabulate(_rows(checks, one_line), headers, tablefmt='simple', disable_numparse=True)}\n\n" + \
        "\n".join(lines)


def _junit(checks: Sequence[CheckResult]) -> str:
    """JUnit XML, valid whatever the entries printed: every text goes through ``xml_text``."""
    suites = ElementTree.Element("testsuites")
    for check in checks:
        failures = sum(not r.passed for r in check.results) + (1 if check.error else 0)
        label = xml_text(check.label)
        suite = ElementTree.SubElement(suites, "testsuite", name=label,
                                       tests=str(len(check.results) or 1), failures=str(failures),
                                       time=f"{sum(r.time for r in check.results):.3f}")
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
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode")
