"""`verify check -x` and the slowest-case line, on real entries and commands."""
import json
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
from echo_contest import write_entry  # noqa: E402

from tests.unit.test_check_fail_fast import CAT
from tests.unit.test_check_fail_fast import contest as echo_contest_fixture
from verify.cli import main  # noqa: E402
from verify.reports.checks import SKIPPED  # noqa: E402

contest = echo_contest_fixture       # the unit half's fixture, used here by name

# echoes every case but "b" (whose input is "2\n")
ALL_BUT_B = "import sys\ndata = sys.stdin.read()\nsys.stdout.write('no\\n' if data == '2\\n' else data)\n"


def run_cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


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


def test_the_report_ends_with_the_slowest_accepted_case_against_its_limit(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT)
    for fmt in ("table", "markdown"):
        report = run_cli("check", str(folder), "--testcases", str(cases), "--time", "7", "--format", fmt).output
        last = report.rstrip().splitlines()[-1]
        assert last.startswith("slowest accepted case: echo/cat ") and " s of 7 s (" in last, last
    assert "slowest" not in run_cli("check", str(folder), "--testcases", str(cases), "--format", "json").output


@pytest.mark.parametrize("words", [["check", "x", "--format", "xml"], ["rank", "--format", "junit"],
                                   ["langs", "--format", "markdown"]])
def test_an_unknown_format_is_a_usage_error_in_one_line(words):
    result = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *words],
                            capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "is not a format of verify" in result.stderr, result.stderr
    assert f"'{words[-1]}'" in result.stderr
