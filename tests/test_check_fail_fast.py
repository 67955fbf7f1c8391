"""``verify check -x/--fail-fast``, the slowest accepted case's line, the format registry."""
import json
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
import echo_contest  # noqa: E402
from echo_contest import write_cases, write_entry  # noqa: E402

from verify.cli import main  # noqa: E402
from verify.commands.check import CheckOptions, check  # noqa: E402
from verify.commands.jobs import load_checks, run_checks  # noqa: E402
from verify.contests.contract import BatchTask  # noqa: E402
from verify.errors import VerifyError  # noqa: E402
from verify.grading import FakeRun, FakeRunner  # noqa: E402
from verify.grading.executor import LocalExecutor  # noqa: E402
from verify.pipeline.observe import FailFast  # noqa: E402
from verify.pipeline.outcome import CheckedEntry, slowest_accepted  # noqa: E402
from verify.pipeline.plan import EntryCheck  # noqa: E402
from verify.reports.checks import SKIPPED, SlowestCase  # noqa: E402
from verify.reports.formats import FORMATS, formats_of, renderer  # noqa: E402
from verify.results import CaseResult  # noqa: E402
from verify.runner import Limits  # noqa: E402
from verify.settings import Settings  # noqa: E402
from verify.verdict import Status, Verdict  # noqa: E402

CAT = "import sys\nsys.stdout.write(sys.stdin.read())\n"
# echoes every case but "b" (whose input is "2\n")
ALL_BUT_B = "import sys\ndata = sys.stdin.read()\nsys.stdout.write('no\\n' if data == '2\\n' else data)\n"
LIMITS = Limits(wall_time=5, cpu_time=5)


@pytest.fixture
def contest(tmp_path, monkeypatch):
    echo_contest.install(monkeypatch)
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    cases = write_cases(tmp_path / "testcases" / "echo",
                        {"a": (b"1\n", b"1\n"), "b": (b"2\n", b"2\n"), "c": (b"3\n", b"3\n"), "d": (b"4\n", b"4\n")})
    return tmp_path, cases


def run_cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def echoing(stdin: bytes, args: tuple[str, ...]) -> FakeRun:
    return FakeRun(stdout=b"no\n" if stdin == b"2\n" else stdin)


def test_fail_fast_runs_no_case_of_an_entry_after_its_first_failure(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "flawed", "flawed.py", CAT)
    runner = FakeRunner({"flawed.py": echoing})
    (checked,) = run_checks(runner, load_checks([folder], cases), LIMITS, jobs=1, observers=[FailFast()])
    assert [r.case for r in checked.results] == ["a", "b"] and not checked.results[1].passed
    assert checked.skipped == ["c", "d"]
    assert [stdin for _, stdin, _ in runner.runs] == [b"1\n", b"2\n"]      # c and d never ran


def test_without_fail_fast_every_case_runs(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "flawed", "flawed.py", CAT)
    runner = FakeRunner({"flawed.py": echoing})
    (checked,) = run_checks(runner, load_checks([folder], cases), LIMITS, jobs=1)
    assert [r.case for r in checked.results] == ["a", "b", "c", "d"] and checked.skipped == []
    assert len(runner.runs) == 4


def test_fail_fast_stops_only_the_entry_that_failed():
    fail_fast = FailFast()
    fail_fast.judged(0, CaseResult("echo/x", "a", Verdict(Status.WRONG, "no")))
    fail_fast.judged(1, CaseResult("echo/y", "a", Verdict.accept()))
    assert not fail_fast.admit(0) and fail_fast.admit(1) and fail_fast.admit(2)


def test_check_x_says_which_cases_it_skipped_in_every_format(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "flawed", "flawed.py", ALL_BUT_B)
    common = ["check", str(folder), "--testcases", str(cases), "-j", "1", "-x"]
    table = run_cli(*common)
    assert table.exit_code == 1
    rows = [line.split(None, 3) for line in table.output.splitlines() if line.startswith("echo/flawed")]
    assert [(row[1], row[2]) for row in rows if row[2] == "skipped"] == [("c", "skipped"), ("d", "skipped")]
    assert "--fail-fast: 2 cases skipped (not run after their entry's first failing case)" in table.output
    assert SKIPPED in table.output

    data = json.loads(run_cli(*common, "--format", "json").output)
    assert data["fail_fast"] is True and data["entries"][0]["skipped"] == ["c", "d"]
    assert [c["case"] for c in data["entries"][0]["cases"]] == ["a", "b"]

    suite = ElementTree.fromstring(run_cli(*common, "--format", "junit").output).find("testsuite")
    assert suite is not None and suite.get("skipped") == "2" and suite.get("tests") == "4"
    skipped = [case.get("name") for case in suite.iter("testcase") if case.find("skipped") is not None]
    assert skipped == ["c", "d"]

    markdown = run_cli(*common, "--format", "markdown").output
    assert "| echo/flawed | c      | skipped" in markdown and "--fail-fast: 2 cases skipped" in markdown


def test_a_fail_fast_check_is_not_kept_for_rank(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT)
    passed = run_cli("check", str(folder), "--testcases", str(cases), "--fail-fast")
    assert passed.exit_code == 0 and "4/4 cases accepted" in passed.output
    assert not list((root / "cache" / "results").glob("*.json"))
    run_cli("check", str(folder), "--testcases", str(cases))
    assert len(list((root / "cache" / "results").glob("*.json"))) == 1


def test_fail_fast_on_a_cluster_is_refused_before_anything_runs(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT)
    with pytest.raises(VerifyError, match="--fail-fast runs on this machine only"):
        check(FakeRunner({}), [folder], CheckOptions(testcases=cases, fail_fast=True),
              settings=Settings.from_environment({"VERIFY_CACHE": str(root / "cache")}), executor=LocalExecutor())


def test_the_report_ends_with_the_slowest_accepted_case_against_its_limit(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT)
    for fmt in ("table", "markdown"):
        report = run_cli("check", str(folder), "--testcases", str(cases), "--time", "7", "--format", fmt).output
        last = report.rstrip().splitlines()[-1]
        assert last.startswith("slowest accepted case: echo/cat ") and " s of 7 s (" in last, last
    assert "slowest" not in run_cli("check", str(folder), "--testcases", str(cases), "--format", "json").output


def test_the_slowest_accepted_case_is_the_closest_to_its_own_limit():
    def task(name, limits=None):
        return BatchTask(name, None, b"", lambda: None, limits=limits)  # type: ignore[arg-type]

    planned = EntryCheck("echo/x", tasks=(task("short", Limits(wall_time=1)), task("long"), task("failed")))
    results = [CaseResult("echo/x", "short", Verdict.accept(), time=0.8),
               CaseResult("echo/x", "long", Verdict.accept(), time=3.2),
               CaseResult("echo/x", "failed", Verdict(Status.TIME_LIMIT), time=10)]
    found = slowest_accepted([CheckedEntry("echo/x", results, planned=planned)], Limits(wall_time=10))
    assert found == SlowestCase("echo/x", "short", 0.8, 1)
    assert SlowestCase("echo/x", "long", 3.2, 10).line() == "slowest accepted case: echo/x long 3.20 s of 10 s (32 %)"
    assert slowest_accepted([CheckedEntry("echo/x", results[2:], planned=planned)], Limits()) is None


@pytest.mark.parametrize("words", [["check", "x", "--format", "xml"], ["rank", "--format", "junit"],
                                   ["langs", "--format", "markdown"]])
def test_an_unknown_format_is_a_usage_error_in_one_line(words):
    result = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *words],
                            capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "is not a format of verify" in result.stderr, result.stderr
    assert f"'{words[-1]}'" in result.stderr


def test_every_format_of_every_report_has_its_renderer():
    for name, found in FORMATS.items():
        for report in found.renderers:
            assert callable(renderer(report, name)) and name in formats_of(report)
