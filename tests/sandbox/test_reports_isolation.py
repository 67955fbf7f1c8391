"""Every report names the isolation its runs had (the one they would have had when nothing
ran), and, where that isolation's verdicts may differ from a judge with a cgroup per run,
says which: the check in every format, the leaderboard, the tournament, the site."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
import echo_contest  # noqa: E402
from echo_contest import write_cases, write_entry  # noqa: E402

from verify.cli import main  # noqa: E402
from verify.contests.contract import Reply  # noqa: E402
from verify.contests.maze.match import Match  # noqa: E402
from verify.contests.maze.model import Maze  # noqa: E402
from verify.contests.maze.play import BuiltMaze  # noqa: E402
from verify.contests.maze.tournament import MatchOutcome, TournamentResult, board_of  # noqa: E402
from verify.golf import Standing  # noqa: E402
from verify.reports.checks import CheckView, check_report  # noqa: E402
from verify.reports.isolation import differences_of  # noqa: E402
from verify.reports.languages import languages_report  # noqa: E402
from verify.reports.leaderboard import rank_report, standings_text  # noqa: E402
from verify.reports.tournament import RENDERERS  # noqa: E402
from verify.results import CaseResult, CheckResult  # noqa: E402
from verify.runner.isolation import differences  # noqa: E402
from verify.runner.selftest import LanguageStatus  # noqa: E402
from verify.site import EntryPage, write_check_site, write_koth_site  # noqa: E402
from verify.verdict import Status, Verdict  # noqa: E402

RLIMITS = "no sandbox+seccomp+landlock v7+rlimits+same uid"
CGROUP = "bubblewrap+seccomp+landlock v7+cgroup v1+own uid"
WHY = differences(RLIMITS)
ROOT = Path(__file__).resolve().parents[2]


def test_the_names_used_here_are_one_isolation_with_differences_and_one_without():
    assert WHY and "memory limit" in WHY and differences(CGROUP) == ""
    assert differences_of(f"{CGROUP}, {RLIMITS}") == WHY       # several isolations: each one's, once


def _checks(isolation: str) -> list[CheckResult]:
    return [CheckResult("echo/a", [CaseResult("echo/a", "one", Verdict.accept("ok"), isolation=isolation),
                                   CaseResult("echo/a", "two", Verdict(Status.RUNTIME_ERROR, "exit code 1"),
                                              isolation=isolation)])]


@pytest.mark.parametrize("options", [{}, {"compact": True, "width": 100}, {"failures_only": True},
                                     {"failures_only": True, "compact": True}])
def test_every_table_names_the_isolation_and_what_may_differ(options):
    report = check_report(_checks(RLIMITS), "table", CheckView(**options))
    lines = report.splitlines()
    summary = next(i for i, line in enumerate(lines) if "entries passed" in line)
    assert lines[summary].endswith(f"(isolation: {RLIMITS})")
    assert lines[summary + 1] == f"verdicts may differ: {WHY}"
    assert "verdicts may differ" not in check_report(_checks(CGROUP), "table", CheckView(**options))


def test_markdown_names_the_isolation_and_what_may_differ():
    report = check_report(_checks(RLIMITS), "markdown")
    assert f"(isolation: {RLIMITS})**" in report and report.endswith(f"\n\nverdicts may differ: {WHY}")
    assert "verdicts may differ" not in check_report(_checks(CGROUP), "markdown")


def test_json_carries_the_isolation_and_its_differences_as_fields():
    data = json.loads(check_report(_checks(RLIMITS), "json"))
    assert (data["isolation"], data["differences"]) == (RLIMITS, WHY)
    data = json.loads(check_report(_checks(CGROUP), "json"))
    assert (data["isolation"], data["differences"]) == (CGROUP, "")


def test_each_junit_suite_has_the_isolation_and_its_differences_as_properties():
    root = ElementTree.fromstring(check_report(_checks(RLIMITS) + [CheckResult("echo/b", error="bad toml")], "junit"))
    for suite in root.iter("testsuite"):
        properties = {p.get("name"): p.get("value") for p in suite.find("properties").iter("property")}
        assert properties == {"isolation": RLIMITS, "differences": WHY}
    root = ElementTree.fromstring(check_report(_checks(CGROUP), "junit"))
    assert {p.get("name"): p.get("value") for p in root.iter("property")} == {"isolation": CGROUP}


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_when_nothing_ran_the_summary_names_the_isolation_that_would_have_been_used(fmt):
    for checks in ([], [CheckResult("echo/broken", error="echo/broken: entry.toml: no source")]):
        report = check_report(checks, fmt, CheckView(isolation=RLIMITS))
        assert f"(isolation: {RLIMITS})" in report and WHY in report


def test_the_results_own_isolation_is_named_before_the_one_given():
    """A cluster's workers ran them: the results say under what."""
    report = check_report(_checks(CGROUP), "table", CheckView(isolation=RLIMITS))
    assert f"(isolation: {CGROUP})" in report and "verdicts may differ" not in report


# --- the leaderboard -----------------------------------------------------------------------

STANDINGS = [Standing("echo/a", "a", "python", None, True, "", 2)]


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_a_leaderboard_names_the_isolation_and_what_may_differ(fmt):
    report = rank_report("echo", STANDINGS, fmt, {"python": "Python"}, isolation=RLIMITS)
    assert f"isolation: {RLIMITS}" in report.splitlines() and f"verdicts may differ: {WHY}" in report.splitlines()
    assert "verdicts may differ" not in rank_report("echo", STANDINGS, fmt, {"python": "Python"}, isolation=CGROUP)


def test_a_json_leaderboard_carries_the_isolation_and_its_differences():
    data = json.loads(rank_report("echo", STANDINGS, "json", {}, isolation=RLIMITS))
    assert (data["isolation"], data["differences"]) == (RLIMITS, WHY)


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_a_leaderboard_made_under_another_isolation_compares_equal_but_not_other_standings(fmt):
    here = rank_report("echo", STANDINGS, fmt, {}, isolation=RLIMITS)
    there = rank_report("echo", STANDINGS, fmt, {}, isolation=CGROUP)
    assert here != there and standings_text(here) == standings_text(there)
    assert RLIMITS not in standings_text(here) and "echo/a" in standings_text(here)
    other = rank_report("echo", [Standing("echo/b", "b", "python", None, True, "", 2)], fmt, {}, isolation=CGROUP)
    assert standings_text(other) != standings_text(here)


# --- the tournament ----------------------------------------------------------------------

def _tournament() -> TournamentResult:
    maze = Maze(4, (0, 0), (0, 1), "0" * 12, "0" * 12)
    match = Match(maze)
    match.apply(Reply(" ".join(map(str, maze.shortest_path()[1]))))
    return TournamentResult([4], [1], ["A"], ["A", "X"], {("A", 4, 1): BuiltMaze(4, 1, maze)},
                            [MatchOutcome("A", "X", 4, 1, match.result())])


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_the_tournament_names_the_isolation_and_what_may_differ(fmt):
    report = RENDERERS[fmt](board_of(_tournament()), RLIMITS)
    assert f"isolation: {RLIMITS}" in report.splitlines() and f"verdicts may differ: {WHY}" in report.splitlines()
    assert "verdicts may differ" not in RENDERERS[fmt](board_of(_tournament()), CGROUP)


def test_the_tournament_json_carries_the_isolation_and_its_differences():
    data = json.loads(RENDERERS["json"](board_of(_tournament()), RLIMITS))
    assert (data["isolation"], data["differences"]) == (RLIMITS, WHY) and data["matches"]


# --- the languages --------------------------------------------------------------------

def test_the_languages_table_names_the_isolation_and_what_may_differ():
    statuses = [LanguageStatus("c", "C (gcc)", True, "gcc 12", "ok", "/usr/bin/gcc", 0.2)]
    lines = languages_report(statuses, RLIMITS, "table").splitlines()
    assert lines[-2:] == [f"isolation: {RLIMITS}", f"verdicts may differ: {WHY}"]
    assert languages_report(statuses, CGROUP, "table").splitlines()[-1] == f"isolation: {CGROUP}"
    data = json.loads(languages_report(statuses, RLIMITS, "json"))
    assert (data["isolation"], data["differences"]) == (RLIMITS, WHY)


# --- the site ----------------------------------------------------------------------------

def test_the_site_index_and_entry_pages_name_the_isolation_and_what_may_differ(tmp_path):
    page = EntryPage("echo/a", "a", "echo", isolation=RLIMITS, differences=WHY)
    site = write_check_site(tmp_path / "site", [], [page], isolation=RLIMITS, differences=WHY)
    index = (tmp_path / "site" / "index.html").read_text()
    assert f"isolation: {RLIMITS}" in index and "verdicts may differ: " in index and "no cgroup counts" in index
    [entry] = [p for p in site.pages if "entries" in p.parts]
    text = entry.read_text()
    assert RLIMITS in text and "verdicts may differ" in text and "no cgroup counts" in text
    from verify.contests.maze.presenter import PRESENTER
    koth = write_koth_site(tmp_path / "koth", PRESENTER, _tournament(), isolation=CGROUP)
    index = (koth.folder / "index.html").read_text()
    assert f"isolation: {CGROUP}" in index and "verdicts may differ" not in index


# --- through the commands ----------------------------------------------------------------

CAT = "import sys\nsys.stdout.write(sys.stdin.read())\n"


@pytest.fixture
def contest(tmp_path, monkeypatch, use_isolation):
    echo_contest.install(monkeypatch)
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    cases = write_cases(tmp_path / "testcases" / "echo", {"one": (b"1\n", b"1\n")})
    chosen = use_isolation("none", cgroups=False)
    return tmp_path, cases, chosen.name


def run_cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_verify_check_names_the_isolation_in_every_report_it_writes(contest):
    root, cases, name = contest
    assert differences(name), name
    folder = write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT)
    site = root / "site"
    done = run_cli("check", str(folder), "--testcases", str(cases), "--html", str(site),
                   "--write", f"json={root / 'r.json'}", "--write", f"junit={root / 'r.xml'}",
                   "--write", f"markdown={root / 'r.md'}")
    assert done.exit_code == 0, done.output
    assert f"(isolation: {name})" in done.output and f"verdicts may differ: {differences(name)}" in done.output
    assert json.loads((root / "r.json").read_text())["differences"] == differences(name)
    assert f'name="isolation" value="{name}"' in (root / "r.xml").read_text()
    assert "verdicts may differ" in (root / "r.md").read_text()
    assert name in (site / "index.html").read_text()
    assert all(name in page.read_text() for page in (site / "entries").iterdir())


def test_verify_check_names_the_isolation_when_nothing_ran(contest):
    root, cases, name = contest
    broken = root / "submissions" / "echo" / "broken"
    broken.mkdir(parents=True)
    (broken / "entry.toml").write_text('contest = "echo"\nlanguage = "python"\nsource = "missing.py"\n')
    done = run_cli("check", str(broken), "--testcases", str(cases))
    assert done.exit_code == 1
    assert "0/1 entries passed; 0/0 cases accepted" in done.output and f"(isolation: {name})" in done.output
    assert "verdicts may differ" in done.output


def test_verify_rank_names_the_isolation_and_its_check_leaves_it_aside(contest):
    root, cases, name = contest
    write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT)
    done = run_cli("rank", "echo", "--testcases", str(cases), "--format", "markdown", "--output", "BOARD.md")
    assert done.exit_code == 0, done.output
    board = (root / "BOARD.md").read_text()
    assert f"isolation: {name}" in board and "verdicts may differ" in board
    (root / "BOARD.md").write_text(board.replace(name, CGROUP).replace(f"\n\nverdicts may differ: {WHY}", ""))
    current = run_cli("rank", "echo", "--testcases", str(cases), "--format", "markdown", "--check", "BOARD.md")
    assert current.exit_code == 0 and "up to date" in current.output, current.output


def test_verify_koth_maze_names_the_isolation_in_its_reports_and_site(tmp_path, use_isolation):
    name = use_isolation("none", cgroups=False).name
    entries = [str(ROOT / "submissions" / "maze" / "theseus"), str(ROOT / "submissions" / "maze" / "drunkard")]
    base = ["koth", "maze", *entries, "--sizes", "6", "--seeds", "3", "--size-range", "2..50", "-q"]
    done = run_cli(*base, "--format", "json", "--logs", str(tmp_path / "logs"), "--html", str(tmp_path / "site"))
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["isolation"] == name and json.loads(done.output)["differences"]
    assert name in (tmp_path / "site" / "index.html").read_text()
    table = run_cli(*base, "--logs", str(tmp_path / "logs2"))
    assert f"isolation: {name}" in table.output and "verdicts may differ" in table.output


RUBY_FAILS = "a = [1, nil]\nputs a.sum\n"


def test_a_ruby_runtime_error_is_quoted_by_its_first_line_in_the_table_junit_and_site(contest):
    """Ruby's error is the first line of its stderr, its backtrace below: every report shows
    the error, never ``from ...:in `<main>'``."""
    root, cases, _ = contest
    if shutil.which("ruby") is None:
        pytest.skip("ruby is not installed (apt-get install ruby)")
    folder = write_entry(root / "submissions" / "echo" / "sum", "sum.rb", RUBY_FAILS, language="ruby")
    done = run_cli("check", str(folder), "--testcases", str(cases), "--write", f"junit={root / 'r.xml'}",
                   "--html", str(root / "site"))
    assert done.exit_code == 1
    wanted = "nil can't be coerced into Integer (TypeError)"
    assert wanted in done.output and "<main>" not in done.output
    messages = [f.get("message") for f in ElementTree.parse(root / "r.xml").iter("failure")]
    assert messages and all(wanted in m for m in messages)
    [page] = (root / "site" / "entries").iterdir()
    assert "nil can&#39;t be coerced into Integer (TypeError)" in page.read_text()
