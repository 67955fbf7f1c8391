"""What machines read stays byte-identical: the plain table (stdout not a terminal), JSON,
JUnit and Markdown of a fixed set of checks, against the output recorded before the terminal
summary, colour and progress were added (tests/fixtures/reports/golden.json).

Two differences from the recording, by design: in Markdown a compile error is shown once per
entry (the ``compile-error`` set is recorded with the new wording); JSON and JUnit name the
isolation and which verdicts may differ (JSON's ``isolation`` and ``differences`` fields after
the summary, a ``properties`` element first in each JUnit suite), nothing else changed."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verify.reports.checks import CheckView, check_report
from verify.results import CaseResult, CheckResult
from verify.verdict import Status, Verdict

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "reports" / "golden.json"
ISOLATION = "bubblewrap+seccomp+landlock v7+cgroup v1+own uid"
LONG = ("the solver walked into a wall at row 12, column 40 on step 318 after turning left twice; "
        "the maze had a corridor there in the architect's drawing but not in the replay, see the log")


def fixed_checks() -> dict[str, list[CheckResult]]:
    """Named sets of checks covering every kind of row a report has."""
    def ac(label: str, case: str, time: float = 0.12, memory: int = 3 << 20, isolation: str = ISOLATION):
        return CaseResult(label, case, Verdict.accept("ok"), time=time, memory=memory, isolation=isolation)

    all_ac = [CheckResult("desert/awk", [ac("desert/awk", f"map-{i}", 0.1 * i) for i in range(1, 5)]),
              CheckResult("desert/tcl", [ac("desert/tcl", f"map-{i}", 0.2 * i, 5 << 20) for i in range(1, 5)])]
    mixed = [
        all_ac[0],
        CheckResult("desert/perl", [
            ac("desert/perl", "map-1"),
            CaseResult("desert/perl", "map-2", Verdict(Status.WRONG, "turn 3: died of thirst at (4, 5)",
                                                       "map\nlines", warnings=["exited with code 1"]),
                       time=0.3, memory=4 << 20, isolation=ISOLATION),
            CaseResult("desert/perl", "map-3", Verdict(Status.TIME_LIMIT, "still running after 2 s (wall time)"),
                       time=2.01, memory=9 << 20, isolation=ISOLATION),
            CaseResult("desert/perl", "map-4", Verdict(Status.MEMORY_LIMIT, LONG), time=0.5, memory=0,
                       isolation=ISOLATION)]),
        CheckResult("maze/broken", error="maze/broken: entry.toml: name: " + LONG),
        CheckResult("maze/other", error="no test cases found (give --testcases DIR)"),
        CheckResult("maze/theseus", [ac("maze/theseus", "architect 15x15 seed 1"),
                                     ac("maze/theseus", "solver on the reference 15x15 maze (seed 1)",
                                        4.25, 0, ISOLATION)]),
    ]
    compile_error = Verdict(Status.COMPILE_ERROR, "gcc: main.c:1:11: error: expected ')'", "main.c:1:11: error")
    ce = [CheckResult("arrows/c-bad", [CaseResult("arrows/c-bad", f"size-{i}", compile_error) for i in range(6)]),
          all_ac[1]]
    return {"all-ac": all_ac, "mixed": mixed, "compile-error": ce, "none": []}


def render_all() -> dict[str, dict[str, str]]:
    return {name: {fmt: check_report(checks, fmt) for fmt in ("table", "json", "junit", "markdown")}
            for name, checks in fixed_checks().items()}


@pytest.mark.parametrize("name", list(fixed_checks()))
@pytest.mark.parametrize("fmt", ["table", "json", "junit", "markdown"])
def test_outputs_for_machines_are_unchanged(name, fmt):
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))[name][fmt]
    if (name, fmt) == ("compile-error", "markdown"):
        golden = _compile_error_once(golden)
    golden = _isolation_named(golden, fmt, "" if name == "none" else ISOLATION)
    assert check_report(fixed_checks()[name], fmt) == golden
    # what the command line passes when stdout is not a terminal: the same bytes
    assert check_report(fixed_checks()[name], fmt, CheckView(failures_only=False, compact=False, width=80,
                        colour=False)) == golden


COMPILE_ERROR_ONCE = """\
| entry        | case        | verdict          | time   | memory   | detail                                |
|--------------|-------------|------------------|--------|----------|---------------------------------------|
| arrows/c-bad | all 6 cases | CE compile error |        |          | gcc: main.c:1:11: error: expected ')' |
| desert/tcl   | map-1       | AC               | 0.20s  | 5 MiB    | ok                                    |
| desert/tcl   | map-2       | AC               | 0.40s  | 5 MiB    | ok                                    |
| desert/tcl   | map-3       | AC               | 0.60s  | 5 MiB    | ok                                    |
| desert/tcl   | map-4       | AC               | 0.80s  | 5 MiB    | ok                                    |

**1/2 entries passed; 4/10 cases accepted (isolation: bubblewrap+seccomp+landlock v7+cgroup v1+own uid)**"""


def _isolation_named(recorded: str, fmt: str, isolation: str) -> str:
    """The recording with the isolation's fields (its runs had one without differences)."""
    if fmt == "json":
        data = json.loads(recorded)
        named = {"passed": data["passed"], "summary": data["summary"], "isolation": isolation, "differences": "",
                 "entries": data["entries"]}
        return json.dumps(named, indent=2)
    if fmt == "junit":
        return re.sub(r"(?m)^(  <testsuite .*>)$", lambda suite: f"{suite.group(1)}\n    <properties>\n      "
                      f'<property name="isolation" value="{isolation}" />\n    </properties>', recorded)
    return recorded


def _compile_error_once(recorded: str) -> str:
    """The recorded Markdown had the compile error on each of its six rows: now it is one row."""
    assert recorded.count("| CE compile error |") == 6
    return COMPILE_ERROR_ONCE


if __name__ == "__main__":     # re-record (only when a format is meant to change)
    GOLDEN.write_text(json.dumps(render_all(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
