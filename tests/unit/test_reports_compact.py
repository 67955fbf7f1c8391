"""The check table on a terminal: one line per entry, failing cases in full below it, details
wrapped to the terminal, a compile error once per entry, colour only when asked; and
``failures_only`` (the -q flag): only what failed, and the summary line."""
from __future__ import annotations

import re

import pytest

from tests.unit.test_reports_stable import LONG, fixed_checks
from verify.reports.checks import CheckView, check_report, summary
from verify.reports.colour import use_colour
from verify.results import CaseResult, CheckResult
from verify.settings import Settings
from verify.verdict import Status, Verdict

ANSI = re.compile("\x1b\\[[0-9;]*m")


def many_passing(entries: int = 20, cases: int = 17) -> list[CheckResult]:
    return [CheckResult(f"desert/e{i}", [CaseResult(f"desert/e{i}", f"map-{j}", Verdict.accept(), time=0.1,
                                                    memory=(j + 1) << 20, isolation="fake")
                                         for j in range(cases)]) for i in range(entries)]


def test_an_all_accepted_run_is_one_line_per_entry():
    checks = many_passing()
    report = check_report(checks, "table", CheckView(compact=True, width=100))
    lines = report.splitlines()
    assert len(lines) == 2 + 20 + 2                    # header, rule, entries, blank, summary
    assert lines[2].split() == ["desert/e0", "AC", "17/17", "1.70s", "17", "MiB"]
    assert lines[-1] == summary(checks)
    assert len(check_report(checks, "table").splitlines()) > 340    # the full table, for pipes


def test_a_failing_entry_shows_its_failing_cases_in_full_below_it():
    report = check_report(fixed_checks()["mixed"], "table", CheckView(compact=True, width=100))
    lines = report.splitlines()
    perl = next(i for i, line in enumerate(lines) if line.startswith("desert/perl"))
    assert lines[perl].split()[:3] == ["desert/perl", "WA", "1/4"]
    assert [line.split()[0] for line in lines[perl + 1:perl + 10] if line.startswith("  ") and line[2] != " "] == \
        ["map-2", "map-3", "map-4"]
    assert "map-1" not in report                       # accepted cases are counted, not listed
    words = " ".join(line.strip() for line in lines[perl:])
    assert "see the log" in words                      # the detail in full, wrapped, not cut at 90
    assert "…" not in report


@pytest.mark.parametrize("width", [80, 100, 120])
def test_details_are_wrapped_to_the_width_and_an_entry_error_does_not_repeat_its_label(width):
    report = check_report(fixed_checks()["mixed"], "table", CheckView(compact=True, width=width))
    table = report.split("\n\n")[0]
    assert max(len(line) for line in table.splitlines()) <= width
    broken = next(line for line in table.splitlines() if line.startswith("maze/broken"))
    assert broken.count("maze/broken") == 1 and "entry.toml: name:" in broken
    assert LONG.split()[-1] in table


def test_a_compile_error_is_shown_once_per_entry_with_the_cases_it_covers():
    checks = fixed_checks()["compile-error"]
    compact = check_report(checks, "table", CheckView(compact=True, width=120))
    assert compact.count("expected ')'") == 1 and "all 6 cases" in compact
    assert "compile error: gcc: main.c:1:11: error: expected ')'" in compact
    md = check_report(checks, "markdown")
    assert md.count("expected ')'") == 1 and "| all 6 cases |" in md
    assert check_report(checks, "json").count("expected ')'") == 6        # machines: every case
    assert check_report(checks, "junit").count("expected ')'") == 6
    assert check_report(checks, "table").count("expected ')'") == 6 + 1   # the full table too, and "failed:"


def test_a_compile_error_of_some_cases_only_counts_them():
    ce = Verdict(Status.COMPILE_ERROR, "no")
    check = CheckResult("a/b", [CaseResult("a/b", "x", ce), CaseResult("a/b", "y", ce),
                                CaseResult("a/b", "z", Verdict.accept())])
    assert "  2 cases" in check_report([check], "table", CheckView(compact=True, width=100))


def test_failures_only_prints_failing_cases_and_the_summary():
    mixed = fixed_checks()["mixed"]
    for compact in (True, False):
        report = check_report(mixed, "table", CheckView(failures_only=True, compact=compact, width=100))
        assert "desert/awk" not in report and "maze/theseus" not in report and "map-1" not in report
        assert "map-2" in report and "maze/broken" in report and report.endswith(summary(mixed))
        assert "failed:" not in report
    passing = fixed_checks()["all-ac"]
    assert check_report(passing, "table", CheckView(failures_only=True, compact=True)) == summary(passing)
    assert check_report(passing, "table", CheckView(failures_only=True)) == summary(passing)
    md = check_report(mixed, "markdown", CheckView(failures_only=True))
    assert "desert/awk" not in md and "map-2" in md


def test_colour_only_when_asked_and_the_same_text_without_it():
    mixed = fixed_checks()["mixed"]
    plain = check_report(mixed, "table", CheckView(compact=True, width=100))
    coloured = check_report(mixed, "table", CheckView(compact=True, width=100, colour=True))
    assert "\x1b" not in plain and ANSI.sub("", coloured) == plain
    assert "\x1b[32mAC" in coloured and "\x1b[31mWA" in coloured and "\x1b[33mTLE" in coloured
    assert "\x1b[33mMLE" in coloured
    ce = check_report(fixed_checks()["compile-error"], "table", CheckView(compact=True, colour=True))
    assert "\x1b[35mCE" in ce
    full = check_report(mixed, "table", CheckView(colour=True))
    assert ANSI.sub("", full).replace(" ", "") == check_report(mixed, "table").replace(" ", "")
    for fmt in ("json", "junit", "markdown"):
        assert "\x1b[3" not in check_report(mixed, fmt)


class _Tty:
    def __init__(self, tty: bool):
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("env, tty, expected", [
    ({}, True, True), ({}, False, False),
    ({"NO_COLOR": "1"}, True, False), ({"NO_COLOR": ""}, True, True),
    ({"FORCE_COLOR": "1"}, False, True), ({"FORCE_COLOR": "0"}, True, False),
    ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False), ({"TERM": "dumb"}, True, False),
])
def test_use_colour_honours_no_color_and_force_color(env, tty, expected):
    assert use_colour(_Tty(tty), Settings.from_environment(env).colour) is expected


def test_wide_characters_keep_the_columns_in_line():
    checks = [CheckResult(label, [CaseResult(label, "map-1", Verdict.accept(), time=0.1, memory=1 << 20,
                                             isolation="fake")]) for label in ("desert/日本語", "desert/abcdefgh")]
    lines = check_report(checks, "table", CheckView(compact=True, width=100)).splitlines()
    wide, plain = lines[2], lines[3]
    # the verdict starts at the same terminal column on both lines: 日本語 takes 6 columns
    assert wide.index("AC") + 3 == plain.index("AC")
    assert wide.split() == ["desert/日本語", "AC", "1/1", "0.10s", "1", "MiB"]
